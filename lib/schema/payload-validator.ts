// Compiles one ajv validator per collection and action from the field definitions, and turns payloads
// into canonical values or FAILED_VALIDATION errors (one per failing field).
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { FailedValidationError, InvalidPayloadError, ItemsErrorList } from '../errors'
import type { WriteAction } from '../types'
import type { Collection, Field } from './collection'
import { decimalIntegerDigits, decimalPlaces, elementSpec, TEMPORAL_FORMATS, unstorableText, validInt64 } from './field-types'
import { base64Problem, DEFAULT_BINARY_BYTES } from './binary-value'
import { geometryProblem } from './geometry-value'
import { jsonValueProblem } from './json-value'

/** The writes that carry a payload. */
export type PayloadAction = Exclude<WriteAction, 'delete'>

/** A validated payload: field to canonical value. */
export type Payload = Map<Field, unknown>

/**
 * Who wrote a payload: a `client` may not set `readonly` fields; the `server` side (presets, declarative values,
 * before hooks, over a client payload already checked) may, but no one writes a `generated` column.
 */
export type PayloadWriter = 'client' | 'server'

export interface PayloadValidator {
  /**
   * Validates one item payload and returns its canonical values. `item` (the index in an array body) is
   * added to the errors. Throws `ItemsErrorList` of `FailedValidationError`s.
   */
  validate(action: PayloadAction, body: unknown, item?: number, writer?: PayloadWriter): Payload
}

/** A create must name it: not nullable, no default, and nothing else (database, router) fills it in. */
export function isRequiredOnCreate(field: Field): boolean {
  return (
    !field.nullable &&
    field.default === undefined &&
    !field.autoIncrement &&
    !field.readonly &&
    !(field.primaryKey && field.type === 'uuid')
  )
}

function writableFields(collection: Collection, action: PayloadAction, writer: PayloadWriter = 'client'): Field[] {
  const writable = (field: Field): boolean => (writer === 'client' ? !field.readonly : !field.generated)
  return collection.fields.filter((field) => writable(field) && !(action === 'update' && field.primaryKey))
}

/** The error for a payload field the client may not write because the server manages it. */
export function readonlyField(collection: Collection, field: string, item?: number): FailedValidationError {
  return new FailedValidationError(`Field "${field}" is read-only.`, {
    field,
    type: 'readonly',
    collection: collection.name,
    ...(item === undefined ? {} : { item }),
  })
}

/** A field's payload schema, `null` included when the field accepts it. */
export function fieldSchema(field: Field): Record<string, unknown> {
  const schema = field.spec.jsonSchema(field)
  if (field.type === 'json') return field.nullable ? { jsonValue: true } : { not: { type: 'null' }, jsonValue: true }
  return field.nullable ? { anyOf: [schema, { type: 'null' }] } : schema
}

/** The JSON Schema a payload is validated with (ajv dialect: custom formats and keywords); also the OpenAPI document's source. */
export function payloadJsonSchema(
  collection: Collection,
  action: PayloadAction,
  writer: PayloadWriter = 'client',
): Record<string, unknown> {
  const fields = writableFields(collection, action, writer)
  const generated = {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, fieldSchema(field)])),
    required: action === 'create' ? fields.filter(isRequiredOnCreate).map((field) => field.name) : [],
    additionalProperties: false,
  }
  const fragment = collection.schemaFragment
  if (!fragment) return generated
  // A fragment's `required` speaks of complete items, so updates (partial by nature) drop it.
  const { required, ...partial } = fragment
  return { allOf: [generated, action === 'create' ? { ...partial, required } : partial] }
}

