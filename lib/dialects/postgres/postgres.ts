// PostgreSQL through pg: RETURNING, ILIKE, EXTRACT, and a sequence to keep in step with explicit keys.
import type { DatePart } from '../../query/query'
import type { FieldType } from '../../types'
import { createHash } from 'node:crypto'
import { postgresArrays } from './postgres-arrays'
import { postgresCsvCopy } from './postgres-copy'
import type { Dialect, DriverError, Fault, RecognisedError, StatementReuse } from '../dialect'
import { isNetworkError } from '../network-faults'
import { lockNumber, lockRowsForUpdate } from '../row-locks'
import { dateText, numberText } from '../driver-values'
import { likePattern } from '../like-pattern'

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

/** SQLSTATE classes 23 (integrity) and 22 (data), as https://www.postgresql.org/docs/current/errcodes-appendix.html lists them. */
function recogniseError(error: DriverError): RecognisedError | null {
  const detail = typeof error.detail === 'string' ? error.detail : ''
  // "Key (email)=(ada@example.com) already exists." / "Key (author)=(99) is not present in table ..."
  const key = /Key \(([^)]+)\)=\((.*)\)/.exec(detail)
  const keyed = key ? { field: key[1], value: key[2] } : {}
  switch (error.code) {
    case '23505':
      return { code: 'RECORD_NOT_UNIQUE', ...keyed }
    // On a delete, the key in the detail is the deleted item's own, not a foreign key.
    case '23503':
      return detail.includes('still referenced')
        ? { code: 'INVALID_FOREIGN_KEY', referenced: true }
        : { code: 'INVALID_FOREIGN_KEY', ...keyed }
    case '23502':
      return { code: 'NOT_NULL_VIOLATION', field: typeof error.column === 'string' ? error.column : undefined }
    case '22001':
      return { code: 'VALUE_TOO_LONG' }
    case '22003':
      return { code: 'VALUE_OUT_OF_RANGE' }
    case '23514':
    case '23P01':
      return { code: 'CONSTRAINT_VIOLATION', constraint: typeof error.constraint === 'string' ? error.constraint : undefined }
    // 22P02 also covers a value outside an enum type: 'invalid input value for enum mood: "x"'.
    case '22P02':
    case '22007':
    case '22008':
      return { code: 'INVALID_PAYLOAD' }
    // A value for an identity GENERATED ALWAYS or a generated column: 'cannot insert a non-DEFAULT value into
    // column "id"', 'column "total" can only be updated to DEFAULT'.
    case '428C9':
      return { code: 'INVALID_PAYLOAD', field: /column "([^"]+)"/.exec(typeof error.message === 'string' ? error.message : '')?.[1] }
    default:
      return null
  }
}

/**
 * SQLSTATE class 08 is a connection exception and 57P01-57P03 a shutting-down or starting server
 * (https://www.postgresql.org/docs/current/errcodes-appendix.html). pg's own errors have no code and say
 * "Connection terminated …" (lost connection, `connectionTimeoutMillis`) or "Query read timeout" (`query_timeout`).
 */
