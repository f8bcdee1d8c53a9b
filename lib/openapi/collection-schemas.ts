// Per collection, the OpenAPI component schemas: the item as responses carry it, the create and update payloads
// (the validator's own schemas), and the filter grammar as far as JSON Schema can say it.
import { OPERATORS, type OperatorSpec } from '../query/operators'
import { isHidden, type Collection, type Field } from '../schema/collection'
import { keyFormOf } from '../schema/item-key'
import { payloadJsonSchema, type PayloadAction } from '../schema/payload-validator'
import { toOpenApiSchema } from './openapi-schema'

type Json = Record<string, unknown>

export type SchemaPart = 'Item' | 'Create' | 'Update' | 'Filter'

/** The component name of one part of a collection's schemas; OpenAPI allows `[A-Za-z0-9._-]` only. */
export const componentName = (collection: Collection, part: SchemaPart): string =>
  `${collection.name.replace(/[^A-Za-z0-9._-]/g, '_')}.${part}`

export const ref = (collection: Collection, part: SchemaPart): Json => ({ $ref: `#/components/schemas/${componentName(collection, part)}` })

const NULL = { type: 'null' }

/** A non-null value as a response carries it. */
export const responseValue = (field: Field): Json =>
  toOpenApiSchema(field.spec.responseSchema?.(field) ?? field.spec.jsonSchema(field)) as Json

/** A composite key's text form (the path's): its components in key order, percent-encoded, joined by commas. */
export const keyTextSchema = (collection: Collection): Json => ({
  type: 'string',
  description: `The key's components in key order (${keyFormOf(collection)}), each percent-encoded, joined by ","`,
})

/** A composite key as an object of every key field, as lists of keys answer it. */
const keyObjectSchema = (collection: Collection): Json => ({
  type: 'object',
  required: collection.key.map((field) => field.name),
  properties: Object.fromEntries(collection.key.map((field) => [field.name, responseValue(field)])),
  additionalProperties: false,
})

/** A key as a response holds it in a list of keys: the key field's value, or an object of a composite key's fields. */
export const responseKey = (collection: Collection): Json =>
  collection.key.length === 1 ? responseValue(collection.primaryKey) : keyObjectSchema(collection)

/** A key as a body names it: the key field's value; a composite key as an object of its fields, or its text form. */
export const bodyKey = (collection: Collection): Json =>
  collection.key.length === 1 ? responseValue(collection.primaryKey) : { anyOf: [keyObjectSchema(collection), keyTextSchema(collection)] }

const orNull = (schema: Json, nullable: boolean): Json => (nullable ? { anyOf: [schema, NULL] } : schema)

function itemSchema(collection: Collection): Json {
  const properties: Json = {}
  for (const member of collection.members.values()) {
    if (isHidden(member)) continue
    if (member.kind === 'o2m') {
      const related = member.related
      properties[member.name] = { type: 'array', items: { anyOf: [responseKey(related), ref(related, 'Item')] } }
      continue
    }
    const value = responseValue(member)
    // A many-to-one answers its key, or the related item when `fields` reaches into it; a many-to-any the item of
    // any of its collections.
    const related = member.references ? [member.references] : (member.referencesAny?.collections ?? [])
    const shaped = related.length > 0 ? { anyOf: [value, ...related.map((each) => ref(each, 'Item'))] } : value
    properties[member.name] = orNull(shaped, member.nullable && !member.primaryKey)
  }
  // No `required`: `fields` picks what a response holds. Field functions and aliases add keys of their own.
  return {
    type: 'object',
    description: `An item of "${collection.name}". Which keys it holds follows \`fields\` (default: every field).`,
    properties,
  }
}

/** The validator's payload schema, without hidden fields: the document never names them. */
function payloadSchema(collection: Collection, action: PayloadAction): Json {
  const hidden = new Set(collection.fields.filter((field) => field.hidden).map((field) => field.name))
  const strip = (schema: Json): Json => {
    const properties = schema.properties as Json | undefined
    const required = schema.required as string[] | undefined
    return {
      ...schema,
      ...(properties ? { properties: Object.fromEntries(Object.entries(properties).filter(([name]) => !hidden.has(name))) } : {}),
      ...(required ? { required: required.filter((name) => !hidden.has(name)) } : {}),
    }
  }
  const schema = payloadJsonSchema(collection, action)
  const parts = schema.allOf as Json[] | undefined
  const converted = toOpenApiSchema(parts ? { ...schema, allOf: parts.map(strip) } : strip(schema)) as Json
  const convertedParts = converted.allOf as Json[] | undefined
  // The generated part names the fields; a schema fragment beside it only narrows them.
  return convertedParts
    ? { ...converted, allOf: [withNestedValues(collection, convertedParts[0]!), ...convertedParts.slice(1)] }
    : withNestedValues(collection, converted)
}

/** A many-to-one object: an item to create, or to update (and link) when it names its key. */
const nestedItem = (related: Collection): Json => ({ anyOf: [ref(related, 'Create'), ref(related, 'Update')] })

/**
 * A one-to-many child object. The related create schema would require the foreign key the relation sets (and a
 * child may not send), so children take the update schema; a created child's required fields are checked when
 * it is written.
 */
