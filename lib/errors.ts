// Error classes with stable codes, and the middleware that renders them as `{ errors: [...] }`.
import { randomUUID } from 'node:crypto'
import type { ErrorRequestHandler, Request } from 'express'
import { boundedText, boundedValue, MAX_ERRORS } from './bounded-text'
import { currentRequest } from './request-state'
import type { Logger } from './types'

/** Every code the API answers with. Codes are never renamed or reused. */
export type ErrorCode =
  | 'INVALID_QUERY'
  | 'INVALID_PAYLOAD'
  | 'FAILED_VALIDATION'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'ROUTE_NOT_FOUND'
  | 'RECORD_NOT_UNIQUE'
  | 'INVALID_FOREIGN_KEY'
  | 'NOT_NULL_VIOLATION'
  | 'VALUE_TOO_LONG'
  | 'VALUE_OUT_OF_RANGE'
  | 'CONSTRAINT_VIOLATION'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE_CONTENT'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'SERVICE_UNAVAILABLE'
  | 'TOO_MANY_EXPORTS'
  | 'INTERNAL_SERVER_ERROR'
  | 'QUERY_TIMEOUT'
  | 'HOOK_TIMEOUT'

const STATUS: Readonly<Record<ErrorCode, number>> = Object.freeze({
  INVALID_QUERY: 400,
  INVALID_PAYLOAD: 400,
  FAILED_VALIDATION: 400,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  RECORD_NOT_UNIQUE: 400,
  INVALID_FOREIGN_KEY: 400,
  NOT_NULL_VIOLATION: 400,
  VALUE_TOO_LONG: 400,
  VALUE_OUT_OF_RANGE: 400,
  // A CHECK (or exclusion) constraint of the database refused the values; `extensions.constraint` names it.
  CONSTRAINT_VIOLATION: 400,
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_CONTENT: 422,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  SERVICE_UNAVAILABLE: 503,
  // `maxConcurrentExports` downloads are running; sent with `Retry-After` like any 503.
  TOO_MANY_EXPORTS: 503,
  INTERNAL_SERVER_ERROR: 500,
  // 504: the request was valid, but something it waited on (the database, a hook) did not answer in time.
  QUERY_TIMEOUT: 504,
  HOOK_TIMEOUT: 504,
})

/** Extra keys rendered beside `code` in `extensions` (`field`, `collection`, `reason`, ...). */
export type ErrorExtensions = Record<string, unknown>

/** The base class: an error the API renders with its code and status. Host apps may throw these too. */
export class ItemsError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extensions: ErrorExtensions = {},
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = new.target.name
    this.status = STATUS[code]
  }
}

/** A query parameter is malformed or names something that does not exist. 400 `INVALID_QUERY`. */
export class InvalidQueryError extends ItemsError {
  constructor(readonly reason: string) {
    super('INVALID_QUERY', `Invalid query. ${reason}.`, { reason })
  }
}

/** The body is missing, not JSON, or of the wrong shape. 400 `INVALID_PAYLOAD`. */
export class InvalidPayloadError extends ItemsError {
  constructor(readonly reason: string) {
    super('INVALID_PAYLOAD', `Invalid payload. ${reason}.`, { reason })
  }
}

/** One field of a payload broke one rule. 400 `FAILED_VALIDATION`; several are sent together. */
export class FailedValidationError extends ItemsError {
  constructor(message: string, extensions: { field: string; type: string; [key: string]: unknown }) {
    super('FAILED_VALIDATION', message, extensions)
  }
}

/** Several errors answered at once (one per failing field). The status is the first error's. */
export class ItemsErrorList extends Error {
  constructor(readonly errors: readonly ItemsError[]) {
    super(errors.map((error) => error.message).join('; '))
    this.name = 'ItemsErrorList'
  }
}

/** The item does not exist (or the caller may not see it). 404 `NOT_FOUND`. */
export class NotFoundError extends ItemsError {
  constructor(message = 'Item not found.', extensions: ErrorExtensions = {}) {
    super('NOT_FOUND', message, extensions)
  }
}

/** No such collection or route. 404 `ROUTE_NOT_FOUND`. */
export class RouteNotFoundError extends ItemsError {
  constructor(path: string) {
    super('ROUTE_NOT_FOUND', `Route ${path} doesn't exist.`, { path })
  }
}

