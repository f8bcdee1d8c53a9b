// Turns an item payload with nested relational values into a write plan (write-plan.ts), refusing every shape
// it cannot read with a 400 naming the path, before any SQL. Values themselves are validated when written.
import { isPlainObject } from '../is-plain-object'
import { parseBodyKey, splitKey } from '../query/parse-key'
import { keyFormOf } from '../schema/item-key'
import { anyTarget, type Collection, type Field, type O2MRelation } from '../schema/collection'
import type { PrimaryKey } from '../types'
import { atPath, invalidNested } from './write-path'
import type { ItemWrite, KeyRef, ToManyWrite, ToOneWrite, WritePath } from './write-plan'

/** The detailed one-to-many form's keys. */
const DETAILED = new Set(['create', 'update', 'delete'])

/**
 * Whether a payload carries a nested value: a one-to-many value, an object for a many-to-one, or any value of a
 * many-to-any's item or collection field (no foreign key checks those: the plan does).
 */
export function hasNestedValue(collection: Collection, data: unknown): boolean {
  if (!isPlainObject(data)) return false
  for (const name of Object.keys(data)) {
    const member = collection.members.get(name)
    if (member?.kind === 'o2m') return true
    if (member?.kind === 'field' && member.references !== undefined && isPlainObject(data[name])) return true
    if (member?.kind === 'field' && (member.referencesAny !== undefined || member.namesCollectionOf !== undefined)) return true
  }
  return false
}

export interface Planning {
  /** Relations a path may cross (`maxRelationalDepth`). */
  readonly maxDepth: number
}

/** The planning options one level down. */
interface Level extends Planning {
  /** Relations crossed to get here. */
  readonly depth: number
  /** The index of the request's item in an array body. */
  readonly item?: number
}

/**
 * The plan of one item: `key` null creates it, a key updates it. `item` is its index in an array body.
 * A one-to-many child may not name its foreign key (`parentKey`): the relation sets it.
 */
export function planItem(
  collection: Collection,
  data: Readonly<Record<string, unknown>>,
  key: PrimaryKey | null,
  options: Planning,
  item?: number,
): ItemWrite {
  try {
    return plan(collection, data, key, [], { ...options, depth: 0, ...(item === undefined ? {} : { item }) }, null)
  } catch (error) {
    throw atPath(error, { path: [], item })
  }
}

function plan(
  collection: Collection,
  data: Readonly<Record<string, unknown>>,
  key: PrimaryKey | null,
  path: WritePath,
  options: Level,
  parentKey: Field | null,
): ItemWrite {
  const depth = options.depth
  const below: Level = { ...options, depth: depth + 1 }
  const own: Record<string, unknown> = {}
  const toOne: ToOneWrite[] = []
  const toMany: ToManyWrite[] = []
  for (const [name, value] of Object.entries(data)) {
    const member = collection.members.get(name)
    if (parentKey !== null && name === parentKey.name) {
      throw invalidNested(`"${name}" is set by the relation: leave it out`, [...path, name])
    }
    if (member?.kind === 'o2m') {
      if (depth >= options.maxDepth)
        throw invalidNested(`a nested write crosses more than ${options.maxDepth} relations (maxRelationalDepth)`, [...path, name])
      toMany.push(planToMany(member, value, [...path, name], below))
    } else if (member?.kind === 'field' && member.references !== undefined && isPlainObject(value)) {
      if (depth >= options.maxDepth)
        throw invalidNested(`a nested write crosses more than ${options.maxDepth} relations (maxRelationalDepth)`, [...path, name])
      toOne.push(planToOne(member, member.references, value, [...path, name], below))
    } else if (member?.kind === 'field' && member.referencesAny !== undefined && value !== null) {
      if (depth >= options.maxDepth)
        throw invalidNested(`a nested write crosses more than ${options.maxDepth} relations (maxRelationalDepth)`, [...path, name])
      toOne.push(planToAny(member, data, path, below))
    } else {
      const item = member?.kind === 'field' ? member.namesCollectionOf : undefined
      if (item !== undefined && !Object.hasOwn(data, item.name)) {
        throw invalidNested(`"${name}" is written together with "${item.name}", the item it names the collection of`, [...path, name])
      }
      // A plain value (a many-to-one key among them): the validator judges it, as at the top.
      own[name] = value
    }
  }
  return { collection, key, data: own, path, ...itemOf(options), toOne, toMany }
}

const itemOf = (options: Level): { item?: number } => (options.item === undefined ? {} : { item: options.item })

/** A key the payload names for `collection`, or a 400 at `path`. */
function keyAt(collection: Collection, value: unknown, path: WritePath): PrimaryKey {
  try {
    return parseBodyKey(collection, value)
  } catch (error) {
    throw atPath(error, path)
  }
}

