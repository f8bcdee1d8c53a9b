// MySQL and MariaDB through mysql2: byte comparisons where the default collations would fold case and accents.
import type { DatePart } from '../../query/query'
import type { Collection } from '../../schema/collection'
import type { FieldType } from '../../types'
import type { Knex } from 'knex'
import type { Dialect, DriverError, Fault, RecognisedError, ServerTraits } from '../dialect'
import { changeCompiled, withConnection } from '../../knex-adapter'
import { isNetworkError } from '../network-faults'
import { lockName, lockRowsForUpdate } from '../row-locks'
import { bufferText, dateText, numberText } from '../driver-values'
import { mysqlSets } from './mysql-sets'
import { mysqlSpatial } from './mysql-spatial'
import { likePattern } from '../like-pattern'

const PARTS: Readonly<Record<DatePart, (value: string) => string>> = {
  year: (v) => `YEAR(${v})`,
  month: (v) => `MONTH(${v})`,
  week: (v) => `WEEK(${v}, 3)`,
  day: (v) => `DAYOFMONTH(${v})`,
  weekday: (v) => `(DAYOFWEEK(${v}) - 1)`,
  hour: (v) => `HOUR(${v})`,
  minute: (v) => `MINUTE(${v})`,
  second: (v) => `SECOND(${v})`,
}

/** MySQL names the index, not the column: PRIMARY, or knex's `<table>_<column>_unique`, or the column itself. */
function fieldOfIndex(index: string | undefined, collection: Collection): string | undefined {
  if (index === undefined) return undefined
  const name = index.includes('.') ? index.slice(index.lastIndexOf('.') + 1) : index
  if (name === 'PRIMARY') return collection.primaryKey.name
  return collection.fields.find((field) => name === field.column || name === `${collection.table}_${field.column}_unique`)?.name
}

/** The codes are mysql2's names for the server's error numbers; the names are in the message only. */
function recogniseError(error: DriverError, collection: Collection): RecognisedError | null {
  const message = typeof error.message === 'string' ? error.message : ''
  const quoted = (pattern: RegExp): string | undefined => pattern.exec(message)?.[1]
  switch (error.code) {
    case 'ER_DUP_ENTRY':
      return {
        code: 'RECORD_NOT_UNIQUE',
        field: fieldOfIndex(quoted(/for key '([^']+)'/), collection),
        value: quoted(/Duplicate entry '(.*)' for key/),
      }
    case 'ER_NO_REFERENCED_ROW':
    case 'ER_NO_REFERENCED_ROW_2':
      return { code: 'INVALID_FOREIGN_KEY', field: quoted(/FOREIGN KEY \(`([^`]+)`\)/) }
    case 'ER_ROW_IS_REFERENCED':
    case 'ER_ROW_IS_REFERENCED_2':
      return { code: 'INVALID_FOREIGN_KEY', referenced: true }
    case 'ER_BAD_NULL_ERROR':
      return { code: 'NOT_NULL_VIOLATION', field: quoted(/Column '([^']+)'/) }
    case 'ER_NO_DEFAULT_FOR_FIELD':
      return { code: 'NOT_NULL_VIOLATION', field: quoted(/Field '([^']+)'/) }
    case 'ER_DATA_TOO_LONG':
      return { code: 'VALUE_TOO_LONG', field: quoted(/column '([^']+)'/) }
    // ER_DATA_OUT_OF_RANGE is arithmetic past a type's range, "DOUBLE value is out of range in ..." (an overflowing
    // sum, see overflowChecked).
    case 'ER_WARN_DATA_OUT_OF_RANGE':
    case 'ER_DATA_OUT_OF_RANGE':
      return { code: 'VALUE_OUT_OF_RANGE', field: quoted(/column '([^']+)'/) }
    case 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD':
      // MariaDB reports a multibyte text longer than its column (40,000 × "é" in a TEXT) as an "Incorrect string
      // value" rather than ER_DATA_TOO_LONG. The router only writes well-formed text (no NUL, no lone surrogate),
      // which a utf8mb4 column always holds, so there that message means the value is too long.
      if (message.includes('Incorrect string value')) return { code: 'VALUE_TOO_LONG', field: quoted(/column `[^`]*`\.`[^`]*`\.`([^`]+)`/) }
      return { code: 'INVALID_PAYLOAD', field: quoted(/column '([^']+)'/) }
    // WARN_DATA_TRUNCATED in strict mode: a value outside an enum(...) column, "Data truncated for column 'mood' at row 1".
    case 'ER_TRUNCATED_WRONG_VALUE':
    case 'WARN_DATA_TRUNCATED':
      // MySQL quotes the column ('ref'), MariaDB names it in full (`db`.`table`.`ref`).
      return { code: 'INVALID_PAYLOAD', field: quoted(/column '([^']+)'/) ?? quoted(/column `[^`]*`\.`[^`]*`\.`([^`]+)`/) }
    // Another kind of geometry than a `point`, `polygon`, ... column holds; the message names no column.
    case 'ER_CANT_CREATE_GEOMETRY_OBJECT':
      return { code: 'INVALID_PAYLOAD' }
    default:
      return recogniseByNumber(error, message)
  }
}

/**
 * Errors whose numbers MySQL and MariaDB share no name for: mysql2 names codes after MySQL's list, so MariaDB's
 * own numbers reach us under another server's name (4025 arrives as an InnoDB one), or none.
 */
function recogniseByNumber(error: DriverError, message: string): RecognisedError | null {
  switch (error.errno) {
    // MySQL 8: "Check constraint 'price_positive' is violated."; MariaDB: "CONSTRAINT `price_positive` failed for ...".
    case 3819:
    case 4025:
      return {
        code: 'CONSTRAINT_VIOLATION',
        constraint: /onstraint '([^']+)'/.exec(message)?.[1] ?? /CONSTRAINT `([^`]+)`/.exec(message)?.[1],
      }
    // A value for a generated column: MySQL's "The value specified for generated column 'x' in table 't' is not
    // allowed" (3105); MariaDB's strict-mode "... has been ignored" (1906).
    case 3105:
    case 1906:
      return { code: 'INVALID_PAYLOAD', field: /generated column '([^']+)'/.exec(message)?.[1] }
    default:
      return null
  }
}

