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
  PAYLOAD_TOO_LARGE: 413,
  UNPROCESSABLE_CONTENT: 422,
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

/** Turns anything thrown into the list of errors to send. Unknown errors become one generic 500. */
export function toItemsErrors(error: unknown, logger: Logger): readonly ItemsError[] {
  if (error instanceof ItemsErrorList) return error.errors
  if (error instanceof ItemsError) return [error]
  const fromBody = error !== null && typeof error === 'object' ? fromBodyParser(error) : null
  if (fromBody) return [fromBody]
  logger.error('express-items-router: unexpected error', error)
  return [new ItemsError('INTERNAL_SERVER_ERROR', 'An unexpected error occurred.')]
}

/** The router's error middleware: the only place that writes an error response. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (res.headersSent) return next(error)
    const errors = toItemsErrors(error, logger)
    res.status(errors[0]!.status).json({ errors: errors.map(render) })
  }
}
