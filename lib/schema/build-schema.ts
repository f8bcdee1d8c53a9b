// Checks the `collections` option once and builds the normalized Schema in two passes: every collection and
// field first, then relations resolved to objects. Definite mistakes throw ConfigError.
import { ConfigError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import type { CollectionDefinition, DetachAction, FieldDefinition, LimitOptions, O2MFieldDefinition, ScalarFieldDefinition } from '../types'
import type { Collection, Field, Limits, Member, O2MRelation, Schema } from './collection'
import { ARRAY_ELEMENT_TYPES, FIELD_TYPES, MAX_DECIMAL_PRECISION } from './field-types'

type KnownKeys<T> = { readonly [K in keyof Required<T>]: true }
type Draft<T> = { -readonly [K in keyof T]: T[K] }

const COLLECTION_KEYS: KnownKeys<CollectionDefinition> = {
  table: true,
  singleton: true,
  fields: true,
  schema: true,
  versioning: true,
  lenientPayloads: true,
  defaultLimit: true,
  maxLimit: true,
  maxBatchSize: true,
  access: true,
  hooks: true,
}
const SCALAR_KEYS: KnownKeys<ScalarFieldDefinition> = {
  type: true,
  primaryKey: true,
  autoIncrement: true,
  nullable: true,
  default: true,
  maxLength: true,
  scale: true,
  precision: true,
  readonly: true,
  hidden: true,
  references: true,
  referencesAny: true,
  collectionField: true,
  onDelete: true,
  elementType: true,
  enum: true,
  unique: true,
  storage: true,
  generated: true,
  onCreate: true,
  onUpdate: true,
}

const ON_DELETE: readonly string[] = ['noAction', 'restrict', 'cascade', 'setNull', 'setDefault']
const STORAGE: readonly string[] = ['isoText', 'sqlText', 'epochMs']
const STORED_TEMPORAL: readonly string[] = ['date', 'dateTime', 'timestamp']
const MANAGED: Readonly<Record<string, (definition: ScalarFieldDefinition) => boolean>> = {
  now: (definition) => FIELD_TYPES[definition.type].family === 'temporal',
  user: (definition) => ['string', 'integer', 'bigInteger', 'uuid'].includes(definition.type),
}
const O2M_KEYS: KnownKeys<O2MFieldDefinition> = { type: true, collection: true, foreignKey: true, onDetach: true }

/** Throws for any key of `given` that `known` does not list: a misspelt option must not be ignored. */
export function checkKnownOptions(given: object, known: object, where: string): void {
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(known, key)) throw new ConfigError('CONFIG_UNKNOWN_OPTION', `${where}.${key} is not a known option`)
  }
}

export function checkPositiveInteger(value: unknown, where: string): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) {
    throw new ConfigError('CONFIG_BAD_LIMIT', `${where} must be a positive integer`)
  }
}

export function resolveLimits(options: LimitOptions, fallback: Limits, where: string): Limits {
  checkPositiveInteger(options.defaultLimit, `${where}.defaultLimit`)
  checkPositiveInteger(options.maxLimit, `${where}.maxLimit`)
  checkPositiveInteger(options.maxBatchSize, `${where}.maxBatchSize`)
  const limits: Limits = {
    defaultLimit: options.defaultLimit ?? fallback.defaultLimit,
    // A page size above the inherited cap raises the cap with it, so a larger defaultLimit alone stays valid.
    maxLimit:
      options.maxLimit ??
      (fallback.maxLimit !== undefined && options.defaultLimit !== undefined
        ? Math.max(fallback.maxLimit, options.defaultLimit)
        : fallback.maxLimit),
    maxBatchSize: options.maxBatchSize ?? fallback.maxBatchSize,
  }
  if (limits.maxLimit !== undefined && limits.defaultLimit > limits.maxLimit) {
    throw new ConfigError('CONFIG_BAD_LIMIT', `${where}.defaultLimit (${limits.defaultLimit}) exceeds maxLimit (${limits.maxLimit})`)
  }
  return limits
}

/** What the first pass leaves for the second: relation targets still named, not resolved. */
interface Pending {
  readonly references: Map<Draft<Field>, string>
  readonly anyOf: Map<Draft<Field>, { readonly collections: unknown; readonly collectionField: unknown }>
  readonly o2m: Map<Draft<O2MRelation>, { readonly related: string; readonly foreignKey: string; readonly onDetach: unknown }>
}

