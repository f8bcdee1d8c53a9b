// Test support: which knex instance ran each statement, for specs of read routing (a replica, a SQLite reader).
import type { Knex } from 'knex'
import { isServerProbe } from './server-probes'

/** The SQL each instance sent while `fn` ran, but the router's questions about the server. */
export async function statementsOf(
  primary: Knex,
  replica: Knex,
  fn: () => Promise<unknown>,
): Promise<{ primary: string[]; replica: string[] }> {
  const seen = { primary: [] as string[], replica: [] as string[] }
  const onPrimary = (query: { sql: string }): void => void (isServerProbe(query.sql) || seen.primary.push(query.sql))
  const onReplica = (query: { sql: string }): void => void (isServerProbe(query.sql) || seen.replica.push(query.sql))
  primary.on('query', onPrimary)
  replica.on('query', onReplica)
  try {
    await fn()
    return seen
  } finally {
    primary.off('query', onPrimary)
    replica.off('query', onReplica)
  }
}