function describe(error: ErrorObject, field: string, collection: Collection): string {
  switch (error.keyword) {
    case 'required':
      return `Field "${field}" is required`
    case 'enum':
      return `Field "${field}" must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`
    case 'type':
      return `Field "${field}" must be ${String(error.params.type)}`
    case 'not':
      return `Field "${field}" cannot be null`
    case 'format':
      return `Field "${field}" must be a valid ${String(error.params.format).replace(/^items-/, '')}`
    case 'maxLength':
      return `Field "${field}" must be at most ${String(error.params.limit)} characters long`
    case 'int64':
      return `Field "${field}" must be a 64-bit integer`
    case 'decimalScale': {
      const scale = collection.fields.find((candidate) => candidate.name === field)?.scale
      return `Field "${field}" has more than ${String(scale)} digits after the decimal point`
    }
    case 'noNul':
      return `Field "${field}" cannot contain the NUL character or an unpaired surrogate`
    case 'finite':
      return `Field "${field}" must be a finite number`
    case 'decimalDigits':
      return `Field "${field}" has more than ${String(error.params.digits)} digits before the decimal point`
    case 'jsonValue':
    case 'base64Bytes':
    case 'geoJson':
      return `Field "${field}" ${String(error.params.problem)}`
    case 'minimum':
    case 'maximum':
      return `Field "${field}" is out of range (${String(error.params.comparison)} ${String(error.params.limit)})`
    default:
      return `Field "${field}" ${error.message ?? 'is invalid'}`
  }
}

/** The error for a payload field that does not exist, or that the caller may not write: the same for both. */
export function unwritableField(collection: Collection, field: string, item?: number): FailedValidationError {
  return new FailedValidationError(`Field "${field}" does not exist or cannot be written.`, {
    field,
    type: 'additionalProperties',
    collection: collection.name,
    ...(item === undefined ? {} : { item }),
  })
}

function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String(error.params.missingProperty)
  if (error.keyword === 'additionalProperties') return String(error.params.additionalProperty)
  return error.instancePath.split('/')[1] ?? ''
}

/** Several keywords often fail for one bad value (anyOf and each branch): keep the most telling one per field. */
function pickPerField(errors: ErrorObject[]): Map<string, ErrorObject> {
  const byField = new Map<string, ErrorObject>()
  for (const error of errors) {
    const field = fieldOf(error)
    const current = byField.get(field)
    // The first type error names the field's own type; a nullable field's `null` branch fails too and says less.
    const moreTelling = current?.keyword === 'type' && error.keyword !== 'anyOf' && error.keyword !== 'type'
    if (!current || current.keyword === 'anyOf' || moreTelling) {
      byField.set(field, error)
    }
  }
  return byField
}

function withoutKey(body: Readonly<Record<string, unknown>>, names: readonly string[]): Record<string, unknown> {
  const rest = { ...body }
  for (const name of names) delete rest[name]
  return rest
}

/** A valid payload value in its canonical form; an array's elements each in their type's. */
function canonical(field: Field, value: unknown): unknown {
  if (value === null) return null
  if (field.spec.family !== 'array') return field.spec.fromJson(value)
  const element = elementSpec(field)
  return (value as unknown[]).map((each) => (each === null ? null : element.fromJson(each)))
}

/** The router's bounds on payload values. */
/** The keywords this validator adds to ajv; the OpenAPI document renames each (openapi-schema.ts). */
export type CustomKeyword = 'int64' | 'decimalScale' | 'noNul' | 'finite' | 'decimalDigits' | 'jsonValue' | 'base64Bytes' | 'geoJson'

export interface PayloadLimits {
  /** Deepest nesting inside a json field's value (`maxJsonDepth`). */
  readonly maxJsonDepth: number
  /** Most decoded bytes in a binary field's value (`maxBinaryBytes`). */
  readonly maxBinaryBytes: number
}

