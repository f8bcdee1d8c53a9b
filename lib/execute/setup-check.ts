// Runs the dialect's check of the host's connections once, before the first request: a setup the router cannot
// work with answers every request with what to fix, instead of failing later in some query.
import type { Knex } from 'knex'
import { ItemsError } from '../errors'
import type { Logger } from '../types'
import type { Dialect } from '../dialects'

/**
 * A function that resolves once the check has passed. A failed check is logged once and kept, since only the
 * host's code can fix it; an error while checking (no connection yet, say) is not, and the next request retries.
 */
export function setupCheck(knex: Knex, dialect: Dialect, logger: Logger): () => Promise<void> {
  const check = dialect.checkSetup
  if (check === null) return () => Promise.resolve()
  let verdict: Promise<void> | null = null
  const failed = (problem: string): never => {
    logger.error(`express-items-router: ${problem}`)
    throw new ItemsError('INTERNAL_SERVER_ERROR', `The router is not set up: ${problem}`)
  }
  return () =>
    (verdict ??= Promise.resolve()
      .then(() => check(knex))
      .then(
        (problem) => (problem === null ? undefined : failed(problem)),
        (error: unknown) => {
          verdict = null
          throw error
        },
      ))
}
