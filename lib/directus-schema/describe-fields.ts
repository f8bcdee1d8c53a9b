// Builds Directus's field answers (/fields) from the router's members: the database and behaviour parts from the
// schema, the Directus-app parts with neutral values that tools reading them can work with.
import type { Field, Member, O2MRelation } from '../schema/collection'
import { isRequiredOnCreate } from '../schema/payload-validator'
import type { FieldType } from '../types'
import type { DirectusField, DirectusFieldSchema, Json } from './directus-shapes'
import type { VisibleSchema } from './visible-schema'

interface TypeDescription {
  /** `schema.data_type`: the SQL type the field type stands for (the router does not read the catalog here). */
  readonly dataType: string
  /** `meta.interface`: the editor Directus would pick; type generators read some of them (`input-code`, `tags`). */
  readonly interface: string
  /** `meta.special`: the casts Directus applies to such a value. */
  readonly special: readonly string[]
}

/** One row per field type: a new type does not compile until it says how Directus would describe it. */
const TYPE_DESCRIPTIONS: Readonly<Record<FieldType, TypeDescription>> = Object.freeze({
  string: { dataType: 'varchar', interface: 'input', special: [] },
  text: { dataType: 'text', interface: 'input-multiline', special: [] },
  integer: { dataType: 'integer', interface: 'input', special: [] },
  bigInteger: { dataType: 'bigint', interface: 'input', special: [] },
  float: { dataType: 'float', interface: 'input', special: [] },
  decimal: { dataType: 'decimal', interface: 'input', special: [] },
  boolean: { dataType: 'boolean', interface: 'boolean', special: ['cast-boolean'] },
  date: { dataType: 'date', interface: 'datetime', special: [] },
  dateTime: { dataType: 'datetime', interface: 'datetime', special: [] },
  timestamp: { dataType: 'timestamp', interface: 'datetime', special: ['cast-timestamp'] },
  time: { dataType: 'time', interface: 'datetime', special: [] },
  // Generators type `input-code` json as an object; `json` alone becomes the literal type 'json'.
  json: { dataType: 'json', interface: 'input-code', special: ['cast-json'] },
  uuid: { dataType: 'uuid', interface: 'input', special: [] },
  // Directus has no array columns; as json, with `tags` (a list of strings) where the elements are text.
  array: { dataType: 'array', interface: 'input-code', special: ['cast-json'] },
  binary: { dataType: 'binary', interface: 'input', special: [] },
  // Directus keeps a list of strings as `csv`; its members are the field's `enum`.
  geometry: { dataType: 'geometry', interface: 'map', special: [] },
  set: { dataType: 'set', interface: 'select-multiple-checkbox', special: ['cast-csv'] },
})

/** Directus's `type` for a field type: the same name, but arrays, which Directus only knows as json. */
const directusType = (field: Field): string => (field.type === 'array' ? 'json' : field.type === 'set' ? 'csv' : field.type)

/** `meta.special`: the casts, the relation kind, and the values the router writes itself. */
function special(field: Field, relatedShown: boolean): string[] | null {
  const list = [...TYPE_DESCRIPTIONS[field.type].special]
  if (relatedShown) list.push('m2o')
  if (field.primaryKey && field.type === 'uuid' && !field.autoIncrement) list.push('uuid')
  if (field.onCreate === 'now') list.push('date-created')
  if (field.onCreate === 'user') list.push('user-created')
  if (field.onUpdate === 'now') list.push('date-updated')
  if (field.onUpdate === 'user') list.push('user-updated')
  return list.length > 0 ? list : null
}

function editor(field: Field, relatedShown: boolean): { interface: string; options: Json } {
  if (relatedShown) return { interface: 'select-dropdown-m2o', options: null }
  // Generators make a union of literal types from these choices.
  if (field.enum !== undefined)
    return { interface: 'select-dropdown', options: { choices: field.enum.map((value) => ({ text: value, value })) } }
  const textElements = field.type === 'array' && (field.elementType === 'string' || field.elementType === 'text')
  return { interface: textElements ? 'tags' : TYPE_DESCRIPTIONS[field.type].interface, options: null }
}

