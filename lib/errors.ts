// Error classes with stable codes, and the middleware that renders them as `{ errors: [...] }`.
import type { ErrorRequestHandler } from 'express'
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
  | 'PAYLOAD_TOO_LARGE'
  | 'UNPROCESSABLE_CONTENT'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR'

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
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_CONTENT: 422,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
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
  return { message: error.message, extensions: { ...error.extensions, code: error.code } }
}

/** body-parser's own errors carry a `type`; map the ones a client can cause. */
function fromBodyParser(error: { type?: unknown; limit?: unknown }): ItemsError | null {
  switch (error.type) {
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
      return null
  }
}

/**
 * Turns anything thrown into the list of errors to send. `recognise` reads database faults (503, 409); other
 * unknown errors become one generic 500.
 */
export function toItemsErrors(
  error: unknown,
  logger: Logger,
  recognise: (error: unknown) => ItemsError | null = () => null,
): readonly ItemsError[] {
  if (error instanceof ItemsErrorList) return error.errors
  if (error instanceof ItemsError) {
    if (error.code === 'SERVICE_UNAVAILABLE') logger.warn(`express-items-router: the database is unavailable (${String(error.cause)})`)
    return [error]
  }
  const fromBody = error !== null && typeof error === 'object' ? fromBodyParser(error) : null
  if (fromBody) return [fromBody]
  const fault = recognise(error)
  if (fault) return toItemsErrors(fault, logger)
  logger.error('express-items-router: unexpected error', error)
  return [new ItemsError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.')]
}

/** The router's error middleware: the only place that writes an error response. */
export function errorHandler(logger: Logger, recognise?: (error: unknown) => ItemsError | null): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error)
    const errors = toItemsErrors(error, logger, recognise)
    if (errors[0]!.status === 503) res.set('Retry-After', String(RETRY_AFTER_SECONDS))
    res.status(errors[0]!.status).json({ errors: errors.map(render) })
  }
}

/** Every code with its HTTP status, for the OpenAPI document's error responses. */
export const errorStatuses = (): ReadonlyArray<readonly [ErrorCode, number]> => Object.entries(STATUS) as [ErrorCode, number][]
