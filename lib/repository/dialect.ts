// The few real differences between SQLite, PostgreSQL and MySQL/MariaDB, as data: the only place that knows
// which database it is talking to.
import type { Knex } from 'knex'
import { ConfigError } from '../errors'
import type { PatternSpec } from '../query/operators'
import type { DatePart } from '../query/query'
import type { FieldType } from '../types'
import { registerSqliteFunctions } from './sqlite-functions'

export type DialectName = 'sqlite' | 'postgres' | 'mysql'

/** A piece of SQL with `?` / `??` placeholders and what fills them. */
/** SQL with `?` / `??` placeholders; a binding may be a subquery builder, which knex inlines in parentheses. */
export interface SqlFragment {
  readonly sql: string
  readonly bindings: readonly Knex.RawBinding[]
}

export interface Dialect {
  readonly name: DialectName
  /**
   * An insert answers the new primary key only through `RETURNING` (PostgreSQL). SQLite and MySQL report the
   * last inserted id instead, which knex hands back as the insert's result.
   */
  readonly insertReturnsKeyWithReturning: boolean
  /**
   * An ORDER BY term for `column`. Every database sorts NULL first ascending and last descending, and text by
   * code point, so a page is the same everywhere (PostgreSQL's default NULL order is the reverse, and its
   * locale collations, like MySQL's `_ci` ones, order text by language rules).
   */
  orderBy(expression: SqlFragment, direction: 'asc' | 'desc', text: boolean): SqlFragment
  /**
   * How a bound text value is wrapped so that `=`, `<>` and `IN` compare exactly (case, accents and trailing
   * spaces count), or null where the plain comparison already does (PostgreSQL, SQLite).
   */
  readonly exactText: string | null
  /**
   * Types read through a cast to text, so the value does not depend on the driver's type parsers or the
   * connection's time zone: MySQL's DATETIME parsing follows mysql2's `timezone` option and its BIGINT parsing
   * `supportBigNumbers`; PostgreSQL's Date objects follow the process zone; SQLite rounds big integers to doubles.
   * JSON columns arrive parsed from pg and MySQL but as text from MariaDB and SQLite; as text, a stored JSON
   * string such as "42" is parsed exactly once.
   */
  readonly readAsText: ReadonlySet<FieldType>
  /** The cast applied to those columns; `??` is the column. */
  readonly textCast: string
  /** Most bound parameters in one statement; `IN` lists are chunked below it. */
  readonly maxParameters: number
  /** The stored form of a timestamp (an ISO-8601 UTC string in). */
  timestampToStorage(iso: string): string
  /** A WHERE fragment matching `column` against `term` literally (no wildcards), per `spec`. */
  pattern(column: string, term: string, spec: PatternSpec): { sql: string; bindings: string[] }
  /**
   * An integer part of a date or time value: ISO week, weekday 0 = Sunday. Timestamps are read in UTC
   * (PostgreSQL's EXTRACT would use the session's time zone); the others are wall-clock values already.
   */
  datePart(part: DatePart, type: FieldType, value: SqlFragment): SqlFragment
  /** A numeric expression as a double (averages must not depend on each database's decimal arithmetic). */
  toDouble(sql: string): string
  /**
   * A text expression that groups and counts distinct values exactly (case, accents and trailing spaces
   * count), as filters and sort already do; the identity where the default collation is already exact.
   */
  exactTextValue(sql: string): string
  /**
   * An aggregate summing decimals and big integers exactly, for databases whose own sum rounds them (SQLite
   * adds doubles and overflows past 64 bits); null where `sum` is exact.
   */
  readonly exactSum: string | null
  /**
   * Adds a text column whose equality and unique indexes compare exactly; MySQL's default collations would
   * make "Draft", "draft" and "draft " one value, so it stores bytes there.
   */
  exactStringColumn(table: Knex.CreateTableBuilder, name: string, length: number): Knex.ColumnBuilder
  /** Readies the host's connections once, at router creation (SQLite: registers SQL functions). */
  prepare(knex: Knex): void
  /**
   * Run after inserting explicit values into an auto-increment key, or null where the database moves its
   * counter by itself (SQLite, MySQL). PostgreSQL's sequence does not, and would hand out a taken key next.
   */
  readonly syncAutoIncrement: ((db: Knex | Knex.Transaction, table: string, column: string) => Promise<unknown>) | null
}

const escapeLike = (term: string): string => term.replace(/[\\%_]/g, (char) => `\\${char}`)

function likePattern(term: string, anchor: PatternSpec['anchor']): string {
  const escaped = escapeLike(term)
  return anchor === 'starts' ? `${escaped}%` : anchor === 'ends' ? `%${escaped}` : `%${escaped}%`
}