/** The Directus-app keys that change nothing in the API, with the values a new field gets in Directus. */
const APP_ONLY = {
  display: null,
  display_options: null,
  hidden: false,
  width: 'full',
  translations: null,
  note: null,
  conditions: null,
  group: null,
  validation: null,
  validation_message: null,
} as const

/** `meta` in Directus's key order, the app-only keys from APP_ONLY. */
function orderedMeta(own: {
  id: number
  collection: string
  field: string
  special: string[] | null
  interface: string
  options: Json
  readonly: boolean
  sort: number
  required: boolean
}): Record<string, Json> {
  const app = APP_ONLY
  return {
    id: own.id,
    collection: own.collection,
    field: own.field,
    special: own.special,
    interface: own.interface,
    options: own.options,
    display: app.display,
    display_options: app.display_options,
    readonly: own.readonly,
    hidden: app.hidden,
    sort: own.sort,
    width: app.width,
    translations: app.translations,
    note: app.note,
    conditions: app.conditions,
    required: own.required,
    group: app.group,
    validation: app.validation,
    validation_message: app.validation_message,
    // Every field the caller sees takes part in ?search as its type allows.
    searchable: true,
  }
}

function columnSchema(field: Field, sight: VisibleSchema): DirectusFieldSchema {
  const target = sight.related(field)
  return {
    name: field.column,
    table: field.collection.table,
    data_type: TYPE_DESCRIPTIONS[field.type].dataType,
    default_value: (field.default ?? null) as Json,
    max_length: field.maxLength ?? null,
    numeric_precision: field.precision ?? null,
    numeric_scale: field.scale ?? null,
    is_generated: field.generated,
    generation_expression: null,
    is_nullable: field.nullable,
    // A component of a composite key is unique only together with the others.
    is_unique: field.unique || (field.primaryKey && field.collection.key.length === 1),
    is_indexed: field.unique || field.primaryKey,
    is_primary_key: field.primaryKey,
    has_auto_increment: field.autoIncrement,
    foreign_key_column: target ? target.primaryKey.column : null,
    foreign_key_table: target ? target.table : null,
  }
}

/** The field's `meta`; `id` is the field's place among those shown (see FieldIds). */
function fieldMeta(member: Member, id: number, sort: number, sight: VisibleSchema): Record<string, Json> {
  const common = { id, collection: member.collection.name, field: member.name, sort }
  if (member.kind === 'o2m') {
    // A one-to-many to a junction whose item is a many-to-any is Directus's `m2a` alias.
    const anyJunction = member.related.fields.some((field) => field.referencesAny !== undefined)
    const kind = anyJunction ? 'm2a' : 'o2m'
    return orderedMeta({ ...common, special: [kind], interface: `list-${kind}`, options: null, readonly: false, required: false })
  }
  const relatedShown = sight.related(member) !== undefined
  return orderedMeta({
    ...common,
    special: special(member, relatedShown),
    ...editor(member, relatedShown),
    readonly: member.readonly || member.generated,
    required: isRequiredOnCreate(member),
  })
}

const aliasField = (relation: O2MRelation, meta: Record<string, Json>): DirectusField => ({
  collection: relation.collection.name,
  field: relation.name,
  type: 'alias',
  schema: null,
  meta,
})

/** The answer for one member, `schema` before `meta` as Directus's lists put them. */
export function describeField(member: Member, sight: VisibleSchema, ids: FieldIds): DirectusField {
  const sort = sight.members(member.collection).indexOf(member) + 1
  const meta = fieldMeta(member, ids.of(member), sort, sight)
  if (member.kind === 'o2m') return aliasField(member, meta)
  return { collection: member.collection.name, field: member.name, type: directusType(member), schema: columnSchema(member, sight), meta }
}

/**
 * Each shown member's `meta.id`: its place among the members this caller is shown, from 1. Directus's ids are
 * row ids that change with every re-seed, so no tool can rely on them; counting only what is shown leaves no gap
 * where a field the caller may not see would be.
 */
export class FieldIds {
  private readonly ids = new Map<Member, number>()

  constructor(sight: VisibleSchema) {
    for (const collection of sight.collections) for (const member of sight.members(collection)) this.ids.set(member, this.ids.size + 1)
  }

  of(member: Member): number {
    return this.ids.get(member)!
  }
}
