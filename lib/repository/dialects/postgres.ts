// PostgreSQL through pg: RETURNING, ILIKE, EXTRACT, and a sequence to keep in step with explicit keys.
import type { DatePart } from '../../query/query'
import type { FieldType } from '../../types'
import type { Dialect } from './dialect'
import { likePattern } from './like-pattern'

const PARTS: Readonly<Record<DatePart, string>> = {
  year: 'YEAR',
  month: 'MONTH',
  week: 'WEEK',
  day: 'DAY',
  weekday: 'DOW',
  hour: 'HOUR',
  minute: 'MINUTE',
  second: 'SECOND',
}

export const postgres: Dialect = {
  name: 'postgres',
  insertReturnsKeyWithReturning: true,
  orderBy: ({ sql, bindings }, direction, text) => ({
    sql: `${sql}${text ? ' COLLATE "C"' : ''} ${direction} nulls ${direction === 'asc' ? 'first' : 'last'}`,
    bindings,
  }),
  exactText: null,
  readAsText: new Set<FieldType>(['date', 'dateTime', 'timestamp', 'json']),
  textCast: 'CAST(?? AS TEXT)',
  maxParameters: 65_000,
  timestampToStorage: (iso) => iso,
  toDouble: (sql) => `CAST(${sql} AS DOUBLE PRECISION)`,
  exactStringColumn: (table, name, length) => table.string(name, length),
  exactTextValue: (sql) => sql,
  exactSum: null,
  // FLOOR: seconds come with a fraction, and a cast alone would round 59.9 up to 60.
  datePart: (part, type, { sql, bindings }) => ({
    sql: `CAST(FLOOR(EXTRACT(${PARTS[part]} FROM ${sql}${type === 'timestamp' ? " AT TIME ZONE 'UTC'" : ''})) AS INTEGER)`,
    bindings,
  }),
  prepare: () => undefined,
  // Raises the key's sequence (serial or identity) to the largest key, never lowers it.
  syncAutoIncrement: (db, table, column) =>
    db.raw(
      `select setval(seq, top) from (select pg_get_serial_sequence(?, ?) as seq, (select max(??) from ??) as top) as s
       where seq is not null and top > coalesce(pg_sequence_last_value(seq::regclass), 0)`,
      [table, column, column, table],
    ),
  // PostgreSQL's LIKE escape character defaults to backslash; ILIKE folds case by the database's locale.
  pattern: (column, term, spec) => ({
    sql: `?? ${spec.negate ? 'NOT ' : ''}${spec.insensitive ? 'ILIKE' : 'LIKE'} ?`,
    bindings: [column, likePattern(term, spec.anchor)],
  }),
}