/** The caller may not do this. 403 `FORBIDDEN`. */
export class ForbiddenError extends ItemsError {
  constructor(message = "You don't have permission to access this.") {
    super('FORBIDDEN', message)
  }
}

/** Seconds a client should wait before retrying a 503, sent as `Retry-After`. */
export const RETRY_AFTER_SECONDS = 1

/**
 * The database cannot be reached right now: refused or lost connections, a full pool, a timed-out statement.
 * 503 `SERVICE_UNAVAILABLE` with `Retry-After`; nothing the request did is known to have been committed.
 */
export class ServiceUnavailableError extends ItemsError {
  constructor(options?: { cause?: unknown }) {
    super('SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly.', {}, options)
  }
}

/** `maxConcurrentExports` exports are running already: 503 `TOO_MANY_EXPORTS` with `Retry-After`. */
export class TooManyExportsError extends ItemsError {
  constructor(readonly limit: number) {
    super('TOO_MANY_EXPORTS', `${limit} exports are running, the most maxConcurrentExports allows; try again shortly.`, { limit })
  }
}

/** Concurrent writes kept colliding (deadlocks, serialization failures) after every retry. 409 `CONFLICT`. */
export class ConflictError extends ItemsError {
  constructor(options?: { cause?: unknown }) {
    super('CONFLICT', 'The write collided with concurrent writes; try again.', {}, options)
  }
}

/** `If-Match` names none of the item's current ETags: it changed since the client read it. 412 `PRECONDITION_FAILED`. */
export class PreconditionFailedError extends ItemsError {
  constructor() {
    super('PRECONDITION_FAILED', 'The item changed since it was read (If-Match); read it again.')
  }
}

