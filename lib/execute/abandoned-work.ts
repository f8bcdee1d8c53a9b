// Work whose client has gone away is dropped: a request still waiting for a pooled connection leaves the queue,
// so requests whose clients are still there get the connections. Its hooks are let go in writes/lifecycle.ts,
// its running statements cancelled in statement-guard.ts.
import type { Knex } from 'knex'
import { InvalidPayloadError, ItemsError } from '../errors'
import { watchAcquisitions } from '../knex-adapter'
import { currentRequest, type RequestState } from '../request-state'

/**
 * What an abandoned request's work fails with: the reason it was stopped when that is an API error (a before
 * hook's HOOK_TIMEOUT), otherwise a 400 like the one for a body its client stopped sending; nobody reads it, and
 * as a 4xx it is not logged as an unexpected error.
 */
export function abandonedError(state: RequestState): ItemsError {
  const reason: unknown = state.signal.reason
  return reason instanceof ItemsError ? reason : new InvalidPayloadError('The request was aborted')
}

/** Makes the router's requests leave the pools' queues of `instances` once aborted. */
export function dropAbandonedAcquisitions(instances: readonly Knex[]): void {
  for (const knex of instances) {
    watchAcquisitions(knex, (leave) => {
      const state = currentRequest()
      if (state === undefined) return
      if (state.aborted) leave(abandonedError(state))
      else state.onAbort(() => leave(abandonedError(state)))
    })
  }
}
