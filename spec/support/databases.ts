// Test support: knex configurations for the three test databases, named per run and per worker; creating the
// worker databases, dropping a run's, and probing the servers.
import { randomBytes } from 'node:crypto'
import knexFactory, { type Knex } from 'knex'
import { prepareSqliteConnection } from '../../lib'
import { DIALECT_NAMES, type DialectName } from '../../lib/dialects'
import { rebuildTables } from '../../fixtures/seed'

const CONNECT_TIMEOUT_MS = 3000
const PG_BASE = process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432'
const MYSQL_BASE = process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306'
/** Where the global setup leaves `{ [dialect]: reason }` for the servers it could not reach. */
export const UNREACHABLE_ENV = 'ITEMS_TEST_UNREACHABLE'

/** The dialects selected by `DIALECTS=sqlite,postgres` (default: all); the benchmarks read `BENCH_DIALECTS`. */
export function selectedDialects(variable = 'DIALECTS'): DialectName[] {
  const raw = process.env[variable]?.trim()
  if (!raw) return [...DIALECT_NAMES]
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
  const unknown = names.filter((name) => !(DIALECT_NAMES as readonly string[]).includes(name))
  if (unknown.length) throw new Error(`${variable} lists unknown dialect(s): ${unknown.join(', ')}`)
  return names as DialectName[]
}

/**
 * Names this run's databases: the global setup sets a fresh id unless the variable is set already, which pins the
 * names (each of its letters and digits, lower-cased, as MySQL on a case-insensitive file system stores them).
 */
export const RUN_ENV = 'ITEMS_TEST_RUN'
/** Longest run name: `items_test_<run>_<worker>_replica` stays within PostgreSQL's 63 characters (MySQL: 64). */
const LONGEST_RUN = 32

/** A fresh run id: two runs at once on the same servers never share a database. */
export const newRunId = (): string => randomBytes(4).toString('hex')

/** The run's part of every database name; refuses a run name too long for the servers' limits. */
function testRun(): string {
  const given = process.env[RUN_ENV]
  if (!given) throw new Error(`${RUN_ENV} is not set: jest's global setup sets it, and a script must set it itself`)
  const run = given.replace(/[^a-z0-9]/gi, '').toLowerCase()
  if (run === '' || run.length > LONGEST_RUN) {
    throw new Error(`${RUN_ENV} must hold 1 to ${LONGEST_RUN} letters or digits, not ${JSON.stringify(given)}`)
  }
  return run
}

/** How the name of every database of this run starts: the global teardown drops those that do. */
export const runDatabasePrefix = (): string => `items_test_${testRun()}_`

/**
 * Each jest worker gets its own database, so parallel spec files never see each other's rows; a spec that needs
 * another database names it after this one (`_legacy`, `_replica`), so that it carries the run too.
 */
export const workerDatabase = (): string => `${runDatabasePrefix()}${process.env.JEST_WORKER_ID ?? '1'}`

export function pgConnection(database: string): Knex.PgConnectionConfig {
  const url = new URL(PG_BASE)
  url.pathname = `/${database}`
  return { connectionString: url.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS }
}

function mysqlConnection(database?: string): Knex.MySql2ConnectionConfig {
  const url = new URL(MYSQL_BASE)
  return {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username || 'root'),
    password: decodeURIComponent(url.password),
    ...(database ? { database } : {}),
    connectTimeout: CONNECT_TIMEOUT_MS,
    // mysql2's defaults otherwise: the library must not depend on number or date parsing options.
    charset: 'utf8mb4',
  }
}

