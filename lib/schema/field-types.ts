// The rules of each field type in one table: payload schema, input coercion and the JSON a response carries.
import type { FieldType } from '../types'
import { parseDate, parseDateTime, parseTime, parseTimestamp } from './temporal'

/** What filter operators and search may do with a type. */
export type TypeFamily = 'string' | 'number' | 'boolean' | 'temporal' | 'json' | 'uuid'

/** The field facts a type's rules may need. */
export interface TypedField {
  readonly type: FieldType
  readonly maxLength?: number
  readonly scale?: number
}

export interface FieldTypeSpec {
  readonly family: TypeFamily
  /** JSON Schema for a non-null payload value. */
  jsonSchema(field: TypedField): Record<string, unknown>
  /** A JSON value (payload or JSON filter) to the canonical form, or undefined when it is not one. */
  fromJson(value: unknown): unknown
  /** Query-string text to the canonical form, or undefined when it is not one. */
  fromText(text: string): unknown
  /**
   * A value read from the database to the canonical form; the same JSON on every database. Driver-built values
   * (Buffer, Date, numbers for exact types) reach it as text: see the dialects' `readValue`.
   */
  fromDatabase(raw: unknown, field: TypedField): unknown
}

const INT32_MIN = -2_147_483_648
const INT32_MAX = 2_147_483_647
const INTEGER_TEXT = /^[+-]?\d+$/
const DECIMAL_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)$/
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i
export const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** Integers outside the column's range are refused here: PostgreSQL fails a query that binds one. */
function integerFromJson(value: unknown): number | undefined {
  const number = typeof value === 'string' ? (INTEGER_TEXT.test(value) ? Number(value) : undefined) : value
  return Number.isInteger(number) && (number as number) >= INT32_MIN && (number as number) <= INT32_MAX ? (number as number) : undefined
}

function bigIntegerFromJson(value: unknown): string | undefined {
  if (!Number.isSafeInteger(value) && !(typeof value === 'string' && INTEGER_TEXT.test(value))) return undefined
  const big = BigInt(value as string | number)
  return big >= INT64_MIN && big <= INT64_MAX ? big.toString() : undefined
}

function floatFromText(text: string): number | undefined {
  return FLOAT_TEXT.test(text.trim()) ? Number(text) : undefined
}

/** Canonical decimal text: no `+`, no leading zeros, `scale` digits after the point (or trailing zeros trimmed). */
export function formatDecimal(text: string, scale?: number): string {
  const negative = text.startsWith('-')
  const [whole = '', fraction = ''] = text.replace(/^[+-]/, '').split('.')
  const integerPart = whole.replace(/^0+(?=\d)/, '') || '0'
  let fractionPart = scale === undefined ? fraction.replace(/0+$/, '') : fraction.padEnd(scale, '0')
  if (scale !== undefined && fractionPart.length > scale && /^0+$/.test(fractionPart.slice(scale))) {
    fractionPart = fractionPart.slice(0, scale)
  }
  const body = fractionPart ? `${integerPart}.${fractionPart}` : integerPart
  return negative && /[1-9]/.test(body) ? `-${body}` : body
}

/**
 * A number as decimal text: the shortest form that reads back as the same double (what String() gives, so
 * 0.05 stays "0.05"), with exponent notation (1e-7, 1e+21) spelled out.
 */
