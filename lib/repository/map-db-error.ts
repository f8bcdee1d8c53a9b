// Turns a driver error its dialect recognised into the API's error; the original is kept as `cause` for logs
// and never sent to the client. Errors the dialect does not recognise pass through unchanged (500).
import { ItemsError, type ErrorCode } from '../errors'
import { isHidden, type Collection } from '../schema/collection'
import type { Dialect } from './dialects'

const MESSAGES: Readonly<Partial<Record<ErrorCode, string>>> = {
  RECORD_NOT_UNIQUE: 'Value has to be unique',
  INVALID_FOREIGN_KEY: 'Invalid foreign key',
  NOT_NULL_VIOLATION: 'Value can not be null',
  VALUE_TOO_LONG: 'Value is too long',
  VALUE_OUT_OF_RANGE: 'Value is out of range',
  INVALID_PAYLOAD: 'Invalid payload. A value has the wrong format for its column.',
}

/** Returns the API error for a driver error, or the error itself when it is not one a client can cause. */
export function mapDbError(error: unknown, collection: Collection, dialect: Dialect): unknown {
  if (error instanceof ItemsError || typeof error !== 'object' || error === null) return error
  const mapped = dialect.recogniseError(error, collection)
  if (!mapped) return error
  // Only names the schema knows are reported: a column the API does not expose stays unnamed.
  const member = mapped.field === undefined ? undefined : collection.members.get(mapped.field)
  const field = member && !isHidden(member) ? member.name : undefined
  const extensions = {
    collection: collection.name,
    ...(field ? { field } : {}),
    ...(field && mapped.value !== undefined ? { value: mapped.value } : {}),
  }
  if (mapped.referenced) {
    return new ItemsError('INVALID_FOREIGN_KEY', 'Invalid foreign key: other items still reference this item.', extensions, {
      cause: error,
    })
  }
  const base = MESSAGES[mapped.code] ?? mapped.code
  const message = mapped.code === 'INVALID_PAYLOAD' ? base : `${base}${field ? ` (field "${field}")` : ''}.`
  return new ItemsError(mapped.code, message, extensions, { cause: error })
}