const POSTGRES_PARTS: Readonly<Record<DatePart, string>> = {
  year: 'YEAR',
  month: 'MONTH',
  week: 'WEEK',
  day: 'DAY',
  weekday: 'DOW',
  hour: 'HOUR',
  minute: 'MINUTE',
  second: 'SECOND',
}
const MYSQL_PARTS: Readonly<Record<DatePart, (value: string) => string>> = {
  year: (v) => `YEAR(${v})`,
  month: (v) => `MONTH(${v})`,
  week: (v) => `WEEK(${v}, 3)`,
  day: (v) => `DAYOFMONTH(${v})`,
  weekday: (v) => `(DAYOFWEEK(${v}) - 1)`,
  hour: (v) => `HOUR(${v})`,
  minute: (v) => `MINUTE(${v})`,
  second: (v) => `SECOND(${v})`,
}
/** strftime formats; %V (ISO week) needs SQLite 3.46, which better-sqlite3 12 bundles. */
const SQLITE_PARTS: Readonly<Record<DatePart, string>> = {
  year: '%Y',
  month: '%m',
  week: '%V',
  day: '%d',
  weekday: '%w',
  hour: '%H',
  minute: '%M',
  second: '%S',
}

const postgres: Dialect = {
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
    sql: `CAST(FLOOR(EXTRACT(${POSTGRES_PARTS[part]} FROM ${sql}${type === 'timestamp' ? " AT TIME ZONE 'UTC'" : ''})) AS INTEGER)`,
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

const mysql: Dialect = {
  name: 'mysql',
  insertReturnsKeyWithReturning: false,
  orderBy: ({ sql, bindings }, direction, text) => ({ sql: `${text ? `CAST(${sql} AS BINARY)` : sql} ${direction}`, bindings }),
  exactText: 'CAST(? AS BINARY)',
  readAsText: new Set<FieldType>(['bigInteger', 'date', 'dateTime', 'timestamp', 'json']),
  textCast: 'CAST(?? AS CHAR)',
  maxParameters: 65_000,
  // DATETIME holds no zone, and MariaDB refuses a trailing `Z`: store the UTC wall clock.
  timestampToStorage: (iso) => iso.slice(0, 23).replace('T', ' '),
  datePart: (part, _type, { sql, bindings }) => ({ sql: MYSQL_PARTS[part](sql), bindings }),
  // A float literal makes the whole expression a DOUBLE (CAST AS DOUBLE needs MySQL 8.0.17 / MariaDB 10.4.5).
  toDouble: (sql) => `(${sql} + 0e0)`,
  // Up to four bytes per character in UTF-8.
  exactStringColumn: (table, name, length) => table.specificType(name, `varbinary(${length * 4})`),
  // Bytes, not a _bin collation: those pad with spaces ("abc" = "abc "). Converting first makes the bytes
  // UTF-8 whatever the column's character set; the driver hands them back as a Buffer, read as UTF-8.
  exactTextValue: (sql) => `CAST(CONVERT(${sql} USING utf8mb4) AS BINARY)`,
  exactSum: null,
  prepare: () => undefined,
  syncAutoIncrement: null,
  // The usual collations ignore case and accents ("über" LIKE "UBER"), so matches compare bytes: a binary
  // operand makes the whole comparison binary, and LOWER() on both sides makes the insensitive one.
  pattern: (column, term, spec) => ({
    sql: spec.insensitive
      ? `LOWER(??) ${spec.negate ? 'NOT ' : ''}LIKE CAST(LOWER(?) AS BINARY)`
      : `?? ${spec.negate ? 'NOT ' : ''}LIKE CAST(? AS BINARY)`,
    bindings: [column, likePattern(term, spec.anchor)],
  }),
}

/** GLOB is SQLite's case-sensitive matcher; its wildcards are escaped by wrapping them in brackets. */
function globPattern(term: string, anchor: PatternSpec['anchor']): string {
  const escaped = term.replace(/[*?[]/g, (char) => `[${char}]`)
  return anchor === 'starts' ? `${escaped}*` : anchor === 'ends' ? `*${escaped}` : `*${escaped}*`
}

const sqlite: Dialect = {
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
  datePart: (part, _type, { sql, bindings }) => ({ sql: `CAST(strftime('${SQLITE_PARTS[part]}', ${sql}) AS INTEGER)`, bindings }),
  toDouble: (sql) => `CAST(${sql} AS REAL)`,
  exactStringColumn: (table, name, length) => table.string(name, length),
  exactTextValue: (sql) => sql,
  exactSum: 'items_exact_sum',
  prepare: registerSqliteFunctions,
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
}

const BY_CLIENT: Readonly<Record<string, Dialect>> = {
  'better-sqlite3': sqlite,
  pg: postgres,
  postgres,
  postgresql: postgres,
  mysql2: mysql,
  mysql,
}

/** Picks the dialect from the knex instance's client; an unsupported client is a configuration error. */
export function dialectOf(knex: Knex): Dialect {
  const config = knex.client.config as { client?: unknown }
  const client = typeof config.client === 'string' ? config.client : (knex.client as { dialect?: string }).dialect
  const dialect = client === undefined ? undefined : BY_CLIENT[client]
  if (!dialect) {
    throw new ConfigError('CONFIG_UNSUPPORTED_CLIENT', `knex client "${String(client)}" is not supported; use better-sqlite3, pg or mysql2`)
  }
  return dialect
}