export function createPayloadValidator(
  collection: Collection,
  limits: PayloadLimits = { maxJsonDepth: 32, maxBinaryBytes: DEFAULT_BINARY_BYTES },
): PayloadValidator {
  const ajv = new Ajv({ allErrors: true, strict: false })
  addFormats(ajv)
  for (const [name, validate] of Object.entries(TEMPORAL_FORMATS)) ajv.addFormat(name, { type: 'string', validate })
  ajv.addKeyword({
    keyword: 'int64' satisfies CustomKeyword,
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown) => validInt64(data),
  })
  ajv.addKeyword({
    keyword: 'decimalScale' satisfies CustomKeyword,
    schemaType: 'number',
    validate: (scale: number, data: unknown) => decimalPlaces(data) <= scale,
  })
  ajv.addKeyword({
    keyword: 'noNul' satisfies CustomKeyword,
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown) => typeof data !== 'string' || !unstorableText(data),
  })
  // JSON.parse reads `1e309` as Infinity, which would be stored as NULL.
  ajv.addKeyword({
    keyword: 'finite' satisfies CustomKeyword,
    schemaType: 'boolean',
    validate: (_schema: boolean, data: unknown) => typeof data !== 'number' || Number.isFinite(data),
  })
  ajv.addKeyword({
    keyword: 'decimalDigits' satisfies CustomKeyword,
    schemaType: 'number',
    errors: true,
    validate: function check(digits: number, data: unknown): boolean {
      const fits = (typeof data !== 'number' && typeof data !== 'string') || decimalIntegerDigits(data) <= digits
      if (!fits)
        (check as { errors?: Partial<ErrorObject>[] }).errors = [{ keyword: 'decimalDigits' satisfies CustomKeyword, params: { digits } }]
      return fits
    },
  })
  ajv.addKeyword({
    keyword: 'jsonValue' satisfies CustomKeyword,
    schemaType: 'boolean',
    errors: true,
    validate: function check(_schema: boolean, data: unknown): boolean {
      const problem = jsonValueProblem(data, limits.maxJsonDepth)
      if (problem !== null)
        (check as { errors?: Partial<ErrorObject>[] }).errors = [{ keyword: 'jsonValue' satisfies CustomKeyword, params: { problem } }]
      return problem === null
    },
  })
  // The schema's number is the column's own bound in bytes (0: none); the budget applies to every column.
  ajv.addKeyword({
    keyword: 'base64Bytes' satisfies CustomKeyword,
    schemaType: 'number',
    errors: true,
    validate: function check(columnBytes: number, data: unknown): boolean {
      const problem = base64Problem(data, columnBytes, limits.maxBinaryBytes)
      if (problem !== null)
        (check as { errors?: Partial<ErrorObject>[] }).errors = [{ keyword: 'base64Bytes' satisfies CustomKeyword, params: { problem } }]
      return problem === null
    },
  })
  ajv.addKeyword({
    keyword: 'geoJson' satisfies CustomKeyword,
    schemaType: 'boolean',
    errors: true,
    validate: function check(_schema: boolean, data: unknown): boolean {
      const problem = geometryProblem(data)
      if (problem !== null)
        (check as { errors?: Partial<ErrorObject>[] }).errors = [{ keyword: 'geoJson' satisfies CustomKeyword, params: { problem } }]
      return problem === null
    },
  })
  const compile = (writer: PayloadWriter): Record<PayloadAction, ValidateFunction> => ({
    create: ajv.compile(payloadJsonSchema(collection, 'create', writer)),
    update: ajv.compile(payloadJsonSchema(collection, 'update', writer)),
  })
  const compiled: Record<PayloadWriter, Record<PayloadAction, ValidateFunction>> = { client: compile('client'), server: compile('server') }
  const writable: Record<PayloadWriter, Record<PayloadAction, Field[]>> = {
    client: { create: writableFields(collection, 'create'), update: writableFields(collection, 'update') },
    server: { create: writableFields(collection, 'create', 'server'), update: writableFields(collection, 'update', 'server') },
  }
  const readonlyNames = new Set(collection.fields.filter((field) => field.readonly).map((field) => field.name))
  const keyNames = collection.key.map((field) => field.name)

  return {
    validate(action, body, item, writer = 'client') {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new InvalidPayloadError(item === undefined ? 'The body must be a JSON object' : `Item ${item} must be a JSON object`)
      }
      // The primary key of an update is named by the URL or the batch form; in the payload it is ignored. The
      // body is never changed: a copy leaves the key out.
      const input =
        action === 'update' && keyNames.some((name) => Object.hasOwn(body, name))
          ? withoutKey(body as Record<string, unknown>, keyNames)
          : (body as Record<string, unknown>)

      const validate = compiled[writer][action]
      if (!validate(input)) {
        const errors = [...pickPerField(validate.errors ?? []).entries()].map(([field, error]) => {
          if (error.keyword === 'additionalProperties') {
            return readonlyNames.has(field) ? readonlyField(collection, field, item) : unwritableField(collection, field, item)
          }
          return new FailedValidationError(`${describe(error, field, collection)}.`, {
            field,
            type: error.keyword,
            collection: collection.name,
            ...(item === undefined ? {} : { item }),
          })
        })
        throw new ItemsErrorList(errors)
      }
      const payload: Payload = new Map()
      for (const field of writable[writer][action]) {
        if (!Object.hasOwn(input, field.name)) continue
        payload.set(field, canonical(field, input[field.name]))
      }
      return payload
    },
  }
}
