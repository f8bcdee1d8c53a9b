// The rules of each field type in one table: payload schema, input coercion and the JSON a response carries.
import type { FieldType } from '../types'
import { bytesToBase64, isBase64 } from './binary-value'
import { geometryProblem, wkbToGeometry } from './geometry-value'
import { parseDate, parseDateTime, parseTime, parseTimestamp } from './temporal'

/** What filter operators and search may do with a type. */
export type TypeFamily = 'string' | 'number' | 'boolean' | 'temporal' | 'json' | 'uuid' | 'array' | 'binary' | 'geometry'

/** The field facts a type's rules may need. */
export interface TypedField {
  readonly type: FieldType
  readonly maxLength?: number
  readonly scale?: number
  readonly precision?: number
  /** For `array` fields: the elements' type. */
  readonly elementType?: FieldType
  /** For text fields: the only values accepted. */
  readonly enum?: readonly string[]
}

/** A canonical value as the comparisons of this table see it. */
type Canonical = string | number | boolean

export interface FieldTypeSpec {
  readonly family: TypeFamily
  /** Text that equality, sort, grouping and counting treat exactly, by code point (whatever the collation). */
  readonly text: boolean
  /** A number carried as decimal text so that no digit is lost: summed and compared exactly. */
  readonly exact: boolean
  /** The type may be a primary key. */
  readonly keyable: boolean
  /** Date parts (`year()` ... `weekday()`) and time parts (`hour()` ... `second()`) can be taken from it. */
  readonly parts: { readonly date: boolean; readonly time: boolean }
  /** The part of a `$NOW` instant (ISO-8601 UTC) the type stores; undefined for non-temporal types. */
  fromNow?(iso: string): string
  /** Orders two canonical values: negative, zero or positive. */
  compare(a: Canonical, b: Canonical): number
  /** JSON Schema for a non-null payload value. */
  jsonSchema(field: TypedField): Record<string, unknown>
  /**
   * JSON Schema for a non-null value as responses carry it, for types whose answers are narrower than what
   * they accept (exact numbers answer as text). Absent: the payload schema describes responses too.
   */
  responseSchema?(field: TypedField): Record<string, unknown>
  /** A JSON value (payload or JSON filter) to the canonical form, or undefined when it is not one. */
  fromJson(value: unknown): unknown
  /** Query-string text to the canonical form, or undefined when it is not one. */
  fromText(text: string): unknown
  /**
   * A value read from the database to the canonical form; the same JSON on every database. Driver-built values
   * (Buffer, Date, numbers for exact types) reach it as text: see the dialects' `readValue`.
   */
  fromDatabase(raw: unknown, field: TypedField): unknown
  /**
   * The JavaScript type of driver values that `fromDatabase` (after any dialect's `readValue`) answers unchanged:
   * an integer's number, a string's text. fromStorage returns those as they are, skipping two calls on most
   * values a read returns; spec/dialects/read-value.spec.ts holds each type to it.
   */
  readonly readsAsItself?: 'number' | 'string' | 'boolean'
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
  // `1e309` matches the pattern but is Infinity, which no database column holds as a number.
  return FLOAT_TEXT.test(text.trim()) && Number.isFinite(Number(text)) ? Number(text) : undefined
}

const [MINUS, POINT, ZERO, NINE] = [0x2d, 0x2e, 0x30, 0x39]

/**
 * The digits after the point of text already in canonical form up to its scale: an optional `-` before a non-zero
 * integer part, no leading zero, digits after a point if there is one. -1 for any other text (`+1`, `007`, `.5`,
 * `-0.5`, `1e5`), which the full rules of formatDecimal handle.
 */
function canonicalFractionDigits(text: string): number {
  const start = text.charCodeAt(0) === MINUS ? 1 : 0
  let point = -1
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === POINT && point === -1) point = index
    else if (code < ZERO || code > NINE) return -1
  }
  const integerDigits = (point === -1 ? text.length : point) - start
  if (integerDigits === 0 || point === text.length - 1) return -1
  if (text.charCodeAt(start) === ZERO && (integerDigits > 1 || start === 1)) return -1
  return point === -1 ? 0 : text.length - point - 1
}

