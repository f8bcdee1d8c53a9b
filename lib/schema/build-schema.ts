// Checks the `collections` option once and builds the normalized Schema; definite mistakes throw ConfigError.
import { ConfigError } from '../errors'
import type { CollectionDefinition, FieldDefinition, FieldType, LimitOptions, ScalarFieldDefinition } from '../types'
import type { Collection, Field, Limits, Member, O2MRelation, Schema } from './collection'
import { FIELD_TYPES } from './field-types'
import { isPlainObject } from '../is-plain-object'

type KnownKeys<T> = { readonly [K in keyof Required<T>]: true }

const COLLECTION_KEYS: KnownKeys<CollectionDefinition> = {
  table: true,
  singleton: true,
  fields: true,
  schema: true,
  versioning: true,
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
  readonly: true,
  hidden: true,
  references: true,
}
const O2M_KEYS = { type: true, collection: true, foreignKey: true } as const
function checkKeys(given: object, known: object, where: string): void {
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
    maxLimit: options.maxLimit ?? fallback.maxLimit,
    maxBatchSize: options.maxBatchSize ?? fallback.maxBatchSize,
  }
  if (limits.maxLimit !== undefined && limits.defaultLimit > limits.maxLimit) {
    throw new ConfigError('CONFIG_BAD_LIMIT', `${where}.defaultLimit (${limits.defaultLimit}) exceeds maxLimit (${limits.maxLimit})`)
  }
  return limits
}

