// SQLite has no date type: a date, dateTime or timestamp column holds whatever its writers chose. These read
// every common form (ISO-8601 text, `YYYY-MM-DD HH:MM:SS` text, epoch milliseconds) as the canonical text the
// router compares and answers with, and write a field's values in its own form (`storage`).
import type { Knex } from 'knex'
import type { FieldType, TemporalStorage } from '../../types'
import type { SqlFragment } from '../dialect'

/** The strftime() format of each stored type's canonical text (see storage.ts's toStorage). */
const CANONICAL: Readonly<Partial<Record<FieldType, string>>> = {
  date: '%Y-%m-%d',
  // dateTime is compared and stored with a space, as toStorage binds it.
  dateTime: '%Y-%m-%d %H:%M:%S',
  timestamp: '%Y-%m-%dT%H:%M:%fZ',
}

/**
 * The column's value as canonical text, whichever form each row holds: a number (or text of digits and a point only,
 * which a number becomes in a TEXT column: knex binds a Date as `1709251199250.0`) is epoch milliseconds, any other text goes to strftime(), which reads
 * ISO-8601 with or without `T`, fraction and zone. Text strftime() cannot read is NULL. Epoch values are UTC, so
 * a dateTime or date read from one is the UTC wall clock or day.
 */
export function sqliteStoredTemporal(type: FieldType, column: SqlFragment): SqlFragment {
  const format = CANONICAL[type]
  if (format === undefined) return column
  const { sql, bindings } = column
  const numeric = `typeof(${sql}) IN ('integer', 'real') OR (${sql} GLOB '[0-9]*' AND ${sql} NOT GLOB '*[^0-9.]*')`
  return {
    sql: `(CASE WHEN ${numeric} THEN strftime('${format}', ${sql} / 1000.0, 'unixepoch') ELSE strftime('${format}', ${sql}) END)`,
    bindings: [...bindings, ...bindings, ...bindings, ...bindings, ...bindings],
  }
}

/** Epoch milliseconds of canonical text (a date is its UTC midnight, a dateTime its UTC wall clock). */
function epochMs(type: FieldType, text: string): number {
  if (type === 'timestamp') return Date.parse(text)
  return Date.parse(type === 'date' ? `${text}T00:00:00Z` : `${text.replace(' ', 'T')}Z`)
}

/**
 * A canonical value (as toStorage binds it under `isoText`) in the column's form. `sqlText` timestamps keep
 * their milliseconds when they have any (`2025-06-01 10:00:00.250`), which strftime() reads back.
 */
export function sqliteTemporalToStorage(type: FieldType, storage: TemporalStorage, text: string): Knex.Value {
  switch (storage) {
    case 'epochMs':
      return epochMs(type, text)
    case 'sqlText':
      return type === 'timestamp' ? text.replace('T', ' ').replace(/(\.000)?Z$/, '') : text
    case 'isoText':
      return text
  }
}
