// Maps driver errors (pg SQLSTATE, mysql2 codes, better-sqlite3 codes) to API errors; the original is kept as
// `cause` for logs and never sent to the client. Errors it does not recognise pass through unchanged (500).
import { ItemsError, type ErrorCode } from '../errors'
import type { Collection } from '../schema/collection'

interface DriverError {
  code?: unknown
  message?: unknown
  /** pg */
  column?: unknown
  detail?: unknown
  constraint?: unknown
}

/** `referenced`: the write would leave other rows pointing at a missing item (a delete of a referenced row). */
type Mapped = { code: ErrorCode; field?: string; value?: string; referenced?: boolean }

const MESSAGES: Readonly<Partial<Record<ErrorCode, string>>> = {
  RECORD_NOT_UNIQUE: 'Value has to be unique',
  INVALID_FOREIGN_KEY: 'Invalid foreign key',
  NOT_NULL_VIOLATION: 'Value can not be null',
  VALUE_TOO_LONG: 'Value is too long',
  VALUE_OUT_OF_RANGE: 'Value is out of range',
  INVALID_PAYLOAD: 'Invalid payload. A value has the wrong format for its column.',
}

function fromPostgres(error: DriverError): Mapped | null {
  const detail = typeof error.detail === 'string' ? error.detail : ''
  // "Key (email)=(ada@example.com) already exists." / "Key (author)=(99) is not present in table ..."
  const key = /Key \(([^)]+)\)=\((.*)\)/.exec(detail)
  const keyed = key ? { field: key[1], value: key[2] } : {}
  switch (error.code) {
    case '23505':
      return { code: 'RECORD_NOT_UNIQUE', ...keyed }
    // On a delete, the key in the detail is the deleted item's own, not a foreign key.
    case '23503':
      return detail.includes('still referenced')
        ? { code: 'INVALID_FOREIGN_KEY', referenced: true }
        : { code: 'INVALID_FOREIGN_KEY', ...keyed }
    case '23502':
      return { code: 'NOT_NULL_VIOLATION', field: typeof error.column === 'string' ? error.column : undefined }
    case '22001':
      return { code: 'VALUE_TOO_LONG' }
    case '22003':
      return { code: 'VALUE_OUT_OF_RANGE' }
    case '22P02':
    case '22007':
    case '22008':
      return { code: 'INVALID_PAYLOAD' }
    default:
      return null
  }
}

/** MySQL names the index, not the column: PRIMARY, or knex's `<table>_<column>_unique`, or the column itself. */
function fieldOfIndex(index: string | undefined, collection: Collection): string | undefined {
  if (index === undefined) return undefined
  const name = index.includes('.') ? index.slice(index.lastIndexOf('.') + 1) : index
  if (name === 'PRIMARY') return collection.primaryKey.name
  return collection.fields.find((field) => name === field.column || name === `${collection.table}_${field.column}_unique`)?.name
}

function fromMysql(error: DriverError, message: string, collection: Collection): Mapped | null {
  const quoted = (pattern: RegExp): string | undefined => pattern.exec(message)?.[1]
  switch (error.code) {
    case 'ER_DUP_ENTRY':
      return {
        code: 'RECORD_NOT_UNIQUE',
        field: fieldOfIndex(quoted(/for key '([^']+)'/), collection),
        value: quoted(/Duplicate entry '(.*)' for key/),
      }
    case 'ER_NO_REFERENCED_ROW':
    case 'ER_NO_REFERENCED_ROW_2':
      return { code: 'INVALID_FOREIGN_KEY', field: quoted(/FOREIGN KEY \(`([^`]+)`\)/) }
    case 'ER_ROW_IS_REFERENCED':
    case 'ER_ROW_IS_REFERENCED_2':
      return { code: 'INVALID_FOREIGN_KEY', referenced: true }
    case 'ER_BAD_NULL_ERROR':
      return { code: 'NOT_NULL_VIOLATION', field: quoted(/Column '([^']+)'/) }
    case 'ER_NO_DEFAULT_FOR_FIELD':
      return { code: 'NOT_NULL_VIOLATION', field: quoted(/Field '([^']+)'/) }
    case 'ER_DATA_TOO_LONG':
      return { code: 'VALUE_TOO_LONG', field: quoted(/column '([^']+)'/) }
    case 'ER_WARN_DATA_OUT_OF_RANGE':
      return { code: 'VALUE_OUT_OF_RANGE', field: quoted(/column '([^']+)'/) }
    case 'ER_TRUNCATED_WRONG_VALUE':
    case 'ER_TRUNCATED_WRONG_VALUE_FOR_FIELD':
      return { code: 'INVALID_PAYLOAD', field: quoted(/column '([^']+)'/) }
    default:
      return null
  }
}

function fromSqlite(error: DriverError, message: string): Mapped | null {
  // "UNIQUE constraint failed: authors.email" / "NOT NULL constraint failed: authors.name"
  const field = /constraint failed: [^.\s]+\.(\w+)/.exec(message)?.[1]
  switch (error.code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
      return { code: 'RECORD_NOT_UNIQUE', field }
    case 'SQLITE_CONSTRAINT_NOTNULL':
      return { code: 'NOT_NULL_VIOLATION', field }
    // Writes are checked against references before they run, so this is a delete of a referenced row.
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      return { code: 'INVALID_FOREIGN_KEY', referenced: true }
    case 'SQLITE_TOOBIG':
      return { code: 'VALUE_TOO_LONG' }
    default:
      return null
  }
}

function recognise(error: DriverError, collection: Collection): Mapped | null {
  const code = typeof error.code === 'string' ? error.code : ''
  const message = typeof error.message === 'string' ? error.message : ''
  if (code.startsWith('SQLITE_')) return fromSqlite(error, message)
  if (code.startsWith('ER_')) return fromMysql(error, message, collection)
  if (/^[0-9A-Z]{5}$/.test(code)) return fromPostgres(error)
  return null
}

/** Returns the API error for a driver error, or the error itself when it is not one a client can cause. */
export function mapDbError(error: unknown, collection: Collection): unknown {
  if (error instanceof ItemsError || typeof error !== 'object' || error === null) return error
  const mapped = recognise(error as DriverError, collection)
  if (!mapped) return error
  // Only names the schema knows are reported: a column the API does not expose stays unnamed.
  const field = mapped.field && collection.members.has(mapped.field) && !isHidden(collection, mapped.field) ? mapped.field : undefined
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

function isHidden(collection: Collection, name: string): boolean {
  const member = collection.members.get(name)
  return member?.kind === 'field' && member.hidden
}