export function plainNumberText(value: number): string {
  const text = String(value)
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text)
  if (!match) return text
  const [, sign, whole, fraction = '', exponent] = match
  const digits = whole + fraction
  const point = whole.length + Number(exponent)
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`
  return sign + body
}

/** PostgreSQL cannot store NUL in text, so no database gets one: the same 400 everywhere. */
export const hasNul = (text: string): boolean => text.includes('\u0000')

const stringSpec = (): FieldTypeSpec => ({
  family: 'string',
  jsonSchema: (field) => ({ type: 'string', noNul: true, ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }) }),
  fromJson: (value) =>
    typeof value === 'string' ? (hasNul(value) ? undefined : value) : typeof value === 'number' ? String(value) : undefined,
  fromText: (text) => (hasNul(text) ? undefined : text),
  fromDatabase: (raw) => String(raw),
})

function temporalSpec(format: string, parse: (text: string) => string | null): FieldTypeSpec {
  return {
    family: 'temporal',
    jsonSchema: () => ({ type: 'string', format }),
    fromJson: (value) => (typeof value === 'string' ? (parse(value) ?? undefined) : undefined),
    fromText: (text) => parse(text) ?? undefined,
    fromDatabase: (raw) => parse(String(raw)) ?? String(raw),
  }
}

export const FIELD_TYPES: Readonly<Record<FieldType, FieldTypeSpec>> = Object.freeze({
  string: stringSpec(),
  text: stringSpec(),
  integer: {
    family: 'number',
    jsonSchema: () => ({ type: 'integer', minimum: INT32_MIN, maximum: INT32_MAX }),
    fromJson: integerFromJson,
    fromText: integerFromJson,
    fromDatabase: (raw) => Number(raw),
  },
  bigInteger: {
    family: 'number',
    jsonSchema: () => ({ anyOf: [{ type: 'integer' }, { type: 'string', pattern: INTEGER_TEXT.source }], int64: true }),
    fromJson: bigIntegerFromJson,
    fromText: bigIntegerFromJson,
    fromDatabase: (raw) => BigInt(String(raw)).toString(),
  },
  float: {
    family: 'number',
    jsonSchema: () => ({ type: 'number' }),
    fromJson: (value) =>
      typeof value === 'number' && Number.isFinite(value) ? value : typeof value === 'string' ? floatFromText(value) : undefined,
    fromText: floatFromText,
    fromDatabase: (raw) => Number(raw),
  },
  decimal: {
    family: 'number',
    jsonSchema: (field) => ({
      anyOf: [{ type: 'number' }, { type: 'string', pattern: DECIMAL_TEXT.source }],
      ...(field.scale === undefined ? {} : { decimalScale: field.scale }),
    }),
    fromJson: (value) =>
      typeof value === 'number' && Number.isFinite(value)
        ? formatDecimal(plainNumberText(value))
        : typeof value === 'string' && DECIMAL_TEXT.test(value)
          ? formatDecimal(value)
          : undefined,
    fromText: (text) => (DECIMAL_TEXT.test(text) ? formatDecimal(text) : undefined),
    fromDatabase: (raw, field) => formatDecimal(String(raw), field.scale),
  },
  boolean: {
    family: 'boolean',
    jsonSchema: () => ({ type: 'boolean' }),
    fromJson: (value) => (typeof value === 'boolean' ? value : typeof value === 'string' ? booleanFromText(value) : undefined),
    fromText: booleanFromText,
    fromDatabase: (raw) => (typeof raw === 'string' ? raw === '1' || raw.toLowerCase() === 'true' : Boolean(raw)),
  },
  date: temporalSpec('items-date', parseDate),
  dateTime: temporalSpec('items-date-time', parseDateTime),
  timestamp: temporalSpec('items-timestamp', parseTimestamp),
  time: temporalSpec('items-time', parseTime),
  json: {
    family: 'json',
    jsonSchema: () => ({}),
    fromJson: (value) => value,
    fromText: (text) => text,
    fromDatabase: (raw) => {
      if (typeof raw !== 'string') return raw
      try {
        return JSON.parse(raw)
      } catch {
        return raw
      }
    },
  },
  uuid: {
    family: 'uuid',
    jsonSchema: () => ({ type: 'string', format: 'uuid' }),
    fromJson: (value) => (typeof value === 'string' && UUID_TEXT.test(value) ? value.toLowerCase() : undefined),
    fromText: (text) => (UUID_TEXT.test(text) ? text.toLowerCase() : undefined),
    fromDatabase: (raw) => String(raw).toLowerCase(),
  },
})

function booleanFromText(text: string): boolean | undefined {
  switch (text.toLowerCase()) {
    case 'true':
    case '1':
      return true
    case 'false':
    case '0':
      return false
    default:
      return undefined
  }
}

/** The validators ajv uses for the temporal formats: the same parsers that coerce the values. */
export const TEMPORAL_FORMATS: Readonly<Record<string, (text: string) => boolean>> = Object.freeze({
  'items-date': (text) => parseDate(text) !== null,
  'items-date-time': (text) => parseDateTime(text) !== null,
  'items-timestamp': (text) => parseTimestamp(text) !== null,
  'items-time': (text) => parseTime(text) !== null,
})

/**
 * Digits after the point of a decimal input. More than the field's `scale` is refused rather than rounded:
 * PostgreSQL and MySQL would round, SQLite would keep them.
 */
export function decimalPlaces(value: unknown): number {
  const text = typeof value === 'number' ? plainNumberText(value) : String(value)
  return text.includes('.') ? text.slice(text.indexOf('.') + 1).replace(/0+$/, '').length : 0
}

/** Range check for bigInteger payloads, which may arrive as numbers or digit strings. */
export const validInt64 = (value: unknown): boolean => bigIntegerFromJson(value) !== undefined

/**
 * Lower-cases text for case-insensitive matching the way PostgreSQL and MySQL do: JavaScript turns "İ" into
 * "i" plus a combining dot, which would then no longer match a plain "i"; the dot is dropped.
 */
export const foldCase = (text: string): string => text.toLowerCase().replace(/i\u0307/g, 'i')
