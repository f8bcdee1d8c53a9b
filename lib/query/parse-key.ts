// Reads primary keys from the URL or a payload, in the key field's canonical form.
import { InvalidPayloadError } from '../errors'
import type { Collection } from '../schema/collection'
import type { PrimaryKey } from '../types'

/** A key from the URL; undefined when it cannot be a key of this collection (so no item has it). */
export function parseUrlKey(collection: Collection, text: string): PrimaryKey | undefined {
  return collection.primaryKey.spec.fromText(text) as PrimaryKey | undefined
}

/** A key from a JSON body; a value of the wrong type is a 400. */
export function parseBodyKey(collection: Collection, value: unknown): PrimaryKey {
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