const fieldWhere = (collection: string, name: string): string => `collections.${collection}.fields.${name}`

function buildField(collection: Collection, name: string, definition: ScalarFieldDefinition, pending: Pending): Field {
  const where = fieldWhere(collection.name, name)
  checkKnownOptions(definition, SCALAR_KEYS, where)
  const spec = FIELD_TYPES[definition.type]
  const primaryKey = definition.primaryKey === true
  if (definition.autoIncrement && !(primaryKey && spec.keyable && spec.family === 'number')) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: autoIncrement needs an integer or bigInteger primary key`)
  }
  if (definition.maxLength !== undefined) {
    checkPositiveInteger(definition.maxLength, `${where}.maxLength`)
    if (!spec.text && definition.type !== 'binary')
      throw new ConfigError('CONFIG_BAD_FIELD', `${where}: maxLength applies to string, text and binary (bytes) fields`)
  }
  if (
    definition.scale !== undefined &&
    (definition.type !== 'decimal' || !Number.isSafeInteger(definition.scale) || definition.scale < 0)
  ) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: scale must be a non-negative integer on a decimal field`)
  }
  if (
    definition.precision !== undefined &&
    (definition.type !== 'decimal' ||
      !Number.isSafeInteger(definition.precision) ||
      definition.precision < Math.max(1, definition.scale ?? 0) ||
      definition.precision > MAX_DECIMAL_PRECISION)
  ) {
    throw new ConfigError(
      'CONFIG_BAD_FIELD',
      `${where}: precision must be an integer from scale (at least 1) to ${MAX_DECIMAL_PRECISION} on a decimal field`,
    )
  }
  checkExistingDatabaseOptions(definition, where)
  if (primaryKey && (definition.hidden || definition.nullable === true)) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: a primary key can be neither hidden nor nullable`)
  }
  if (primaryKey && !spec.keyable) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: a primary key must be integer, bigInteger, string or uuid`)
  }
  const field: Draft<Field> = {
    kind: 'field',
    name,
    collection,
    column: name,
    type: definition.type,
    spec,
    primaryKey,
    autoIncrement: definition.autoIncrement === true,
    nullable: primaryKey ? false : definition.nullable !== false,
    // A default the type cannot read is kept as given: the database, not the router, writes it.
    default: definition.default === undefined ? undefined : (spec.fromJson(definition.default) ?? definition.default),
    maxLength: definition.maxLength,
    scale: definition.scale,
    precision: definition.type === 'decimal' ? (definition.precision ?? MAX_DECIMAL_PRECISION) : undefined,
    // Server-managed and generated fields are never written by clients.
    readonly:
      definition.readonly === true ||
      definition.generated === true ||
      definition.onCreate !== undefined ||
      definition.onUpdate !== undefined,
    hidden: definition.hidden === true,
    onDelete: definition.onDelete,
    elementType: definition.elementType,
    enum: definition.enum === undefined ? undefined : Object.freeze([...definition.enum]),
    unique: definition.unique === true || primaryKey,
    storage: definition.storage ?? 'isoText',
    generated: definition.generated === true,
    onCreate: definition.onCreate,
    onUpdate: definition.onUpdate,
  }
  if (definition.references !== undefined) pending.references.set(field, definition.references)
  if (definition.referencesAny !== undefined || definition.collectionField !== undefined) {
    if (definition.references !== undefined || primaryKey) {
      throw new ConfigError(
        'CONFIG_BAD_REFERENCE',
        `${where}: referencesAny applies to a field that is neither a primary key nor a reference`,
      )
    }
    pending.anyOf.set(field, { collections: definition.referencesAny, collectionField: definition.collectionField })
  }
  return field
}