/** The options given to `createItemsRouter()` cannot work; thrown at creation, never per request. */
export class ConfigError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${message} [${code}]`)
    this.name = 'ConfigError'
  }
}

type Rendered = { message: string; extensions: { code: ErrorCode } & ErrorExtensions }

function render(error: ItemsError): Rendered {
  const extensions: ErrorExtensions = {}
  for (const [key, value] of Object.entries(error.extensions)) extensions[key] = boundedValue(value)
  return { message: boundedText(error.message), extensions: { ...extensions, code: error.code } }
}

/** The `type` the JSON body parser gives a body nested too deep (see handlers/json-body.ts). */
export const BODY_TOO_DEEP = 'items.body.too.deep'
/** The `type` the JSON body parser gives a body whose bytes are not UTF-8. */
export const BODY_NOT_UTF8 = 'items.body.not.utf8'

/** body-parser's own errors carry a `type`; map the ones a client can cause. */
function fromBodyParser(error: {
  type?: unknown
  limit?: unknown
  status?: unknown
  expose?: unknown
  message?: unknown
}): ItemsError | null {
  switch (error.type) {
    case BODY_TOO_DEEP:
      return new InvalidPayloadError(`${String(error.message)} (maxJsonDepth)`)
    case BODY_NOT_UTF8:
      return new InvalidPayloadError(String(error.message))
    case 'entity.parse.failed':
      return new InvalidPayloadError('The body is not valid JSON')
    case 'entity.too.large':
      return new ItemsError('PAYLOAD_TOO_LARGE', `Payload too large. The body exceeds ${String(error.limit)} bytes.`, {
        limit: error.limit,
      })
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return new InvalidPayloadError('The body has an unsupported charset or encoding')
    case 'request.aborted':
      return new InvalidPayloadError('The request was aborted')
    default:
      // A body that fails to inflate (`Content-Encoding: gzip` over plain text) is an http-error without a type.
      return typeof error.status === 'number' && error.status >= 400 && error.status < 500 && error.expose === true
        ? new InvalidPayloadError('The body cannot be read')
        : null
  }
}

/** Reads database faults (503 unavailable, 409 conflict) from errors the driver raised; null for any other. */
export type FaultReader = (error: unknown) => ItemsError | null

/** The errors a client caused or a database fault explains, as the list to send; null for an unexpected error. */
export function toClientErrors(
  error: unknown,
  logger: Logger,
  recognise: FaultReader = () => null,
  req?: Request,
): readonly ItemsError[] | null {
  if (error instanceof ItemsErrorList) return error.errors
  if (error instanceof ItemsError) {
    if (error.code === 'SERVICE_UNAVAILABLE') logger.warn(`express-items-router: the database is unavailable (${String(error.cause)})`)
    return [error]
  }
  // Express decodes route parameters with decodeURIComponent; `/items/%E0%A4%A` names no route.
  if (error instanceof URIError) return [new RouteNotFoundError(req?.originalUrl.split('?')[0] ?? '')]
  const fromBody = error !== null && typeof error === 'object' ? fromBodyParser(error) : null
  if (fromBody) return [fromBody]
  const fault = recognise(error)
  return fault ? toClientErrors(fault, logger) : null
}

/** knex's prefix on a failed statement's message (after the request's marker comment): the SQL with its bound values inlined, then ` - `. */
const STATEMENT_PREFIX =
  /^\s*(?:\/\*[\s\S]*?\*\/\s*)?(select|insert|update|delete|with|begin|commit|rollback|savepoint|release|set|create|alter|drop|pragma)\s[\s\S]* - /i

/**
 * Strips what may hold bound values (a password hash, a token) from a database error before it is logged, in
 * place so that a host's error middleware sees the same object: knex's statement prefix on the message, and the
 * drivers' `sql` (mysql2), `parameters` and `detail` (pg, which quotes the offending value). Other errors are
 * left alone.
 */
export function redacted(error: unknown): unknown {
  // Duck-typed, not `instanceof Error`: a driver's error class may come from another realm (a native addon
  // keeps the first constructor it was given, which under jest belongs to another module registry).
  if (typeof error !== 'object' || error === null || typeof (error as { message?: unknown }).message !== 'string') return error
  const fields = error as Error & Record<string, unknown>
  const fromDriver = typeof fields.code === 'string' || typeof fields.errno === 'number'
  if (!fromDriver) return error
  const original = fields.message
  if (STATEMENT_PREFIX.test(original)) {
    fields.message = `[statement omitted] - ${original.slice(original.lastIndexOf(' - ') + 3)}`
    if (typeof fields.stack === 'string') fields.stack = fields.stack.split(original).join(fields.message)
  }
  for (const key of ['sql', 'parameters', 'detail']) if (key in fields) delete fields[key]
  return error
}

/** Longest incoming `X-Request-Id` echoed as given; a longer or non-printable one is replaced by a fresh id. */
const REQUEST_ID = /^[\x21-\x7e]{1,200}$/

/**
 * The request's id: the client's or proxy's `X-Request-Id` when it is sane; otherwise the id its statements carry
 * in their SQL comments (see request-state.ts), so a logged 500 leads to its statements; a fresh UUID for errors
 * raised before the request had a scope (the body parser's).
 */
export function requestIdOf(req: Request): string {
  const given = req.get('x-request-id')
  return given !== undefined && REQUEST_ID.test(given) ? given : (currentRequest()?.id ?? randomUUID())
}

export interface ErrorHandlerOptions {
  readonly recognise?: FaultReader
  /** Hand unexpected errors to the host's error middleware instead of answering 500 (see the option of that name). */
  readonly passUnexpectedErrors?: boolean
}

/**
 * The router's error middleware: the only place that writes an error response. An unexpected error is logged
 * with the request's method, path and id; the 500 carries the id in `extensions.requestId`, or, with
 * `passUnexpectedErrors`, the error goes on to the host's error middleware with `requestId` set on it.
 */
export function errorHandler(logger: Logger, options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  return (error, req, res, next) => {
    if (res.headersSent) return next(error)
    const errors = toClientErrors(error, logger, options.recognise, req)
    if (errors) {
      if (errors[0]!.status === 503) res.set('Retry-After', String(RETRY_AFTER_SECONDS))
      res.status(errors[0]!.status).json({ errors: errors.slice(0, MAX_ERRORS).map(render) })
      return
    }
    const requestId = requestIdOf(req)
    logger.error(
      `express-items-router: unexpected error in ${req.method} ${req.originalUrl.split('?')[0]} (request ${requestId})`,
      redacted(error),
    )
    if (options.passUnexpectedErrors) {
      if (error !== null && typeof error === 'object') Object.assign(error, { requestId })
      return next(error)
    }
    res.setHeader('X-Request-Id', requestId)
    const unexpected = new ItemsError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.', { requestId })
    res.status(500).json({ errors: [render(unexpected)] })
  }
}

/** Every code with its HTTP status, for the OpenAPI document's error responses. */
export const errorStatuses = (): ReadonlyArray<readonly [ErrorCode, number]> => Object.entries(STATUS) as [ErrorCode, number][]
