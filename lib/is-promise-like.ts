// Whether a hook or option answered later or at once. The hot paths await only what is pending: under Node 20's
// AsyncLocalStorage (request-state.ts) every promise, an `await` of a plain value's included, runs the
// process's async hooks, which the host's own requests pay for too.

export const isPromiseLike = <T>(value: T | PromiseLike<T>): value is PromiseLike<T> =>
  typeof (value as { then?: unknown } | null)?.then === 'function'
