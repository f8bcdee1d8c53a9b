// Runs a whole transaction again when the database rolled it back for colliding with concurrent ones
// (deadlock, serialization failure, lock wait): the work is re-run from BEGIN, before hooks included.
import type { Dialect } from '../dialects'
import { faultOf } from './map-db-error'

/** Attempts in all, the first included (`transactionAttempts`); a collision that survives them answers 409 `CONFLICT`. */
export const DEFAULT_TRANSACTION_ATTEMPTS = 4

/** Up to 20 ms, 40 ms, 80 ms, random within that: colliding writers rarely meet again at the same moment. */
const backoff = (attempt: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt))

/**
 * `alsoRetry` names further errors worth a fresh attempt: a singleton's create that lost the race for the
 * fixed key finds the winner's row when it runs again.
 */
export async function retryTransaction<T>(
  dialect: Dialect,
  attempts: number,
  run: () => Promise<T>,
  alsoRetry?: (error: unknown) => boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run()
    } catch (error) {
      const retryable = faultOf(error, dialect) === 'conflict' || alsoRetry?.(error) === true
      if (attempt >= attempts || !retryable) throw error
      await backoff(attempt)
    }
  }
}