/**
 * A many-to-any's item: a key links an item of the collection that the collection field beside it names (one of
 * the allowed ones), an object creates or updates one, as a many-to-one's does.
 */
function planToAny(field: Field, data: Readonly<Record<string, unknown>>, path: WritePath, options: Level): ToOneWrite {
  const { collections, collectionField } = field.referencesAny!
  const value = data[field.name]
  const named = data[collectionField.name]
  const allowed = collections.map((collection) => `"${collection.name}"`).join(', ')
  if (named === undefined || named === null) {
    throw invalidNested(`needs "${collectionField.name}" beside it, naming the collection of the item (${allowed})`, [...path, field.name])
  }
  const related = anyTarget(field, named)
  if (related === undefined) {
    throw invalidNested(`${JSON.stringify(named)} is not a collection "${field.name}" may hold items of: use ${allowed}`, [
      ...path,
      collectionField.name,
    ])
  }
  const at = [...path, field.name]
  if (typeof value === 'string' || typeof value === 'number') {
    return { field, item: plan(related, {}, keyAt(related, value, at), at, options, null), link: true }
  }
  if (!isPlainObject(value)) throw invalidNested(`must be a key or an object of "${related.name}"`, at)
  return planToOne(field, related, value, at, options)
}

function planToOne(
  field: Field,
  related: Collection,
  value: Readonly<Record<string, unknown>>,
  path: WritePath,
  options: Level,
): ToOneWrite {
  const [key, rest] = splitKey(related, value, (named, field) => keyAt(related, named, field === null ? path : [...path, field.name]))
  const link = key !== null && Object.keys(rest).length === 0
  return { field, item: plan(related, rest, key, path, options, null), link }
}

/** A child object of a one-to-many: with a key it is updated and attached, without one created. */
function planChild(
  relation: O2MRelation,
  value: unknown,
  path: WritePath,
  options: Level,
  keyed: 'either' | 'create' | 'update',
): ItemWrite {
  if (!isPlainObject(value)) throw invalidNested(`must be an object of "${relation.related.name}"`, path)
  const related = relation.related
  if (keyed === 'create') {
    // A create names its key only where the collection does not assign keys.
    const pk = related.primaryKey
    if (pk.autoIncrement && value[pk.name] != null) {
      throw invalidNested(`a created item gets its key from the database: leave "${pk.name}" out, or update it under "update"`, path)
    }
    return plan(related, value, null, path, options, relation.foreignKey)
  }
  const [key, rest] = splitKey(related, value, (named, field) => keyAt(related, named, field === null ? path : [...path, field.name]))
  if (keyed === 'update' && key === null) throw invalidNested(`an item to update must name its key "${keyFormOf(related)}"`, path)
  return plan(related, rest, key, path, options, relation.foreignKey)
}

function planToMany(relation: O2MRelation, value: unknown, path: WritePath, options: Level): ToManyWrite {
  const related = relation.related
  const base = { relation, path, ...itemOf(options), link: [] as KeyRef[], items: [] as ItemWrite[], detach: [] as KeyRef[] }
  // `null` and `[]` both say: no children.
  if (value === null) return { ...base, replace: true }
  if (Array.isArray(value)) {
    value.forEach((element, index) => {
      const at = [...path, index]
      if (typeof element === 'string' || typeof element === 'number')
        base.link.push({ key: keyAt(related, element, at), path: at, ...itemOf(options) })
      else if (isPlainObject(element)) base.items.push(planChild(relation, element, at, options, 'either'))
      else throw invalidNested(`must be a key or an object of "${related.name}"`, at)
    })
    return { ...base, replace: true }
  }
  if (!isPlainObject(value)) {
    throw invalidNested(`must be an array of "${related.name}" items or keys, or an object of "create", "update" and "delete"`, path)
  }
  for (const name of Object.keys(value)) {
    if (!DETAILED.has(name)) throw invalidNested(`"${name}" is not allowed: use "create", "update" and "delete"`, [...path, name])
  }
  const list = (name: string): unknown[] => {
    const entries = value[name] ?? []
    if (!Array.isArray(entries)) throw invalidNested(`"${name}" must be an array`, [...path, name])
    return entries
  }
  list('create').forEach((element, index) => base.items.push(planChild(relation, element, [...path, 'create', index], options, 'create')))
  list('update').forEach((element, index) => base.items.push(planChild(relation, element, [...path, 'update', index], options, 'update')))
  list('delete').forEach((element, index) => {
    const at = [...path, 'delete', index]
    base.detach.push({ key: keyAt(related, element, at), path: at, ...itemOf(options) })
  })
  return { ...base, replace: false }
}
