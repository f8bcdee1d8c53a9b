// SQLite through better-sqlite3: GLOB for case-sensitive matches, and SQL functions of ours where its own fold
// ASCII only or sum in doubles.
import type { PatternSpec } from '../../query/operators'
import type { DatePart } from '../../query/query'
import type { FieldType } from '../../types'
import type { Dialect, DriverError, Fault, RecognisedError, StatementReuse } from '../dialect'
import { bufferText, numberText } from '../driver-values'
import { likePattern } from '../like-pattern'
import { checkSqliteFunctions, prepareSqliteConnection } from './sqlite-functions'
import { cancelReaderStatements, isSqliteReader } from './sqlite-reader'
import { sqliteStoredTemporal, sqliteTemporalToStorage } from './sqlite-storage'

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
    // "CHECK constraint failed: price_positive" (the name, or the expression of an unnamed one).
    case 'SQLITE_CONSTRAINT_CHECK':
      return { code: 'CONSTRAINT_VIOLATION', constraint: /CHECK constraint failed: (.+)$/.exec(message)?.[1] }
    // STRICT tables: "cannot store TEXT value in INTEGER column items.rating".
    case 'SQLITE_CONSTRAINT_DATATYPE':
      return { code: 'INVALID_PAYLOAD', field: /column [^.\s]+\.(\w+)/.exec(message)?.[1] }
    // 'cannot INSERT into generated column "total"' / 'cannot UPDATE generated column "total"'
    case 'SQLITE_ERROR':
      return message.includes('generated column')
        ? { code: 'INVALID_PAYLOAD', field: /generated column "([^"]+)"/.exec(message)?.[1] }
        : null
    default:
      return null
  }
}

/** Another connection held the write lock longer than better-sqlite3's `timeout` (busy_timeout). */
const recogniseFault = (error: DriverError): Fault | null =>
  typeof error.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(error.code) ? 'conflict' : null
/** Whether every character of the text is ASCII (code units below 0x80). */
function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false
  return true
}

/**
 * A case-insensitive match of an ASCII-only term without calling JavaScript per row (items_fold() is a call
 * into Node per row: seconds on a large table, with the event loop blocked). SQLite's lower() folds ASCII
 * only, which gives items_fold()'s answer for an ASCII pattern unless the text holds one of the only two
 * non-ASCII characters that items_fold() turns into ASCII, U+0130 "İ" (to "i") and U+212A, the Kelvin sign
 * (to "k"), or U+0307, the combining dot items_fold() drops after an "i". Only such rows, which instr() finds
 * natively, go through items_fold(). lower() rather than bare LIKE: the host's
 * `PRAGMA case_sensitive_like` would change LIKE. NULL stays NULL either way, so NOT keeps its meaning.
 */
function asciiInsensitive(column: string, pattern: string, negate: boolean): { sql: string; bindings: string[] } {
  const match =
    "(lower(??) LIKE lower(?) ESCAPE '\\' OR ((instr(??, '\u0130') OR instr(??, '\u212a') OR instr(??, '\u0307')) AND items_fold(??) LIKE items_fold(?) ESCAPE '\\'))"
  return { sql: negate ? `NOT ${match}` : match, bindings: [column, pattern, column, column, column, column, pattern] }
}

/** The parts of a better-sqlite3 connection and statement the reuse needs. */
interface Database {
  prepare(sql: string): Statement
}
interface Statement {
  readonly reader: boolean
  all(bindings: readonly unknown[]): unknown[]
  /** Rows as arrays (true) or objects (false), for the calls that follow. */
  raw(arrays: boolean): Statement
  columns(): readonly { readonly name: string }[]
  run(bindings: readonly unknown[]): { lastInsertRowid: number | bigint; changes: number }
}

/** A kept statement; one that returns rows is kept in raw mode. */
interface Kept {
  readonly statement: Statement
  readonly reader: boolean
  /**
   * Its columns' names, or null where they are read at each call: SQLite prepares a kept statement again after a
   * schema change, and one that selects `*` (a host's hook may) then answers other columns.
   */
  readonly names: readonly string[] | null
}

const columnNames = (statement: Statement): string[] => statement.columns().map((column) => column.name)

/** A binding as knex's better-sqlite3 client passes it: a Date as its milliseconds, a boolean as 0 or 1. */
const driverValue = (value: unknown): unknown =>
  value instanceof Date ? value.valueOf() : typeof value === 'boolean' ? Number(value) : value

/** A `*` other than `count(*)`'s: the statement answers whatever columns its tables have. */
const SELECTS_ALL = /(?<!\()\*|\*(?!\))/

/** The knex option that asks a kept statement for its rows as arrays (Dialect.arrayRows); knex's own run ignores it. */
const ARRAYS = 'itemsRouterArrays'

/**
 * Rows as objects, from the arrays a statement in raw mode answers. better-sqlite3's own objects cost more: it
 * looks each column's name up in V8's string table and sets it through V8's generic path, for every row (bench
 * row "relational page, 100 rows"). The same names in the same order, so a later column of a repeated name wins
 * as it does there.
 */
function asObjects(rows: readonly unknown[][], names: readonly string[]): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = new Array(rows.length)
  for (let index = 0; index < rows.length; index++) {
    const values = rows[index]!
    const row: Record<string, unknown> = {}
    for (let column = 0; column < names.length; column++) row[names[column]!] = values[column]
    objects[index] = row
  }
  return objects
}

