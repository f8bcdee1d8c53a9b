// The one handler style: a handler is an async function of the Express request, the response and what the request
// works with, resolved per request (an `ItemsRequest`, a `VersionsRequest`); `route()` makes Express middleware of
// the pair.
import type { Request, RequestHandler, Response } from 'express'

export type Handler<R> = (req: Request, res: Response, request: R) => Promise<void>

/** Resolves the request, runs the handler, and passes every rejection to `next` (Express 4 does not for async handlers). */
export function route<R>(resolve: (req: Request) => Promise<R>, handler: Handler<R>): RequestHandler {
  return (req, res, next) => {
    resolve(req)
      .then((request) => handler(req, res, request))
      .catch(next)
  }
}
