// Turns the JavaScript values drivers build (Buffer, Date, number) into the text the field type table parses;
// each dialect applies the ones its driver produces.
import { plainNumberText } from '../schema/field-types'
import { localDateTime } from '../schema/temporal'
import type { FieldType } from '../types'

/**
 * Bytes (MySQL's binary casts and columns, SQLite's BLOB values) as the UTF-8 text they hold; a `binary`
 * field's bytes stay bytes (its type reads them as base64), and so does a geometry's WKB.
 */
export const bufferText = (raw: unknown, type: FieldType): unknown =>
  Buffer.isBuffer(raw) && type !== 'binary' && type !== 'geometry' ? raw.toString('utf8') : raw

/**
 * A Date for a temporal column as the text it stands for. Drivers build Dates for zone-less columns in the
 * process's zone, so their local fields are the wall clock; only a timestamp is an instant.
 */
export function dateText(raw: unknown, type: FieldType): unknown {
  if (!(raw instanceof Date)) return raw
  switch (type) {
    case 'date':
      return localDateTime(raw).slice(0, 10)
    case 'dateTime':
      return localDateTime(raw)
    case 'time':
      return localDateTime(raw).slice(11)
    case 'timestamp':
      return raw.toISOString()
    default:
      return raw
  }
}

/**
 * A number for an exact type as its digits: drivers hand over insert ids, and SQLite its numeric values, as
 * numbers, whose own text may use an exponent (1e+21, 1e-7).
 */
export const numberText = (raw: unknown, type: FieldType): unknown =>
  typeof raw === 'number' && (type === 'bigInteger' || type === 'decimal') ? plainNumberText(raw) : raw