/**
 * Runs each statement through a `Statement` the connection keeps, as knex's client would run a fresh one. Safe to
 * share: `all` and `run` finish before they return, so no statement is ever busy when the next request takes
 * it, and SQLite prepares a kept statement again by itself when the schema changed. A statement that returns rows
 * is kept in raw mode, and its arrays are made objects here unless the caller asked for arrays. Statements with
 * driver options (knex's `safeIntegers`) run knex's own way, so no kept statement ever changes mode.
 */
const keptStatements: StatementReuse = {
  byDefault: true,
  unmarked: false,
  evicts: true,
  run: async (query, connection, kept, knexRun) => {
    // Checked without copying the options: this runs for every statement.
    const arrays = query.options?.[ARRAYS] === true
    if (query.options && Object.keys(query.options).length > (arrays ? 1 : 0)) return knexRun(query)
    let entry = kept.get(query.sql) as Kept | undefined
    if (entry === undefined) {
      const statement = (connection as Database).prepare(query.sql)
      const reader = statement.reader
      if (reader) statement.raw(true)
      entry = { statement, reader, names: reader && !SELECTS_ALL.test(query.sql) ? columnNames(statement) : null }
      kept.keep(query.sql, entry)
    }
    const bindings = (query.bindings ?? []).map(driverValue)
    const { statement, names } = entry
    if (entry.reader) {
      const rows = statement.all(bindings) as unknown[][]
      query.response = arrays ? rows : asObjects(rows, names ?? columnNames(statement))
      return query
    }
    const response = statement.run(bindings)
    query.response = response
    query.context = { lastID: response.lastInsertRowid, changes: response.changes }
    return query
  },
}

export const sqlite: Dialect = {
  name: 'sqlite',
  insertReturnsKeyWithReturning: false,
  returnsRows: true,
  // The host's connection folds no key list; a reader's statements each cross to a thread (ServerTraits.foldedKeys).
  serverTraits: async (knex) => ({
    insertReturnsRows: true,
    foldedKeys: isSqliteReader(knex) ? Number.POSITIVE_INFINITY : 0,
    autocommits: true,
    readsBack: new Set(
      ((await knex.raw("select distinct tbl_name as name from sqlite_master where type = 'trigger'")) as Array<{ name: string }>).map(
        (row) => row.name,
      ),
    ),
  }),
  returningInsert: (_db, insert, columns) => insert.returning([...columns]),
  rawRows: (result) => result as Record<string, unknown>[],
  multiRowInsert: 500,
  exportChunkRows: 200,
  exportArrayChunkRows: 1000,
  insertKeyStep: null,
  // SQLite's default BINARY collation already orders text by code point.
  orderBy: ({ sql, bindings }, direction) => ({ sql: `${sql} ${direction}`, bindings }),
  sortValue: (expression) => expression,
  // SQLite keeps no row estimates unless ANALYZE ran, and a count on it is a fast scan of the smallest index.
  estimateRows: null,
  exactText: null,
  readAsText: new Set<FieldType>(['bigInteger']),
  textCast: 'CAST(?? AS TEXT)',
  // SQLITE_MAX_VARIABLE_NUMBER is 32766 since SQLite 3.32.
  maxParameters: 32_000,
  timestampToStorage: (iso) => iso,
  datePart: (part, _type, { sql, bindings }) => ({ sql: `CAST(strftime('${PARTS[part]}', ${sql}) AS INTEGER)`, bindings }),
  toDouble: (sql) => `CAST(${sql} AS REAL)`,
  overflowChecked: (sql) => sql,
  exactStringColumn: (table, name, length) => table.string(name, length),
  exactTextValue: (sql) => sql,
  exactSum: 'items_exact_sum',
  prepareConnection: prepareSqliteConnection,
  connectionDefaults: null,
  connectionUsable: null,
  checkSetup: checkSqliteFunctions,
  insertedKey: null,
  syncAutoIncrement: null,
  // In process, a second statement costs less than joining the page (see Dialect.joinsManyToOne).
  joinsManyToOne: false,
  keyPairs: 'json_group_array(json_array(??, ??))',
  // SQLite's LIKE folds ASCII case only and cannot be made case-sensitive per query, so the sensitive match
  // uses GLOB; the insensitive one folds both sides with items_fold() (see sqlite-functions.ts), or with the
  // built-in lower() when that provably gives the same answer (see asciiInsensitive).
  pattern: (column, term, spec) =>
    spec.insensitive
      ? isAscii(term)
        ? asciiInsensitive(column, likePattern(term, spec.anchor), spec.negate)
        : {
            sql: `items_fold(??) ${spec.negate ? 'NOT ' : ''}LIKE items_fold(?) ESCAPE '\\'`,
            bindings: [column, likePattern(term, spec.anchor)],
          }
      : { sql: `?? ${spec.negate ? 'NOT ' : ''}GLOB ?`, bindings: [column, globPattern(term, spec.anchor)] },
  storedTemporal: sqliteStoredTemporal,
  temporalToStorage: sqliteTemporalToStorage,
  arrays: null,
  sets: null,
  spatial: null,
  enumText: (column) => column,
  recogniseError,
  recogniseFault,
  lockedTransaction: (knex, _name, work) => knex.transaction(work),
  lockRows: async () => undefined,
  // Statements on the host's connection run to their end before anything else can run; only a reader's
  // (sqlite-reader.ts) can be stopped.
  cancelStatements: cancelReaderStatements,
  isCancelled: () => false,
  statementReuse: keptStatements,
  csvCopy: null,
  arrayRows: { [ARRAYS]: true },
  // better-sqlite3 builds no Dates: SQLite has no date type, and stores them as text.
  readValue: (raw, type) => numberText(bufferText(raw, type), type),
}