function recogniseFault(error: DriverError): Fault | null {
  const code = typeof error.code === 'string' ? error.code : ''
  const message = typeof error.message === 'string' ? error.message : ''
  if (code === '40P01' || code === '40001' || code === '55P03' || isStalePlan(error)) return 'conflict'
  if (code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300' || isNetworkError(code)) return 'unavailable'
  // knex puts the statement in front of the driver's message ("BEGIN; - Connection terminated unexpectedly").
  if (/Connection terminated|Query read timeout|timeout expired|not queryable/.test(message)) return 'unavailable'
  return null
}

/**
 * A named statement whose result type changed since it was prepared: the host altered a table it reads (a
 * column's type, or a column added under `select *`). PostgreSQL refuses the statement before running it
 * (SQLSTATE 0A000, "cached plan must not change result type") until it is prepared again. That code covers
 * other unsupported features too; `routine`, the server function that raised it, names this one in any language.
 */
const isStalePlan = (error: DriverError): boolean => error.code === '0A000' && error.routine === 'RevalidateCachedQuery'

/** A statement's name from its text alone, so that a name prepared again takes one suffix, never one per change. */
const statementName = (sql: string): string => `items_${createHash('sha1').update(sql).digest('base64url')}`

/** Tells apart the names of statements prepared again after a change of their result type (see below). */
let preparedAgain = 0

/**
 * Names each statement after a digest of its text; pg prepares a named statement once per connection and from
 * then on sends only its name and values. pg keeps every name it prepared for the connection's life, so a
 * connection names at most as many statements as it may keep, and runs any further ones unnamed.
 *
 * A statement whose result type changed is prepared again under a new name, since pg offers no way to forget
 * the old one; the server keeps the old one until the connection closes, so each such change of the host's
 * schema costs a connection one idle prepared statement per statement it affects.
 */
const namedStatements: StatementReuse = {
  byDefault: false,
  unmarked: true,
  evicts: false,
  run: (query, _connection, kept, knexRun) => {
    let name = kept.get(query.sql) as string | undefined
    if (name === undefined) {
      const candidate = statementName(query.sql)
      if (kept.keep(query.sql, candidate)) name = candidate
    }
    if (name === undefined || query.options?.name !== undefined) return knexRun(query)
    const options = query.options ?? {}
    query.options = { ...options, name }
    return knexRun(query).catch((error: DriverError) => {
      if (!isStalePlan(error)) throw error
      const renamed = `${statementName(query.sql)}_${++preparedAgain}`
      kept.keep(query.sql, renamed)
      query.options = { ...options, name: renamed }
      // The server refused the statement before running it, so running it again writes nothing twice. In a
      // transaction the refusal has aborted it, so this attempt fails as well and the refusal goes up: a
      // conflict, on which the router runs the whole transaction again (retry-transaction.ts), now renamed.
      return knexRun(query).catch(() => {
        throw error
      })
    })
  },
}

// Tables of the search path with an INSTEAD rule on INSERT or UPDATE (pg_rewrite.ev_type '3', '2'): PostgreSQL
// refuses RETURNING on them unless the rule itself returns, which the old partitioning rules do not.
const RULE_TABLES_SQL = `
select distinct c.relname as "table" from pg_rewrite r
join pg_class c on c.oid = r.ev_class
join pg_namespace n on n.oid = c.relnamespace
where r.is_instead and r.ev_type in ('2', '3') and n.nspname = any (current_schemas(false))`

export const postgres: Dialect = {
  name: 'postgres',
  insertReturnsKeyWithReturning: true,
  returnsRows: true,
  serverTraits: async (knex) => {
    const { rows } = await knex.raw<{ rows: Array<{ table: string }> }>(RULE_TABLES_SQL)
    return {
      insertReturnsRows: true,
      foldedKeys: Number.POSITIVE_INFINITY,
      autocommits: true,
      readsBack: new Set(rows.map((row) => row.table)),
    }
  },
  returningInsert: (_db, insert, columns) => insert.returning([...columns]),
  rawRows: (result) => (result as { rows: Record<string, unknown>[] }).rows,
  multiRowInsert: 10_000,
  exportChunkRows: 1000,
  exportArrayChunkRows: 1000,
  insertKeyStep: null,
  orderBy: ({ sql, bindings }, direction, text, nullable = true) => ({
    sql: `${sql}${text ? ' COLLATE "C"' : ''} ${direction}${nullable ? ` nulls ${direction === 'asc' ? 'first' : 'last'}` : ''}`,
    bindings,
  }),
  sortValue: ({ sql, bindings }, text) => ({ sql: text ? `${sql} COLLATE "C"` : sql, bindings }),
  estimateRows: async (db, select) => {
    const { sql, bindings } = select.toSQL()
    // EXPLAIN takes no parameters of its own: the statement is explained as written, its values bound.
    const result = (await db.raw(`explain (format json) ${sql}`, bindings)) as {
      rows: { 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }[]
    }
    const plan = result.rows[0]?.['QUERY PLAN'][0]?.Plan
    return plan === undefined ? null : Math.round(plan['Plan Rows'])
  },
  exactText: null,
  readAsText: new Set<FieldType>(['date', 'dateTime', 'timestamp', 'json']),
  textCast: 'CAST(?? AS TEXT)',
  maxParameters: 65_000,
  timestampToStorage: (iso) => iso,
  toDouble: (sql) => `CAST(${sql} AS DOUBLE PRECISION)`,
  overflowChecked: (sql) => sql,
  exactStringColumn: (table, name, length) => table.string(name, length),
  exactTextValue: (sql) => sql,
  exactSum: null,
  // FLOOR: seconds come with a fraction, and a cast alone would round 59.9 up to 60.
  datePart: (part, type, { sql, bindings }) => ({
    sql: `CAST(FLOOR(EXTRACT(${PARTS[part]} FROM ${sql}${type === 'timestamp' ? " AT TIME ZONE 'UTC'" : ''})) AS INTEGER)`,
    bindings,
  }),
  prepareConnection: null,
  connectionDefaults: { keepAlive: true, connectionTimeoutMillis: 10_000 },
  connectionUsable: (connection) => (connection as { readyForQuery?: unknown }).readyForQuery === true,
  checkSetup: null,
  // Raises the key's sequence (serial or identity) to the largest key, never lowers it.
  // quote_ident: pg_get_serial_sequence parses its first argument as SQL, folding an unquoted name to lower case.
  insertedKey: async (db, table, column) => {
    const { rows } = await db.raw<{ rows: Array<{ key: unknown }> }>('select currval(pg_get_serial_sequence(quote_ident(?), ?)) as key', [
      table,
      column,
    ])
    return rows[0]?.key
  },
  // Before the insert, not after it: a create without a key that runs meanwhile must already draw past `key`.
  // Reading last_value and setval are two steps, so creates with explicit keys in one table take turns (a lock
  // held to the end of the transaction): two at once could otherwise lower the sequence.
  syncAutoIncrement: async (db, table, column, key) => {
    await db.raw('select pg_advisory_xact_lock(?::bigint)', [lockNumber(`sequence of ${table}.${column}`)])
    // A sequence set but not yet drawn from (`setval(…, false)`) has no last value: the largest stored key
    // stands in for it then.
    await db.raw(
      `select setval(seq, top) from (
         select seq, greatest(?::bigint, (select max(??) from ??)) as top from (select pg_get_serial_sequence(quote_ident(?), ?) as seq) as q
       ) as s
       where seq is not null and top > coalesce(pg_sequence_last_value(seq::regclass), 0)`,
      [key, column, table, table, column],
    )
  },
  joinsManyToOne: true,
  keyPairs: 'json_agg(json_build_array(??, ??))',
  // PostgreSQL's LIKE escape character defaults to backslash; ILIKE folds case by the database's locale.
  pattern: (column, term, spec) => ({
    sql: `?? ${spec.negate ? 'NOT ' : ''}${spec.insensitive ? 'ILIKE' : 'LIKE'} ?`,
    bindings: [column, likePattern(term, spec.anchor)],
  }),
  storedTemporal: (_type, column) => column,
  temporalToStorage: (_type, _storage, text) => text,
  arrays: postgresArrays,
  sets: null,
  spatial: null,
  enumText: ({ sql, bindings }) => ({ sql: `(${sql})::text`, bindings }),
  recogniseError,
  recogniseFault,
  lockedTransaction: (knex, name, work) =>
    knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(?::bigint)', [lockNumber(name)])
      return work(trx)
    }),
  lockRows: lockRowsForUpdate,
  // pg_stat_activity shows each backend's statement text, comment first (an idle one its last statement).
  cancelStatements: (knex, marker) =>
    knex.raw("select pg_cancel_backend(pid) from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and query like ?", [
      likePattern(marker, 'starts'),
    ]),
  isCancelled: (error) => error.code === '57014',
  statementReuse: namedStatements,
  csvCopy: postgresCsvCopy,
  arrayRows: { rowMode: 'array' },
  // A boolean read through a text cast is PostgreSQL's own text form.
  readValue: (raw, type) => numberText(dateText(raw, type), type),
}