const childItem = (related: Collection): Json => ({
  ...ref(related, 'Update'),
  description: `An item of "${related.name}" to create, or to update and attach when it names its key; without the foreign key, which the relation sets.`,
})

/** A one-to-many value: the complete new list (keys and objects), or the detailed `{ create, update, delete }`. */
function toManyValue(related: Collection): Json {
  const key = bodyKey(related)
  return {
    anyOf: [
      {
        type: 'array',
        items: { anyOf: [key, childItem(related)] },
        description: 'The complete new set of related items: every other one is detached.',
      },
      {
        type: 'object',
        properties: {
          create: { type: 'array', items: childItem(related) },
          update: { type: 'array', items: childItem(related), description: 'Each names its key.' },
          delete: { type: 'array', items: key, description: 'Related items of this item to detach.' },
        },
        additionalProperties: false,
      },
      NULL,
    ],
  }
}

/** The payload schema with its relations' nested values: a many-to-one also takes an object, a one-to-many its list. */
function withNestedValues(collection: Collection, schema: Json): Json {
  const properties = { ...(schema.properties as Json | undefined) }
  for (const member of collection.members.values()) {
    if (isHidden(member)) continue
    if (member.kind === 'o2m') properties[member.name] = toManyValue(member.related)
    else if (member.references && properties[member.name] !== undefined) {
      properties[member.name] = { anyOf: [properties[member.name], nestedItem(member.references)] }
    } else if (member.referencesAny && properties[member.name] !== undefined) {
      // A key of any allowed collection (a number too, stored as text), or an item of one of them.
      const { collections, collectionField } = member.referencesAny
      const keys = new Map(collections.map((each) => [each.primaryKey.type, responseValue(each.primaryKey)]))
      properties[member.name] = {
        anyOf: [properties[member.name], ...keys.values(), ...collections.map(nestedItem)],
        description: `The key of an item, or an item to create or update, of the collection "${collectionField.name}" names beside it: ${collections.map((each) => each.name).join(', ')}.`,
      }
    }
  }
  return { ...schema, properties }
}

/** Filter values may also be the variables `$NOW(...)`, `$CURRENT_USER(.field)` and `$CURRENT_ROLE`. */
const VARIABLE = { type: 'string', pattern: '^\\$(NOW|CURRENT_USER|CURRENT_ROLE)' }

function operatorValue(spec: OperatorSpec, value: Json, nullable: boolean): Json {
  const one = { anyOf: [value, VARIABLE] }
  switch (spec.takes) {
    case 'value':
      return nullable ? { anyOf: [value, VARIABLE, NULL] } : one
    case 'list':
      return {
        anyOf: [
          { type: 'array', items: one },
          { type: 'string', description: 'a comma-separated list' },
        ],
      }
    case 'pair':
      return {
        anyOf: [
          { type: 'array', items: one, minItems: 2, maxItems: 2 },
          { type: 'string', description: 'two values, comma-separated' },
        ],
      }
    case 'flag':
      return { type: 'boolean' }
  }
}

function fieldFilter(field: Field): Json {
  const value = responseValue(field)
  const operators = Object.entries(OPERATORS as Readonly<Record<string, OperatorSpec>>).filter(([, spec]) =>
    spec.on.includes(field.spec.family),
  )
  return {
    type: 'object',
    properties: Object.fromEntries(operators.map(([name, spec]) => [name, operatorValue(spec, value, name === '_eq' || name === '_neq')])),
    additionalProperties: false,
  }
}

function filterSchema(collection: Collection): Json {
  const self = ref(collection, 'Filter')
  const properties: Json = {}
  for (const member of collection.members.values()) {
    if (isHidden(member)) continue
    if (member.kind === 'o2m') {
      const related = ref(member.related, 'Filter')
      properties[member.name] = { anyOf: [related, { type: 'object', properties: { _some: related, _none: related } }] }
    } else {
      properties[member.name] = member.references ? { anyOf: [fieldFilter(member), ref(member.references, 'Filter')] } : fieldFilter(member)
    }
  }
  return {
    type: 'object',
    description:
      'The `?filter` grammar: field → operator → value, nested `_and` / `_or`, many-to-one paths and `_some` / `_none` on ' +
      'one-to-many relations, and field functions as keys (`year(published_at)`, `count(comments)`). In a URL, bracket ' +
      'form (`filter[status][_eq]=published`) or a JSON string.',
    // Open, so function keys are allowed; a pattern for them would turn into an index signature in generated
    // clients that every field's operators would have to satisfy.
    properties: { ...properties, _and: { type: 'array', items: self }, _or: { type: 'array', items: self } },
  }
}

/** The four component schemas of one collection, keyed by component name. */
export function collectionSchemas(collection: Collection): Json {
  return {
    [componentName(collection, 'Item')]: itemSchema(collection),
    [componentName(collection, 'Create')]: payloadSchema(collection, 'create'),
    [componentName(collection, 'Update')]: payloadSchema(collection, 'update'),
    [componentName(collection, 'Filter')]: filterSchema(collection),
  }
}
