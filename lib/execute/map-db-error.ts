// Turns a driver error its dialect recognised into the API's error; the original is kept as `cause` for logs
// and never sent to the client. Errors the dialect does not recognise pass through unchanged (500).
import { ConflictError, ItemsError, ServiceUnavailableError, type ErrorCode } from '../errors'
import { isHidden, type Collection } from '../schema/collection'
import type { Dialect, DriverError, Fault } from '../dialects'
import { isFailedCancellation } from '../knex-adapter'

const MESSAGES: Readonly<Partial<Record<ErrorCode, string>>> = {
  RECORD_NOT_UNIQUE: 'Value has to be unique',
  INVALID_FOREIGN_KEY: 'Invalid foreign key',
  NOT_NULL_VIOLATION: 'Value can not be null',
  VALUE_TOO_LONG: 'Value is too long',
  VALUE_OUT_OF_RANGE: 'Value is out of range',
  INVALID_PAYLOAD: 'Invalid payload. A value has the wrong format for its column.',
  CONSTRAINT_VIOLATION: 'The values break a constraint of the table',
}

/** Returns the API error for a driver error, or the error itself when it is not one a client can cause. */
export function mapDbError(error: unknown, collection: Collection, dialect: Dialect): unknown {
  if (error instanceof ItemsError || typeof error !== 'object' || error === null) return error
  const fault = mapFault(error, dialect)
  if (fault) return fault
  const mapped = dialect.recogniseError(error, collection)
  if (!mapped) return error
  // Only names the schema knows are reported: a column the API does not expose stays unnamed.
  const member = mapped.field === undefined ? undefined : collection.members.get(mapped.field)
  const field = member && !isHidden(member) ? member.name : undefined
  const extensions = {
    collection: collection.name,
    ...(field ? { field } : {}),
    // A duplicate may be a row the caller cannot read, so its value is never echoed: a unique error carries
    // the same fields on every database whether or not the driver names the value.
    ...(field && mapped.value !== undefined && mapped.code !== 'RECORD_NOT_UNIQUE' ? { value: mapped.value } : {}),
    ...(mapped.constraint === undefined ? {} : { constraint: mapped.constraint }),
  }
  if (mapped.referenced) {
    return new ItemsError('INVALID_FOREIGN_KEY', 'Invalid foreign key: other items still reference this item.', extensions, {
      cause: error,
    })
  }
  const base = MESSAGES[mapped.code] ?? mapped.code
  const named = field ? ` (field "${field}")` : mapped.constraint === undefined ? '' : ` (constraint "${mapped.constraint}")`
  const message = mapped.code === 'INVALID_PAYLOAD' ? (field ? `${base.slice(0, -1)} (field "${field}").` : base) : `${base}${named}.`
  return new ItemsError(mapped.code, message, extensions, { cause: error })
}

/**
 * The fault an error stands for, if any: the dialect reads its driver's errors; knex's own acquire timeout
 * (every pooled connection busy or the database unreachable for `acquireConnectionTimeout`) is `unavailable`.
 */
export function faultOf(error: unknown, dialect: Dialect): Fault | null {
  if (typeof error !== 'object' || error === null || error instanceof ItemsError) return null
  // knex raises KnexTimeoutError for a statement past its `.timeout()` too; that one carries the limit and is
  // the statement guard's (504 QUERY_TIMEOUT), not a sign the database is out of reach.
  // A statement past its time limit whose cancellation found no connection: the database is out of reach.
  if (isFailedCancellation(error)) return 'unavailable'
  const { name, timeout } = error as DriverError & { timeout?: unknown }
  if (name === 'KnexTimeoutError') return typeof timeout === 'number' ? null : 'unavailable'
  return dialect.recogniseFault(error)
}

/** The API's answer to a fault: 503 for an unreachable database, 409 for a conflict retries did not resolve. */
export function mapFault(error: unknown, dialect: Dialect): ItemsError | null {
  switch (faultOf(error, dialect)) {
    case 'unavailable':
      return new ServiceUnavailableError({ cause: error })
    case 'conflict':
      return new ConflictError({ cause: error })
    default:
      return null
  }
}