/** The knex configuration for a dialect's worker database (sqlite: a fresh in-memory database). */
export function knexConfig(name: DialectName): Knex.Config {
  const common = { acquireConnectionTimeout: 10_000 }
  switch (name) {
    case 'sqlite':
      return {
        ...common,
        client: 'better-sqlite3',
        connection: { filename: ':memory:' },
        useNullAsDefault: true,
        // One connection, or each pooled connection would open a different in-memory database.
        pool: {
          min: 1,
          max: 1,
          afterCreate: (conn: { pragma(source: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
            conn.pragma('foreign_keys = ON')
            prepareSqliteConnection(conn)
            done(null, conn)
          },
        },
      }
    case 'postgres':
      return { ...common, client: 'pg', connection: pgConnection(workerDatabase()) }
    case 'mysql':
      return { ...common, client: 'mysql2', connection: mysqlConnection(workerDatabase()) }
  }
}

/** The MySQL database, beside the worker's, holding the tables of a spec's own `schema`. */
export const schemaDatabase = (schema: string): string => `${workerDatabase()}_${schema}`

/**
 * Opens a knex on a spec's own `schema`, empty unless earlier work left it: PostgreSQL's schema of that name in
 * the worker's database (through `searchPath`), MySQL's database beside the worker's (created through `worker`,
 * the suite's own knex), SQLite's `sqliteFile` (a fresh in-memory database by default).
 */
export async function openSchema(name: DialectName, schema: string, worker: Knex, sqliteFile = ':memory:'): Promise<Knex> {
  const config = knexConfig(name)
  if (name === 'postgres') return knexFactory({ ...config, searchPath: [schema] })
  if (name === 'mysql') {
    await worker.raw('create database if not exists ?? character set utf8mb4', [schemaDatabase(schema)])
    return knexFactory({ ...config, connection: { ...(config.connection as object), database: schemaDatabase(schema) } })
  }
  return knexFactory({ ...config, connection: { filename: sqliteFile } })
}

async function withServerConnection<T>(name: 'postgres' | 'mysql', fn: (knex: Knex) => Promise<T>): Promise<T> {
  const knex = knexFactory({
    client: name === 'postgres' ? 'pg' : 'mysql2',
    connection: name === 'postgres' ? pgConnection('postgres') : mysqlConnection(),
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: CONNECT_TIMEOUT_MS + 1000,
  })
  try {
    return await fn(knex)
  } finally {
    await knex.destroy()
  }
}

/** Creates the worker's database if it does not exist yet (sqlite needs nothing). */
export async function ensureDatabase(name: DialectName): Promise<void> {
  if (name === 'sqlite') return
  const database = workerDatabase()
  await withServerConnection(name, async (knex) => {
    if (name === 'mysql') {
      await knex.raw('create database if not exists ?? character set utf8mb4', [database])
      return
    }
    const found = await knex('pg_database').where({ datname: database }).first('datname')
    if (found) return
    try {
      await knex.raw('create database ??', [database])
    } catch (error) {
      // Another process may have created it between the check and the create.
      if ((error as { code?: string }).code !== '42P04') throw error
    }
  })
}

/** A knex instance on this run's database of `name`, its fixture tables created afresh and seeded. */
export async function openFixtures(name: DialectName): Promise<Knex> {
  await ensureDatabase(name)
  const knex = knexFactory(knexConfig(name))
  await rebuildTables(knex)
  return knex
}

/** Drops every database of this run on `name`'s server: the workers' and those specs made beside them. */
export async function dropRunDatabases(name: 'postgres' | 'mysql'): Promise<void> {
  const prefix = runDatabasePrefix()
  await withServerConnection(name, async (knex) => {
    const listed =
      name === 'postgres'
        ? knex('pg_database').select('datname as name')
        : knex('information_schema.schemata').select('schema_name as name')
    const all = (await listed) as { name: string }[]
    for (const { name: database } of all.filter((each) => each.name.startsWith(prefix))) {
      // FORCE (PostgreSQL 13+) ends the sessions of workers that exited a moment ago and the server has not yet noticed.
      await knex.raw(name === 'postgres' ? 'drop database if exists ?? with (force)' : 'drop database if exists ??', [database])
    }
  })
}

/** Resolves to `null` when the dialect's server answers, or to the reason it does not. */
export async function probe(name: DialectName): Promise<string | null> {
  if (name === 'sqlite') return null
  // Only the host: the URL may carry a password.
  const where = new URL(name === 'postgres' ? PG_BASE : MYSQL_BASE).host
  try {
    await withServerConnection(name, (knex) => knex.raw('select 1'))
    return null
  } catch (error) {
    return `${name} is unreachable at ${where}: ${(error as Error).message}`
  }
}