/** Canonical decimal text: no `+`, no leading zeros, `scale` digits after the point (or trailing zeros trimmed). */
export function formatDecimal(text: string, scale?: number): string {
  // Most stored values need at most zeros appended: an export formats one per row and column.
  if (scale !== undefined) {
    const digits = canonicalFractionDigits(text)
    if (digits === scale) return text
    if (digits >= 0 && digits < scale) return `${text}${digits === 0 ? '.' : ''}${'0'.repeat(scale - digits)}`
  }
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

/** Places after the point that `fewPlaces` tries; beyond them, String() does the work. */
const FEW_PLACES = 6

/**
 * A number as the text of the decimal of at most FEW_PLACES places (and under 10^15 units of its last place) that
 * reads back as it, or null when there is none. Under 15 significant digits, no other decimal as short reads back
 * as the same double, so this is what String() writes; built from integers, it costs a fraction of String()'s
 * shortest-digits search for a double, which an export of a decimal column pays per row.
 */
function fewPlaces(value: number): string | null {
  for (let places = 1, scale = 10; places <= FEW_PLACES; places++, scale *= 10) {
    const units = Math.round(value * scale)
    // A multiple of 10 is the decimal of one place less, so it was tried (and failed) already.
    if (units / scale !== value || units % 10 === 0 || Math.abs(units) >= 1e15) continue
    const digits = String(Math.abs(units)).padStart(places + 1, '0')
    return `${units < 0 ? '-' : ''}${digits.slice(0, digits.length - places)}.${digits.slice(digits.length - places)}`
  }
  return null
}

/**
 * A number as decimal text: the shortest form that reads back as the same double (what String() gives, so
 * 0.05 stays "0.05"), with exponent notation (1e-7, 1e+21) spelled out.
 */
export function plainNumberText(value: number): string {
  if (!Number.isInteger(value)) {
    const fixed = fewPlaces(value)
    if (fixed !== null) return fixed
  }
  const text = String(value)
  if (!text.includes('e')) return text
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text)
  if (!match) return text
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
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

const NO_PARTS = { date: false, time: false } as const

const compareText = (a: Canonical, b: Canonical): number => {
  const [x, y] = [String(a), String(b)]
  return x < y ? -1 : x > y ? 1 : 0
}
const compareNumbers = (a: Canonical, b: Canonical): number => Number(a) - Number(b)

/** Compares canonical decimal strings exactly, as integers at a common scale. */
export function compareDecimals(a: Canonical, b: Canonical): number {
  const [x, y] = [String(a), String(b)]
  const scale = Math.max(x.split('.')[1]?.length ?? 0, y.split('.')[1]?.length ?? 0)
  const scaled = (text: string): bigint => {
    const [whole = '0', fraction = ''] = text.split('.')
    return BigInt(whole + fraction.padEnd(scale, '0'))
  }
  const difference = scaled(x) - scaled(y)
  return difference < 0n ? -1 : difference > 0n ? 1 : 0
}

/** Facts shared by most types; each entry of the table overrides what differs. */
const plain = {
  text: false,
  exact: false,
  keyable: false,
  parts: NO_PARTS,
  compare: compareText,
} as const

/** PostgreSQL cannot store NUL in text, so no database gets one: the same 400 everywhere. */
/**
 * Text no database stores as given: NUL (PostgreSQL refuses it, others cut or keep it) or an unpaired UTF-16
 * surrogate (PostgreSQL and MySQL would store U+FFFD instead, so the value read back would differ).
 */
export const unstorableText = (text: string): boolean => text.includes('\u0000') || /\p{Cs}/u.test(text)

/** The most significant digits of a decimal on every supported database (MySQL's DECIMAL maximum). */
export const MAX_DECIMAL_PRECISION = 65

/** Digits before the point of a decimal input (leading zeros and sign aside). */
export function decimalIntegerDigits(value: unknown): number {
  const text = typeof value === 'number' ? plainNumberText(value) : String(value)
  return text.replace(/^[+-]/, '').split('.')[0]!.replace(/^0+/, '').length
}

const stringSpec = (): FieldTypeSpec => ({
  ...plain,
  family: 'string',
  text: true,
  keyable: true,
  jsonSchema: (field) => ({
    type: 'string',
    noNul: true,
    ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
    ...(field.enum === undefined ? {} : { enum: [...field.enum] }),
  }),
  fromJson: (value) =>
    typeof value === 'string' ? (unstorableText(value) ? undefined : value) : typeof value === 'number' ? String(value) : undefined,
  fromText: (text) => (unstorableText(text) ? undefined : text),
  fromDatabase: (raw) => String(raw),
  readsAsItself: 'string',
})

function temporalSpec(
  format: string,
  parse: (text: string) => string | null,
  parts: FieldTypeSpec['parts'],
  fromNow: (iso: string) => string,
): FieldTypeSpec {
  return {
    ...plain,
    family: 'temporal',
    parts,
    fromNow,
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
    ...plain,
    family: 'number',
    keyable: true,
    compare: compareNumbers,
    jsonSchema: () => ({ type: 'integer', minimum: INT32_MIN, maximum: INT32_MAX }),
    fromJson: integerFromJson,
    fromText: integerFromJson,
    fromDatabase: (raw) => Number(raw),
    readsAsItself: 'number',
  },
  bigInteger: {
    ...plain,
    family: 'number',
    exact: true,
    keyable: true,
    compare: compareDecimals,
    jsonSchema: () => ({ anyOf: [{ type: 'integer' }, { type: 'string', pattern: INTEGER_TEXT.source }], int64: true }),
    responseSchema: () => ({ type: 'string', pattern: INTEGER_TEXT.source }),
    fromJson: bigIntegerFromJson,
    fromText: bigIntegerFromJson,
    fromDatabase: (raw) => BigInt(String(raw)).toString(),
  },
  float: {
    ...plain,
    family: 'number',
    compare: compareNumbers,
    jsonSchema: () => ({ type: 'number', finite: true }),
    fromJson: (value) =>
      typeof value === 'number' && Number.isFinite(value) ? value : typeof value === 'string' ? floatFromText(value) : undefined,
    fromText: floatFromText,
    fromDatabase: (raw) => Number(raw),
    readsAsItself: 'number',
  },
  decimal: {
    ...plain,
    family: 'number',
    exact: true,
    compare: compareDecimals,
    jsonSchema: (field) => ({
      anyOf: [
        { type: 'number', finite: true },
        { type: 'string', pattern: DECIMAL_TEXT.source },
      ],
      ...(field.scale === undefined ? {} : { decimalScale: field.scale }),
      decimalDigits: (field.precision ?? MAX_DECIMAL_PRECISION) - (field.scale ?? 0),
    }),
    responseSchema: () => ({ type: 'string', pattern: DECIMAL_TEXT.source }),
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
    ...plain,
    family: 'boolean',
    compare: compareNumbers,
    jsonSchema: () => ({ type: 'boolean' }),
    fromJson: (value) => (typeof value === 'boolean' ? value : typeof value === 'string' ? booleanFromText(value) : undefined),
    fromText: booleanFromText,
    // Text forms: SQLite and MySQL store 1/0, PostgreSQL's text cast gives 't'/'f', other writers 'true'.
    fromDatabase: (raw) => (typeof raw === 'string' ? raw === '1' || raw === 't' || raw.toLowerCase() === 'true' : Boolean(raw)),
    readsAsItself: 'boolean',
  },
  // `$NOW` is an instant; each temporal type keeps the part of it that it stores (the UTC wall clock).
  date: temporalSpec('items-date', parseDate, { date: true, time: false }, (iso) => iso.slice(0, 10)),
  dateTime: temporalSpec('items-date-time', parseDateTime, { date: true, time: true }, (iso) => iso.slice(0, 19)),
  timestamp: temporalSpec('items-timestamp', parseTimestamp, { date: true, time: true }, (iso) => iso),
  time: temporalSpec('items-time', parseTime, { date: false, time: true }, (iso) => iso.slice(11, 19)),
  json: {
    ...plain,
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
    ...plain,
    family: 'uuid',
    keyable: true,
    jsonSchema: () => ({ type: 'string', format: 'uuid' }),
    fromJson: (value) => (typeof value === 'string' && UUID_TEXT.test(value) ? value.toLowerCase() : undefined),
    fromText: (text) => (UUID_TEXT.test(text) ? text.toLowerCase() : undefined),
    fromDatabase: (raw) => String(raw).toLowerCase(),
  },
  array: arraySpec(),
  // A MySQL SET: its members (`enum`) as a JSON array. Filters take one member (see parse-filter).
  set: {
    ...plain,
    family: 'array',
    jsonSchema: (field) => ({
      type: 'array',
      items: { type: 'string', ...(field.enum === undefined ? {} : { enum: [...field.enum] }) },
      uniqueItems: true,
    }),
    fromJson: (value) => value,
    fromText: (text) => text,
    // MySQL answers the members joined by commas, in the column's order; a member cannot hold a comma.
    fromDatabase: (raw) => (String(raw) === '' ? [] : String(raw).split(',')),
  },
  // GeoJSON in and out; the column is read as WKB (see the dialect's `spatial`) and parsed here.
  geometry: {
    ...plain,
    family: 'geometry',
    jsonSchema: () => ({ type: 'object', geoJson: true }),
    fromJson: (value) => (geometryProblem(value) === null ? value : undefined),
    fromText: (text) => {
      try {
        const value: unknown = JSON.parse(text)
        return geometryProblem(value) === null ? value : undefined
      } catch {
        return undefined
      }
    },
    fromDatabase: (raw) => (raw instanceof Uint8Array ? wkbToGeometry(raw) : typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw),
  },
  // Bytes as base64 text; the bound (column's length, `maxBinaryBytes`) is the payload validator's keyword.
  binary: {
    ...plain,
    family: 'binary',
    jsonSchema: (field) => ({ type: 'string', contentEncoding: 'base64', base64Bytes: field.maxLength ?? 0 }),
    fromJson: (value) => (isBase64(value) ? value : undefined),
    fromText: (text) => (isBase64(text) ? text : undefined),
    fromDatabase: (raw) => bytesToBase64(raw),
  },
})