/** Codes mysql2 and the server use for a connection that is gone or cannot be made. */
const UNAVAILABLE: ReadonlySet<string> = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_CONNECTION_KILLED',
])

/** mysql2 marks errors after which the connection is unusable as `fatal`; lock waits and deadlocks are not. */
function recogniseFault(error: DriverError): Fault | null {
  const code = typeof error.code === 'string' ? error.code : ''
  // A Galera certification failure (a concurrent commit on another node wrote the same rows) is reported as
  // ER_LOCK_DEADLOCK too, so it is retried like one.
  if (code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT') return 'conflict'
  if (UNAVAILABLE.has(code) || isNetworkError(code) || error.fatal === true) return 'unavailable'
  const message = typeof error.message === 'string' ? error.message : ''
  // A Galera node that lost its cluster's quorum, or is still joining, refuses statements with ER_UNKNOWN_COM_ERROR
  // "WSREP has not yet prepared node for application use": another node (or a retry) can serve them.
  return /connection is in closed state|WSREP has not yet prepared node/.test(message) ? 'unavailable' : null
}

/** Seconds GET_LOCK waits before giving up; a lock held that long means the database is stuck. */
const LOCK_WAIT_SECONDS = 10

/**
 * GET_LOCK is held by the session until RELEASE_LOCK, so the transaction runs on a connection taken here and
 * the lock is released after COMMIT or ROLLBACK, before the connection goes back to the pool. A lock left
 * behind by a lost connection dies with its session.
 */
async function lockedTransaction<T>(knex: Knex, name: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return withConnection(knex, async (connection) => {
    const lock = lockName(name)
    const [rows] = (await knex.raw('select get_lock(?, ?) as locked', [lock, LOCK_WAIT_SECONDS]).connection(connection)) as [
      { locked: unknown }[],
    ]
    if (Number(rows[0]?.locked) !== 1) throw Object.assign(new Error(`GET_LOCK timed out`), { code: 'ER_LOCK_WAIT_TIMEOUT' })
    try {
      return await knex.transaction(work, { connection })
    } finally {
      await knex
        .raw('select release_lock(?)', [lock])
        .connection(connection)
        .catch(() => undefined)
    }
  })
}

/** What a MySQL-protocol server says of how it hands out auto-increment keys. */
export interface AutoIncrementSettings {
  readonly mode: unknown
  readonly step: unknown
  readonly version: unknown
}

/**
 * The step between the keys of one multi-row INSERT's rows, or null where they may not be consecutive. InnoDB
 * (MySQL, MariaDB) gives them consecutively in lock modes 0 and 1 only. TiDB and Vitess speak the protocol and
 * answer the variable, but draw keys from per-server caches or sequences a statement may straddle: never counted.
 */
export function consecutiveKeyStep({ mode, step, version }: AutoIncrementSettings): number | null {
  if (/tidb|vitess/i.test(String(version))) return null
  const consecutive = String(mode) === '0' || String(mode) === '1'
  return consecutive && Number.isInteger(Number(step)) ? Number(step) : null
}

/** MariaDB's release in a server's `SELECT VERSION()`, or null for another server. */
function mariadbRelease(version: string): [number, number] | null {
  // Unanchored: a proxy may report MariaDB's replication prefix (`5.5.5-10.11.6-MariaDB`).
  const release = /(\d+)\.(\d+)\.\d+-MariaDB/i.exec(version)
  return release === null ? null : [Number(release[1]), Number(release[2])]
}

/** Whether a release (major, minor, ...) is `least` or later. */
function atLeast(release: readonly number[], least: readonly number[]): boolean {
  for (const [index, part] of least.entries()) if ((release[index] ?? 0) !== part) return (release[index] ?? 0) > part
  return true
}

/** Whether a server reporting `version` (`SELECT VERSION()`) answers `INSERT ... RETURNING`: MariaDB 10.5 and later. */
export function insertReturnsRows(version: string): boolean {
  const release = mariadbRelease(version)
  return release !== null && atLeast(release, [10, 5])
}

/** Whether a server reporting `version` has `JSON_ARRAYAGG`: MariaDB 10.5 and later, MySQL 5.7.22 and later. */
export function aggregatesJsonArrays(version: string): boolean {
  const mariadb = mariadbRelease(version)
  if (mariadb !== null) return atLeast(mariadb, [10, 5])
  const release = /^(\d+)\.(\d+)\.(\d+)/.exec(version)
  return release !== null && atLeast(release.slice(1).map(Number), [5, 7, 22])
}

/** The longest text of one `[rank, key]` pair in JSON_ARRAYAGG's answer, a 32-bit key's, with its separator and room to spare. */
const PAIR_TEXT = 32

/** Most keys a folded list may hold on a server reporting `version`, whose `group_concat_max_len` is `concatLength`. */
export function foldedKeys(version: string, concatLength: number): number {
  if (!aggregatesJsonArrays(version)) return 0
  // MariaDB builds JSON_ARRAYAGG on GROUP_CONCAT, and cuts it at group_concat_max_len with only a warning.
  return mariadbRelease(version) === null ? Number.POSITIVE_INFINITY : Math.floor(concatLength / PAIR_TEXT) - 1
}

async function serverTraits(knex: Knex): Promise<ServerTraits> {
  const [[server]] = (await knex.raw(
    'select version() as version, @@group_concat_max_len as concat_length, @@autocommit as autocommit',
  )) as [{ version: unknown; concat_length: unknown; autocommit: unknown }[]]
  const version = String(server?.version)
  return {
    insertReturnsRows: insertReturnsRows(version),
    foldedKeys: foldedKeys(version, Number(server?.concat_length)),
    autocommits: Number(server?.autocommit) === 1,
    readsBack: new Set(),
  }
}

export const mysql: Dialect = {
  name: 'mysql',
  insertReturnsKeyWithReturning: false,
  returnsRows: false,
  serverTraits,
  returningInsert: (db, insert, columns) => {
    const clause = db
      .raw(
        columns.map(() => '?').join(', '),
        columns.map((column) => (typeof column === 'string' ? db.raw('??', [column]) : column)),
      )
      .toSQL()
    return changeCompiled(insert, (compiled) => {
      // The driver answers the rows themselves, where knex would take an INSERT's result for its insertId.
      Object.assign(compiled, {
        sql: `${compiled.sql} returning ${clause.sql}`,
        bindings: [...compiled.bindings, ...clause.bindings],
        output: (rows: unknown) => rows,
      })
    })
  },
  rawRows: (result) => (result as [Record<string, unknown>[]])[0],
  // Keys counted from the first (insertKeyStep); fewer where the bind variables run out first (insertRuns).
  multiRowInsert: 1000,
  exportChunkRows: 1000,
  exportArrayChunkRows: 1000,
  insertKeyStep: async (db) => {
    const [[settings]] = (await db.raw(
      'select @@innodb_autoinc_lock_mode as mode, @@auto_increment_increment as step, @@version as version',
    )) as [AutoIncrementSettings[]]
    return settings ? consecutiveKeyStep(settings) : null
  },
  orderBy: ({ sql, bindings }, direction, text) => ({ sql: `${text ? `CAST(${sql} AS BINARY)` : sql} ${direction}`, bindings }),
  sortValue: ({ sql, bindings }, text) => ({ sql: text ? `CAST(${sql} AS BINARY)` : sql, bindings }),
  // InnoDB's row estimates (EXPLAIN `rows`, TABLE_ROWS) are off by up to half on a plain table: not worth a field.
  estimateRows: null,
  exactText: 'CAST(? AS BINARY)',
  readAsText: new Set<FieldType>(['bigInteger', 'date', 'dateTime', 'timestamp', 'json']),
  textCast: 'CAST(?? AS CHAR)',
  maxParameters: 65_000,
  // DATETIME holds no zone, and MariaDB refuses a trailing `Z`: store the UTC wall clock.
  timestampToStorage: (iso) => iso.slice(0, 23).replace('T', ' '),
  datePart: (part, _type, { sql, bindings }) => ({ sql: PARTS[part](sql), bindings }),
  // A float literal makes the whole expression a DOUBLE (CAST AS DOUBLE needs MySQL 8.0.17 / MariaDB 10.4.5).
  toDouble: (sql) => `(${sql} + 0e0)`,
  overflowChecked: (sql) => `(${sql} + 0e0)`,
  // Up to four bytes per character in UTF-8.
  exactStringColumn: (table, name, length) => table.specificType(name, `varbinary(${length * 4})`),
  // Bytes, not a _bin collation: those pad with spaces ("abc" = "abc "). Converting first makes the bytes
  // UTF-8 whatever the column's character set; the driver hands them back as a Buffer, read as UTF-8.
  exactTextValue: (sql) => `CAST(CONVERT(${sql} USING utf8mb4) AS BINARY)`,
  exactSum: null,
  prepareConnection: null,
  connectionDefaults: { enableKeepAlive: true, connectTimeout: 10_000 },
  // mysql2 keeps the command awaiting an answer in `_command`: an idle connection has none. One whose statement
  // outlived its time limit in a partition still waits for the lost answer, and would hang the next request.
  connectionUsable: (connection) => (connection as { _command?: unknown })._command == null,
  checkSetup: null,
  insertedKey: null,
  syncAutoIncrement: null,
  joinsManyToOne: true,
  // As text: mysql2 parses a JSON column itself, and would fail the whole statement on a list MariaDB cut short.
  keyPairs: 'cast(json_arrayagg(json_array(??, ??)) as char)',
  // The usual collations ignore case and accents ("über" LIKE "UBER"), so matches compare bytes: a binary
  // operand makes the whole comparison binary, and LOWER() on both sides makes the insensitive one.
  pattern: (column, term, spec) => ({
    sql: spec.insensitive
      ? `LOWER(??) ${spec.negate ? 'NOT ' : ''}LIKE CAST(LOWER(?) AS BINARY)`
      : `?? ${spec.negate ? 'NOT ' : ''}LIKE CAST(? AS BINARY)`,
    bindings: [column, likePattern(term, spec.anchor)],
  }),
  storedTemporal: (_type, column) => column,
  temporalToStorage: (_type, _storage, text) => text,
  arrays: null,
  sets: mysqlSets,
  spatial: mysqlSpatial,
  enumText: ({ sql, bindings }) => ({ sql: `CAST(${sql} AS CHAR)`, bindings }),
  recogniseError,
  recogniseFault,
  lockedTransaction,
  lockRows: lockRowsForUpdate,
  // The processlist shows each statement's text, comment first; KILL QUERY stops the statement, not the connection.
  cancelStatements: async (knex, marker) => {
    const [threads] = (await knex.raw('select id from information_schema.processlist where id <> connection_id() and info like ?', [
      likePattern(marker, 'starts'),
    ])) as [{ id: number }[]]
    for (const { id } of threads) await knex.raw('kill query ?', [id])
  },
  // 1317 ER_QUERY_INTERRUPTED (KILL QUERY), 1969 ER_STATEMENT_TIMEOUT (MariaDB), 3024 ER_QUERY_TIMEOUT (MySQL 8).
  statementReuse: null,
  csvCopy: null,
  arrayRows: { rowsAsArray: true },
  isCancelled: (error) => ['ER_QUERY_INTERRUPTED', 'ER_STATEMENT_TIMEOUT', 'ER_QUERY_TIMEOUT'].includes(String(error.code)),
  readValue: (raw, type) => numberText(dateText(bufferText(raw, type), type), type),
}
