// The request a piece of work belongs to, carried through async calls: its id and the signal that stops its work.
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import type { Request, RequestHandler } from 'express'

export interface RequestState {
  /** A UUID (hex and dashes): it is written into SQL comments, so it must never hold quotes, `*` or `?`. */
  readonly id: string
  /** Aborted when the client leaves before its response is sent, or when a hook times out. */
  readonly signal: AbortSignal
  /** Whether the request was aborted, without making its signal. */
  readonly aborted: boolean
  /** Stops the request's work: running statements are cancelled, hooks see their signal aborted. */
  abort(reason: unknown): void
  /** Runs `listener` when the request is aborted, unless it already was. */
  onAbort(listener: () => void): void
}

/**
 * Most requests are never aborted and never read their signal, so the AbortController (and its EventTarget)
 * is made only when one is read, and the router's own listeners wait in a plain list. Most send only kept
 * statements, whose text carries no marker, so the id is made only when read too.
 */
class State implements RequestState {
  private uuid: string | undefined
  private controller: AbortController | undefined
  private abortedWith: { readonly reason: unknown } | undefined
  private readonly listeners: (() => void)[] = []

  /** Made on first read: only a statement sent afresh, a cancellation or an error's answer reads it. */
  get id(): string {
    return (this.uuid ??= randomUUID())
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController()
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason)
    }
    return this.controller.signal
  }

  get aborted(): boolean {
    return this.abortedWith !== undefined
  }

  abort(reason: unknown): void {
    if (this.abortedWith) return
    this.abortedWith = { reason }
    this.controller?.abort(reason)
    for (const listener of this.listeners.splice(0)) listener()
  }

  onAbort(listener: () => void): void {
    if (!this.abortedWith) this.listeners.push(listener)
  }
}

/**
 * A value each request's scope may carry for one part of the router (its statement guard, its statement reuse),
 * stored on the scope itself. A WeakMap keyed by the scope would do the same, but every request adds an entry
 * whose key dies young, and V8 pays for such entries in each garbage collection, where properties cost nothing
 * measurable (bench: the KiB/req and CPU columns of every row).
 */
export class StateSlot<T> {
  private readonly key: symbol

  constructor(name: string) {
    this.key = Symbol(name)
  }

  get(state: RequestState): T | undefined {
    return (state as unknown as Record<symbol, T | undefined>)[this.key]
  }

  set(state: RequestState, value: T): void {
    const carrier = state as unknown as Record<symbol, T>
    carrier[this.key] = value
  }
}

const storage = new AsyncLocalStorage<RequestState>()

/** The state of the request whose work is running, or undefined outside the router's requests. */
export function currentRequest(): RequestState | undefined {
  return storage.getStore()
}

/** What a part of the router attaches to each request's state (its statements' limits, reuse, connection). */
export type StateSetup = (req: Request, state: RequestState) => void

/**
 * Runs the rest of the request inside its state, once each setup has attached its part. Mounted after the body
 * parser: the body arrives through socket events, which would run outside the state, while everything after it
 * runs in promises, which keep it. One middleware for all the setups: every layer costs each request a match.
 */
export function requestState(setups: readonly StateSetup[]): RequestHandler {
  return (req, res, next) => {
    const state = new State()
    for (const setup of setups) setup(req, state)
    // `close` before `finish`: the client went away, so nobody waits for the work still running.
    res.on('close', () => {
      if (!res.writableFinished) state.abort(new Error('The client closed the connection'))
    })
    storage.run(state, next)
  }
}

/** Runs `work` in a state of its own, for work no HTTP request carries (a realtime message or delivery). */
export function runInState<T>(prepare: (state: RequestState) => void, work: () => Promise<T>): Promise<T> {
  const state = new State()
  prepare(state)
  return storage.run(state, work)
}
