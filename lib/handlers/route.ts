// The one handler style: a handler is an async function of the request, the response and its scope (what the
// request works with, resolved per request); `route()` makes Express middleware of the pair.
import type { Request, RequestHandler, Response } from 'express'

export type Handler<Scope> = (req: Request, res: Response, scope: Scope) => Promise<void>

/** Resolves the scope, runs the handler, and passes every rejection to `next` (Express 4 does not for async handlers). */
export function route<Scope>(resolve: (req: Request) => Promise<Scope>, handler: Handler<Scope>): RequestHandler {
  return (req, res, next) => {
    resolve(req)
      .then((scope) => handler(req, res, scope))
      .catch(next)
  }
}
