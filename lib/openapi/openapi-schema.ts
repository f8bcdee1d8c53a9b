// Rewrites the ajv payload schemas into plain JSON Schema 2020-12 for the OpenAPI document: ajv's own keywords
// and format names become annotations a generic client understands.
import type { CustomKeyword } from '../schema/payload-validator'

type Json = Record<string, unknown>

/** The validator's custom formats and the standard format each one means (or its own name when none fits). */
const FORMATS: Readonly<Record<string, string>> = Object.freeze({
  'items-date': 'date',
  'items-timestamp': 'date-time',
  // Wall-clock values without a zone have no standard format; keep ours, an annotation to other tools.
  'items-date-time': 'items-date-time',
  'items-time': 'items-time',
})

/**
 * ajv keywords added by payload-validator.ts, kept as `x-` annotations so the document shows the rule: OpenAPI
 * allows no other unknown keyword in a schema. A keyword added there without an entry here does not compile.
 */
const KEYWORDS: Readonly<Record<CustomKeyword, string>> = Object.freeze({
  noNul: 'x-items-no-nul',
  int64: 'x-items-int64',
  decimalScale: 'x-items-decimal-scale',
  finite: 'x-items-finite',
  decimalDigits: 'x-items-decimal-digits',
  jsonValue: 'x-items-json-value',
  base64Bytes: 'x-items-base64-bytes',
  geoJson: 'x-items-geojson',
})

/** A deep copy of `schema` with ajv-only keywords and formats translated. */
export function toOpenApiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toOpenApiSchema)
  if (schema === null || typeof schema !== 'object') return schema
  const out: Json = {}
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'format' && typeof value === 'string') out.format = FORMATS[value] ?? value
    else out[KEYWORDS[key as CustomKeyword] ?? key] = toOpenApiSchema(value)
  }
  return out
}
