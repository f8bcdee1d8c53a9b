// Request helpers every handler shares: the JSON body, the caller, and the 404 for a route the router lacks.
import type { Request } from 'express'
import { InvalidPayloadError, RouteNotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { isPromiseLike } from '../is-promise-like'
import type { ItemsContext } from '../types'
import { hasEmptyBody, isJsonBody } from './json-body'

/** 404 `ROUTE_NOT_FOUND` naming the method and the path as the client sent it. */
export const routeNotFound = (req: Request): RouteNotFoundError => new RouteNotFoundError(`${req.method} ${req.baseUrl}${req.path}`)

/** The JSON body; a request without one is a 400. */
export function readBody(req: Request): unknown {
  // body-parser leaves non-JSON bodies alone, and Express 4 then still sets `req.body` to `{}`.
  if (!isJsonBody(req)) {
    throw new InvalidPayloadError('The request needs a JSON body (Content-Type: application/json)')
  }
  if (hasEmptyBody(req)) throw new InvalidPayloadError('The request body is empty')
  return req.body as unknown
}

/**
 * The caller of this request, as the host's `context` option describes them: at once when the option answers at
 * once. Under Node 20's AsyncLocalStorage every promise runs hooks, so a request makes none it does not need.
 */
export function resolveCaller(
  context: (req: Request) => ItemsContext | Promise<ItemsContext>,
  req: Request,
): ItemsContext | Promise<ItemsContext> {
  const caller = context(req)
  return isPromiseLike(caller) ? Promise.resolve(caller).then(checkedCaller) : checkedCaller(caller)
}

function checkedCaller(caller: unknown): ItemsContext {
  if (!isPlainObject(caller)) throw new TypeError('express-items-router: the context option must answer an object')
  return caller
}