function buildField(collection: string, name: string, definition: ScalarFieldDefinition): Field {
  const where = `collections.${collection}.fields.${name}`
  checkKeys(definition, SCALAR_KEYS, where)
  const type: FieldType = definition.type
  const primaryKey = definition.primaryKey === true
  if (definition.autoIncrement && !(primaryKey && (type === 'integer' || type === 'bigInteger'))) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: autoIncrement needs an integer or bigInteger primary key`)
  }
  if (definition.maxLength !== undefined) {
    checkPositiveInteger(definition.maxLength, `${where}.maxLength`)
    if (FIELD_TYPES[type].family !== 'string')
      throw new ConfigError('CONFIG_BAD_FIELD', `${where}: maxLength applies to string and text fields`)
  }
  if (definition.scale !== undefined && (type !== 'decimal' || !Number.isSafeInteger(definition.scale) || definition.scale < 0)) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: scale must be a non-negative integer on a decimal field`)
  }
  if (primaryKey && (definition.hidden || definition.nullable === true)) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: a primary key can be neither hidden nor nullable`)
  }
  if (primaryKey && !['integer', 'bigInteger', 'string', 'uuid'].includes(type)) {
    throw new ConfigError('CONFIG_BAD_FIELD', `${where}: a primary key must be integer, bigInteger, string or uuid`)
  }
  return Object.freeze({
    kind: 'field',
    name,
    collection,
    column: name,
    type,
    primaryKey,
    autoIncrement: definition.autoIncrement === true,
    nullable: primaryKey ? false : definition.nullable !== false,
    default: definition.default,
    maxLength: definition.maxLength,
    scale: definition.scale,
    readonly: definition.readonly === true,
    hidden: definition.hidden === true,
    references: definition.references,
  })
}

function buildMember(collection: string, name: string, definition: FieldDefinition): Member {
  const where = `collections.${collection}.fields.${name}`
  if (!isPlainObject(definition)) throw new ConfigError('CONFIG_BAD_FIELD', `${where} must be an object`)
  if (definition.type === 'o2m') {
    checkKeys(definition, O2M_KEYS, where)
    return Object.freeze({ kind: 'o2m', name, collection, related: definition.collection, foreignKey: definition.foreignKey })
  }
  if (!Object.hasOwn(FIELD_TYPES, definition.type)) {
    throw new ConfigError('CONFIG_UNKNOWN_FIELD_TYPE', `${where}: unknown field type "${String(definition.type)}"`)
  }
  return buildField(collection, name, definition)
}

function buildCollection(name: string, definition: CollectionDefinition, routerLimits: Limits): Collection {
  const where = `collections.${name}`
  if (!isPlainObject(definition)) throw new ConfigError('CONFIG_BAD_COLLECTION', `${where} must be an object`)
  checkKeys(definition, COLLECTION_KEYS, where)
  if (!isPlainObject(definition.fields) || Object.keys(definition.fields).length === 0) {
    throw new ConfigError('CONFIG_BAD_COLLECTION', `${where}.fields must be an object with at least one field`)
  }
  if (definition.table !== undefined && (typeof definition.table !== 'string' || definition.table === '')) {
    throw new ConfigError('CONFIG_BAD_COLLECTION', `${where}.table must be a non-empty string`)
  }
  const members = new Map<string, Member>()
  for (const [fieldName, fieldDefinition] of Object.entries(definition.fields)) {
    members.set(fieldName, buildMember(name, fieldName, fieldDefinition))
  }
  const fields = [...members.values()].filter((member): member is Field => member.kind === 'field')
  const primaryKeys = fields.filter((field) => field.primaryKey)
  if (primaryKeys.length !== 1) {
    throw new ConfigError('CONFIG_MISSING_PRIMARY_KEY', `${where} must have exactly one primaryKey field (found ${primaryKeys.length})`)
  }
  return Object.freeze({
    name,
    table: definition.table ?? name,
    singleton: definition.singleton === true,
    versioning: definition.versioning === true,
    primaryKey: primaryKeys[0],
    members,
    fields,
    limits: resolveLimits(definition, routerLimits, where),
    schemaFragment: definition.schema,
  })
}

function checkRelations(collections: ReadonlyMap<string, Collection>): void {
  for (const collection of collections.values()) {
    for (const member of collection.members.values()) {
      const where = `collections.${collection.name}.fields.${member.name}`
      if (member.kind === 'field' && member.references !== undefined) {
        const target = collections.get(member.references)
        if (!target) throw new ConfigError('CONFIG_BAD_REFERENCE', `${where} references unknown collection "${member.references}"`)
        if (FIELD_TYPES[member.type].family !== FIELD_TYPES[target.primaryKey.type].family) {
          throw new ConfigError(
            'CONFIG_BAD_REFERENCE',
            `${where} is ${member.type} but ${target.name}.${target.primaryKey.name} is ${target.primaryKey.type}`,
          )
        }
      }
      if (member.kind === 'o2m') checkO2M(collections, collection, member, where)
    }
  }
}

function checkO2M(collections: ReadonlyMap<string, Collection>, collection: Collection, relation: O2MRelation, where: string): void {
  const related = collections.get(relation.related)
  if (!related) throw new ConfigError('CONFIG_BAD_O2M', `${where}: unknown collection "${relation.related}"`)
  const foreignKey = related.members.get(relation.foreignKey)
  if (!foreignKey || foreignKey.kind !== 'field' || foreignKey.references !== collection.name) {
    throw new ConfigError(
      'CONFIG_BAD_O2M',
      `${where}: ${related.name}.${relation.foreignKey} must be a field with references: '${collection.name}'`,
    )
  }
}

/** Builds the schema from `options.collections`. Runs once, in `createItemsRouter()`. */
export function buildSchema(definitions: unknown, routerLimits: Limits): Schema {
  if (!isPlainObject(definitions) || Object.keys(definitions).length === 0) {
    throw new ConfigError('CONFIG_BAD_COLLECTION', 'options.collections must be an object with at least one collection')
  }
  const collections = new Map<string, Collection>()
  for (const [name, definition] of Object.entries(definitions)) {
    collections.set(name, buildCollection(name, definition as CollectionDefinition, routerLimits))
  }
  checkRelations(collections)
  return Object.freeze({ collections })
}