/** The element type's rules of an array field. */
export const elementSpec = (field: TypedField): FieldTypeSpec => FIELD_TYPES[field.elementType ?? 'string']

/** The element types an array field may have. */
export const ARRAY_ELEMENT_TYPES: readonly FieldType[] = [
  'string',
  'text',
  'integer',
  'bigInteger',
  'float',
  'decimal',
  'boolean',
  'date',
  'dateTime',
  'timestamp',
  'time',
  'uuid',
]

/**
 * A PostgreSQL array: a JSON array of the element type's values. Its elements are read as text (see the
 * dialect's `readArray`), each parsed by the element type, so the answer does not depend on pg's array parsers.
 */
function arraySpec(): FieldTypeSpec {
  const elements = (value: unknown, each: (element: unknown) => unknown): unknown[] | undefined => {
    if (!Array.isArray(value)) return undefined
    const mapped = value.map((element) => (element === null ? null : each(element)))
    return mapped.includes(undefined) ? undefined : mapped
  }
  return {
    ...plain,
    family: 'array',
    jsonSchema: (field) => {
      const element = elementSpec(field)
      return { type: 'array', items: { anyOf: [element.jsonSchema({ ...field, type: field.elementType ?? 'string' }), { type: 'null' }] } }
    },
    responseSchema: (field) => {
      const element = elementSpec(field)
      const typed = { ...field, type: field.elementType ?? 'string' }
      return { type: 'array', items: { anyOf: [(element.responseSchema ?? element.jsonSchema)(typed), { type: 'null' }] } }
    },
    // A filter value (`_contains`) is one element; see parse-filter.
    fromJson: (value) => value,
    fromText: (text) => text,
    fromDatabase: (raw, field) => {
      const element = elementSpec(field)
      const list = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw
      return elements(list, (item) => element.fromDatabase(item, { ...field, type: field.elementType ?? 'string' })) ?? raw
    },
  }
}

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
