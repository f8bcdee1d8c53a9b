// The request a piece of work belongs to, carried through async calls: its id and the signal that stops its work.
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import type { RequestHandler } from 'express'

export interface RequestScope {
  /** A UUID (hex and dashes): it is written into SQL comments, so it must never hold quotes, `*` or `?`. */
  readonly id: string
  /** Aborted when the client leaves before its response is sent, or when a hook times out. */
  readonly signal: AbortSignal
  /** Stops the request's work: running statements are cancelled, hooks see their signal aborted. */
  abort(reason: unknown): void
}

const storage = new AsyncLocalStorage<RequestScope>()

/** The scope of the request whose work is running, or undefined outside the router's requests. */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore()
}

/**
 * Runs the rest of the request inside its scope. Mounted after the body parser: the body arrives through
 * socket events, which would run outside the scope, while everything after it runs in promises, which keep it.
 */
export function requestScope(): RequestHandler {
  return (_req, res, next) => {
    const controller = new AbortController()
    const scope: RequestScope = {
      id: randomUUID(),
      signal: controller.signal,
      abort: (reason) => controller.abort(reason),
    }
    // `close` before `finish`: the client went away, so nobody waits for the work still running.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('The client closed the connection'))
    })
    storage.run(scope, next)
  }
}
