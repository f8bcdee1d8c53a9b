// Picks the dialect of a knex instance: the way into lib/dialects/ for the rest of the library.
import type { Knex } from 'knex'
import { ConfigError } from '../errors'
import type { Dialect, DialectName } from './dialect'
import { mysql } from './mysql/mysql'
import { postgres } from './postgres/postgres'
import { sqlite } from './sqlite/sqlite'

export {
  DIALECT_NAMES,
  type ArraySupport,
  type Dialect,
  type DialectName,
  type DriverError,
  type DriverQuery,
  type KeptStatements,
  type StatementReuse,
  type Fault,
  type RecognisedError,
  type RequestLimits,
  type ServerTraits,
  type SqlFragment,
} from './dialect'

/** Typed by name, so a name in DIALECT_NAMES without its object does not compile. */
const DIALECTS: Readonly<Record<DialectName, Dialect>> = { sqlite, postgres, mysql }

/** knex's client names, aliases included. */
const BY_CLIENT: Readonly<Record<string, DialectName>> = {
  'better-sqlite3': 'sqlite',
  pg: 'postgres',
  postgres: 'postgres',
  postgresql: 'postgres',
  mysql2: 'mysql',
  mysql: 'mysql',
}

/** Picks the dialect from the knex instance's client; an unsupported client is a configuration error. */
export function dialectOf(knex: Knex): Dialect {
  const config = knex.client.config as { client?: unknown }
  // A client class (the SQLite reader's) names its driver.
  const { driverName, dialect } = knex.client as { driverName?: string; dialect?: string }
  const client = typeof config.client === 'string' ? config.client : (driverName ?? dialect)
  const name = client !== undefined && Object.hasOwn(BY_CLIENT, client) ? BY_CLIENT[client] : undefined
  if (name === undefined) {
    throw new ConfigError('CONFIG_UNSUPPORTED_CLIENT', `knex client "${String(client)}" is not supported; use better-sqlite3, pg or mysql2`)
  }
  return DIALECTS[name]
}
