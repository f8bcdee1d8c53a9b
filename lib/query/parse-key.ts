// Reads primary keys from the URL or a payload, in the key field's canonical form; a composite key in the router's
// key form (see schema/item-key.ts): from the URL as `1,23`, from a body as `{"actor_id":1,"film_id":23}` or `"1,23"`.
import { InvalidPayloadError, InvalidQueryError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import type { Collection, Field } from '../schema/collection'
import { compositeKeyText, keyFormOf, readKeyText } from '../schema/item-key'
import type { PrimaryKey } from '../types'

const typeOf = (collection: Collection, index: number): string => `${collection.key[index]!.name} (${collection.key[index]!.type})`

/**
 * A key from the URL; undefined when it cannot be a key of this collection (so no item has it). A composite key is
 * read from the path segment as sent (`raw`, still percent-encoded), so that an encoded comma stays in its component;
 * a segment with another number of components than the key's is a 400 that shows the form.
 */
export function parseUrlKey(collection: Collection, text: string, raw: string = text): PrimaryKey | undefined {
  if (collection.key.length === 1) return collection.primaryKey.spec.fromText(text) as PrimaryKey | undefined
  const reading = readKeyText(collection, raw)
  if ('wrongCount' in reading) {
    throw new InvalidQueryError(
      `A key of "${collection.name}" has ${collection.key.length} components, "${keyFormOf(collection)}"; the path names ${reading.wrongCount}`,
    )
  }
  return 'components' in reading ? compositeKeyText(reading.components) : undefined
}

/** A composite key from a JSON body: an object naming every key field, or the key's text as in a path. */
function parseCompositeBodyKey(collection: Collection, value: unknown): PrimaryKey {
  const bad = (why: string): never => {
    throw new InvalidPayloadError(`${JSON.stringify(value) ?? String(value)} is not a valid key of "${collection.name}": ${why}`)
  }
  if (typeof value === 'string') {
    const reading = readKeyText(collection, value)
    if ('wrongCount' in reading) bad(`it has ${reading.wrongCount} components, not ${collection.key.length} ("${keyFormOf(collection)}")`)
    if ('badComponent' in reading) bad(`component ${typeOf(collection, collection.key.indexOf(reading.badComponent))} is not valid`)
    return compositeKeyText((reading as { components: readonly unknown[] }).components)
  }
  if (!isPlainObject(value))
    return bad(`send an object naming ${collection.key.map((field) => `"${field.name}"`).join(', ')}, or "${keyFormOf(collection)}"`)
  const names = new Set(collection.key.map((field) => field.name))
  const extra = Object.keys(value).find((name) => !names.has(name))
  if (extra !== undefined) bad(`"${extra}" is not a key field`)
  const components = collection.key.map((field, index) => {
    const component = value[field.name]
    const parsed = typeof component === 'string' || typeof component === 'number' ? field.spec.fromJson(component) : undefined
    if (parsed === undefined || parsed === null) {
      bad(component === undefined ? `"${field.name}" is missing` : `component ${typeOf(collection, index)} is not valid`)
    }
    return parsed
  })
  return compositeKeyText(components)
}

/** A key from a JSON body; a value of the wrong type is a 400. */
export function parseBodyKey(collection: Collection, value: unknown): PrimaryKey {
  if (collection.key.length > 1) return parseCompositeBodyKey(collection, value)
  const key = typeof value === 'string' || typeof value === 'number' ? collection.primaryKey.spec.fromJson(value) : undefined
  if (key === undefined) {
    throw new InvalidPayloadError(`${JSON.stringify(value) ?? String(value)} is not a valid key of "${collection.name}"`)
  }
  return key as PrimaryKey
}

/** A JSON array of keys. */
export function parseBodyKeys(collection: Collection, value: unknown, maxBatchSize: number): PrimaryKey[] {
  if (!Array.isArray(value)) throw new InvalidPayloadError('"keys" must be an array of primary keys')
  if (value.length > maxBatchSize) {
    throw new InvalidPayloadError(`At most ${maxBatchSize} items can be changed in one request`)
  }
  return value.map((key) => parseBodyKey(collection, key))
}

/** The key an item of a body names through its key fields (a batch update's items), or undefined when it names none. */
export function keyInItem(collection: Collection, item: Record<string, unknown>): unknown {
  if (collection.key.length === 1) return item[collection.primaryKey.name] ?? undefined
  const named = collection.key.filter((field) => item[field.name] !== undefined && item[field.name] !== null)
  return named.length === 0 ? undefined : Object.fromEntries(named.map((field) => [field.name, item[field.name]]))
}

/**
 * An object of a body split into the key it names and its other fields; null for the key when it names none (an
 * item to create). A key of one field is named by that field, not null; a composite key by every key field, and an
 * object that lacks one is an item to create, whose key fields a parent's link may complete (`{ "actor_id": 3 }` in
 * a film's `film_actor` list creates the pair). `read` parses the key named, given the field that named it (null
 * for a composite key); by default as `parseBodyKey` does.
 */
export function splitKey(
  collection: Collection,
  value: Readonly<Record<string, unknown>>,
  read: (named: unknown, field: Field | null) => PrimaryKey = (named) => parseBodyKey(collection, named),
): [PrimaryKey | null, Record<string, unknown>] {
  if (collection.key.length > 1) {
    if (!collection.key.every((field) => value[field.name] !== undefined && value[field.name] !== null)) return [null, { ...value }]
    const names = new Set(collection.key.map((field) => field.name))
    const rest = Object.fromEntries(Object.entries(value).filter(([name]) => !names.has(name)))
    return [read(Object.fromEntries(Object.entries(value).filter(([name]) => names.has(name))), null), rest]
  }
  const field = collection.primaryKey
  if (!Object.hasOwn(value, field.name) || value[field.name] === null) return [null, { ...value }]
  const { [field.name]: named, ...rest } = value
  return [read(named, field), rest]
}
