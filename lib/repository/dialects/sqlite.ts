// SQLite through better-sqlite3: GLOB for case-sensitive matches, and SQL functions of ours where its own fold
// ASCII only or sum in doubles.
import type { PatternSpec } from '../../query/operators'
import type { DatePart } from '../../query/query'
import type { FieldType } from '../../types'
import type { Dialect, DriverError, RecognisedError } from './dialect'
import { bufferText, numberText } from './driver-values'
import { likePattern } from './like-pattern'
import { checkSqliteFunctions } from './sqlite-functions'

/** strftime formats; %V (ISO week) needs SQLite 3.46, which better-sqlite3 12 bundles. */
const PARTS: Readonly<Record<DatePart, string>> = {
  year: '%Y',
  month: '%m',
  week: '%V',
  day: '%d',
  weekday: '%w',
  hour: '%H',
  minute: '%M',
  second: '%S',
}

/** GLOB is SQLite's case-sensitive matcher; its wildcards are escaped by wrapping them in brackets. */
function globPattern(term: string, anchor: PatternSpec['anchor']): string {
  const escaped = term.replace(/[*?[]/g, (char) => `[${char}]`)
  return anchor === 'starts' ? `${escaped}*` : anchor === 'ends' ? `*${escaped}` : `*${escaped}*`
}

/** better-sqlite3 sets SQLite's extended result code names, https://www.sqlite.org/rescode.html. */
function recogniseError(error: DriverError): RecognisedError | null {
  const message = typeof error.message === 'string' ? error.message : ''
  // "UNIQUE constraint failed: authors.email" / "NOT NULL constraint failed: authors.name"
  const field = /constraint failed: [^.\s]+\.(\w+)/.exec(message)?.[1]
  switch (error.code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return { code: 'RECORD_NOT_UNIQUE', field }
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return { code: 'NOT_NULL_VIOLATION', field }
    // Writes are checked against references before they run, so this is a delete of a referenced row.
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return { code: 'INVALID_FOREIGN_KEY', referenced: true }
    case 'SQLITE_TOOBIG':
      return { code: 'VALUE_TOO_LONG' }
    default:
      return null
  }
}

export const sqlite: Dialect = {
  name: 'sqlite',
  insertReturnsKeyWithReturning: false,
  // SQLite's default BINARY collation already orders text by code point.
  orderBy: ({ sql, bindings }, direction) => ({ sql: `${sql} ${direction}`, bindings }),
  exactText: null,
  readAsText: new Set<FieldType>(['bigInteger']),
  textCast: 'CAST(?? AS TEXT)',
  // SQLITE_MAX_VARIABLE_NUMBER is 32766 since SQLite 3.32.
  maxParameters: 32_000,
  timestampToStorage: (iso) => iso,
  datePart: (part, _type, { sql, bindings }) => ({ sql: `CAST(strftime('${PARTS[part]}', ${sql}) AS INTEGER)`, bindings }),
  toDouble: (sql) => `CAST(${sql} AS REAL)`,
  exactStringColumn: (table, name, length) => table.string(name, length),
  exactTextValue: (sql) => sql,
  exactSum: 'items_exact_sum',
  checkSetup: checkSqliteFunctions,
  syncAutoIncrement: null,
  // SQLite's LIKE folds ASCII case only and cannot be made case-sensitive per query, so the sensitive match
  // uses GLOB; the insensitive one folds both sides with items_fold() (see sqlite-functions.ts).
  pattern: (column, term, spec) =>
    spec.insensitive
      ? {
          sql: `items_fold(??) ${spec.negate ? 'NOT ' : ''}LIKE items_fold(?) ESCAPE '\\'`,
          bindings: [column, likePattern(term, spec.anchor)],
        }
      : { sql: `?? ${spec.negate ? 'NOT ' : ''}GLOB ?`, bindings: [column, globPattern(term, spec.anchor)] },
  recogniseError,
  cancelStatements: null,
  isCancelled: () => false,
  // better-sqlite3 builds no Dates: SQLite has no date type, and stores them as text.
  readValue: (raw, type) => numberText(bufferText(raw), type),
}