/** The options that describe a column of an existing database (see ScalarFieldDefinition). */
function checkExistingDatabaseOptions(definition: ScalarFieldDefinition, where: string): void {
  const bad = (message: string): never => {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: ${message}`)
  }
  if (definition.type === 'array') {
    if (definition.elementType === undefined || !ARRAY_ELEMENT_TYPES.includes(definition.elementType)) {
      bad(`an array field needs an elementType among ${ARRAY_ELEMENT_TYPES.join(', ')}`)
    }
    if (definition.primaryKey || definition.references !== undefined) bad('an array field can be neither a primary key nor a reference')
  } else if (definition.elementType !== undefined) {
    bad('elementType applies to array fields')
  }
  if (definition.type === 'set') {
    if (definition.enum === undefined) bad('a set field needs enum, the values its column allows')
    if (definition.primaryKey || definition.references !== undefined) bad('a set field can be neither a primary key nor a reference')
    if (definition.enum?.some((value) => typeof value === 'string' && value.includes(','))) bad('a set value cannot hold a comma')
  }
  if (definition.enum !== undefined) {
    if (!FIELD_TYPES[definition.type].text && definition.type !== 'set') bad('enum applies to string, text and set fields')
    if (!Array.isArray(definition.enum) || definition.enum.length === 0 || !definition.enum.every((value) => typeof value === 'string')) {
      bad('enum must be a non-empty list of strings')
    }
  }
  if (definition.onDelete !== undefined) {
    if (definition.references === undefined) bad('onDelete applies to fields with references')
    if (!ON_DELETE.includes(definition.onDelete)) bad(`onDelete must be one of ${ON_DELETE.join(', ')}`)
  }
  if (definition.storage !== undefined) {
    if (!STORED_TEMPORAL.includes(definition.type)) bad('storage applies to date, dateTime and timestamp fields')
    if (!STORAGE.includes(definition.storage)) bad(`storage must be one of ${STORAGE.join(', ')}`)
  }
  for (const flag of ['unique', 'generated'] as const) {
    if (definition[flag] !== undefined && typeof definition[flag] !== 'boolean') bad(`${flag} must be true or false`)
  }
  for (const when of ['onCreate', 'onUpdate'] as const) {
    const managed = definition[when]
    if (managed === undefined) continue
    const fits = Object.hasOwn(MANAGED, managed) ? MANAGED[managed] : undefined
    if (!fits) bad(`${when} must be 'now' or 'user'`)
    else if (!fits(definition)) {
      bad(
        `${when}: '${managed}' needs ${managed === 'now' ? 'a date, dateTime, timestamp or time' : 'a string, integer, bigInteger or uuid'} field`,
      )
    }
    if (definition.primaryKey || definition.generated) bad(`${when} applies to neither a primary key nor a generated field`)
  }
}

function buildMember(collection: Collection, name: string, definition: FieldDefinition, pending: Pending): Member {
  const where = fieldWhere(collection.name, name)
  if (!isPlainObject(definition)) throw new ConfigError('CONFIG_BAD_FIELD', `${where} must be an object`)
  if (definition.type === 'o2m') {
    checkKnownOptions(definition, O2M_KEYS, where)
    // `related` and `foreignKey` are set by the second pass.
    const relation = { kind: 'o2m', name, collection } as Draft<O2MRelation>
    pending.o2m.set(relation, { related: definition.collection, foreignKey: definition.foreignKey, onDetach: definition.onDetach })
    return relation
  }
  if (!Object.hasOwn(FIELD_TYPES, definition.type)) {
    throw new ConfigError('CONFIG_UNKNOWN_FIELD_TYPE', `${where}: unknown field type "${String(definition.type)}"`)
  }
  return buildField(collection, name, definition, pending)
}

/** What a collection takes from the router unless it sets its own. */
export interface CollectionDefaults {
  readonly limits: Limits
  readonly lenientPayloads: boolean
}

/**
 * A key of several fields, in definition order: each field is unique only together with the others, and none is
 * assigned by the database (a create names every component).
 */
function checkCompositeKey(collection: Draft<Collection>, key: readonly Draft<Field>[], where: string): void {
  if (collection.singleton) throw new ConfigError('CONFIG_BAD_COLLECTION', `${where}: a singleton needs a key of one field`)
  for (const field of key) {
    if (field.autoIncrement) {
      throw new ConfigError('CONFIG_BAD_FIELD', `${fieldWhere(collection.name, field.name)}: autoIncrement needs a key of one field`)
    }
    field.unique = false
  }
}

function buildCollection(name: string, definition: CollectionDefinition, defaults: CollectionDefaults, pending: Pending): Collection {
  const where = `collections.${name}`
  if (!isPlainObject(definition)) throw new ConfigError('CONFIG_BAD_COLLECTION', `${where} must be an object`)
  checkKnownOptions(definition, COLLECTION_KEYS, where)
  if (!isPlainObject(definition.fields) || Object.keys(definition.fields).length === 0) {
    throw new ConfigError('CONFIG_BAD_COLLECTION', `${where}.fields must be an object with at least one field`)
  }
  if (definition.table !== undefined && (typeof definition.table !== 'string' || definition.table === '')) {
    throw new ConfigError('CONFIG_BAD_COLLECTION', `${where}.table must be a non-empty string`)
  }
  if (definition.lenientPayloads !== undefined && typeof definition.lenientPayloads !== 'boolean') {
    throw new ConfigError('CONFIG_BAD_COLLECTION', `${where}.lenientPayloads must be true or false`)
  }
  const members = new Map<string, Member>()
  // Fields point at their collection, so it exists before them; `fields` and `primaryKey` are set once they do.
  const collection = {
    name,
    table: definition.table ?? name,
    singleton: definition.singleton === true,
    versioning: definition.versioning === true,
    members,
    limits: resolveLimits(definition, defaults.limits, where),
    lenientPayloads: definition.lenientPayloads ?? defaults.lenientPayloads,
    schemaFragment: definition.schema,
    restrictedBy: [],
  } as unknown as Draft<Collection>
  for (const [fieldName, fieldDefinition] of Object.entries(definition.fields)) {
    members.set(fieldName, buildMember(collection, fieldName, fieldDefinition, pending))
  }
  collection.fields = [...members.values()].filter((member): member is Field => member.kind === 'field')
  const key = collection.fields.filter((field) => field.primaryKey)
  if (key.length === 0) throw new ConfigError('CONFIG_MISSING_PRIMARY_KEY', `${where} must have a primaryKey field`)
  if (key.length > 1) checkCompositeKey(collection, key, where)
  collection.key = Object.freeze(key)
  collection.primaryKey = key[0]!
  return collection
}

/** The configured detach action, checked against the foreign key; by default the one its nullability allows. */
function detachAction(where: string, foreignKey: Field, configured: unknown): DetachAction {
  if (configured === undefined) return foreignKey.nullable ? 'nullify' : 'delete'
  if (configured !== 'nullify' && configured !== 'delete') {
    throw new ConfigError('CONFIG_BAD_O2M', `${where}.onDetach must be 'nullify' or 'delete'`)
  }
  if (configured === 'nullify' && !foreignKey.nullable) {
    throw new ConfigError(
      'CONFIG_BAD_O2M',
      `${where}.onDetach is 'nullify' but ${foreignKey.collection.name}.${foreignKey.name} is not nullable: use 'delete'`,
    )
  }
  return configured
}

function resolveReferences(collections: ReadonlyMap<string, Collection>, pending: Pending): void {
  for (const [field, name] of pending.references) {
    const where = fieldWhere(field.collection.name, field.name)
    const target = collections.get(name)
    if (!target) throw new ConfigError('CONFIG_BAD_REFERENCE', `${where} references unknown collection "${name}"`)
    if (target.key.length > 1) {
      throw new ConfigError(
        'CONFIG_BAD_REFERENCE',
        `${where} references "${name}", whose key has ${target.key.length} fields: a reference needs a key of one field`,
      )
    }
    if (field.spec.family !== target.primaryKey.spec.family) {
      throw new ConfigError(
        'CONFIG_BAD_REFERENCE',
        `${where} is ${field.type} but ${target.name}.${target.primaryKey.name} is ${target.primaryKey.type}`,
      )
    }
    field.references = target
    if (field.onDelete === 'noAction' || field.onDelete === 'restrict') (target.restrictedBy as Field[]).push(field)
  }
  for (const [field, names] of pending.anyOf) field.referencesAny = resolveManyToAny(collections, field, names)
  for (const [relation, names] of pending.o2m) {
    const where = fieldWhere(relation.collection.name, relation.name)
    const related = collections.get(names.related)
    if (!related) throw new ConfigError('CONFIG_BAD_O2M', `${where}: unknown collection "${names.related}"`)
    const foreignKey = related.members.get(names.foreignKey)
    if (foreignKey?.kind !== 'field' || pending.references.get(foreignKey) !== relation.collection.name) {
      throw new ConfigError(
        'CONFIG_BAD_O2M',
        `${where}: ${related.name}.${names.foreignKey} must be a field with references: '${relation.collection.name}'`,
      )
    }
    relation.related = related
    relation.foreignKey = foreignKey
    relation.onDetach = detachAction(where, foreignKey, names.onDetach)
  }
}

/** The longest text a key of this field can be written as; undefined: no bound. */
function longestKey(key: Field): number | undefined {
  if (key.type === 'integer') return 11
  if (key.type === 'bigInteger') return 20
  if (key.type === 'uuid') return 36
  return key.maxLength
}

/**
 * A many-to-any's allowed collections and collection field, checked: every collection configured, every key of
 * theirs storable in the item field (as text, or as the field's own type), every name in the collection field.
 */
function resolveManyToAny(
  collections: ReadonlyMap<string, Collection>,
  field: Field,
  names: { readonly collections: unknown; readonly collectionField: unknown },
): Field['referencesAny'] {
  const where = fieldWhere(field.collection.name, field.name)
  const bad = (message: string): never => {
    throw new ConfigError('CONFIG_BAD_REFERENCE', `${where}: ${message}`)
  }
  const listed = names.collections
  if (!Array.isArray(listed) || listed.length === 0 || !listed.every((name) => typeof name === 'string')) {
    return bad('referencesAny must be a non-empty list of collection names')
  }
  if (new Set(listed).size !== listed.length) bad('referencesAny names a collection twice')
  const targets = (listed as string[]).map((name) => collections.get(name) ?? bad(`referencesAny names unknown collection "${name}"`))
  for (const target of targets) {
    const key = target.primaryKey
    if (target.key.length > 1) bad(`"${target.name}"'s key has ${target.key.length} fields: a many-to-any needs keys of one field`)
    if (field.spec.text) {
      const longest = longestKey(key)
      if (field.maxLength !== undefined && (longest === undefined || longest > field.maxLength)) {
        bad(`its maxLength (${field.maxLength}) cannot hold every key of "${target.name}" (${target.name}.${key.name} is ${key.type})`)
      }
    } else if (field.spec.family !== key.spec.family || !field.spec.keyable) {
      bad(`it is ${field.type} but ${target.name}.${key.name} is ${key.type}: use a string field, which holds any key as text`)
    }
  }
  const named = names.collectionField
  if (typeof named !== 'string') return bad('a field with referencesAny needs collectionField, the field holding the collection name')
  const collectionField = field.collection.members.get(named)
  if (
    collectionField?.kind !== 'field' ||
    collectionField === field ||
    !collectionField.spec.text ||
    collectionField.references !== undefined
  ) {
    return bad(`collectionField "${named}" must be another string field of "${field.collection.name}"`)
  }
  for (const target of targets) {
    if (collectionField.maxLength !== undefined && target.name.length > collectionField.maxLength) {
      bad(`collectionField "${named}" (maxLength ${collectionField.maxLength}) cannot hold "${target.name}"`)
    }
    if (collectionField.enum !== undefined && !collectionField.enum.includes(target.name)) {
      bad(`collectionField "${named}" does not accept "${target.name}" (its enum)`)
    }
  }
  if (collectionField.namesCollectionOf !== undefined) {
    bad(`collectionField "${named}" names the collection of "${collectionField.namesCollectionOf.name}" already`)
  }
  const draft: Draft<Field> = collectionField
  draft.namesCollectionOf = field
  return { collections: Object.freeze(targets), collectionField }
}

/** Builds the schema from `options.collections`. Runs once, in `createItemsRouter()`. */
export function buildSchema(definitions: unknown, routerLimits: Limits, lenientPayloads = false): Schema {
  if (!isPlainObject(definitions) || Object.keys(definitions).length === 0) {
    throw new ConfigError('CONFIG_BAD_COLLECTION', 'options.collections must be an object with at least one collection')
  }
  const pending: Pending = { references: new Map(), o2m: new Map(), anyOf: new Map() }
  const collections = new Map<string, Collection>()
  for (const [name, definition] of Object.entries(definitions)) {
    collections.set(name, buildCollection(name, definition as CollectionDefinition, { limits: routerLimits, lenientPayloads }, pending))
  }
  resolveReferences(collections, pending)
  for (const collection of collections.values()) {
    Object.freeze(collection.restrictedBy)
    for (const member of collection.members.values()) Object.freeze(member)
    Object.freeze(collection)
  }
  return Object.freeze({ collections })
}
