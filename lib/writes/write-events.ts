// What a write shows around its rows: a payload as after hooks and events see it, and the key a singleton's row
// is created with.
import type { Collection } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { Item } from '../types'

/** A payload as after hooks and events see it: plain JSON values by field name. */
export const toItem = (payload: Payload): Item => Object.fromEntries([...payload].map(([field, value]) => [field.name, value]))

/**
 * The key a singleton's row is created with when the database would assign one: every server picks the same,
 * so concurrent creators on servers whose locks do not see each other collide instead of adding a second row.
 */
export const SINGLETON_KEY = 1

/** Sets the key of a payload about to be inserted (hooks and events still see the payload without it). */
export type Keying = (payload: Payload) => Payload

/**
 * For an integer key the database assigns and nothing else set: `SINGLETON_KEY`. Other keys (a uuid a column
 * default fills in, say) are left alone: no value is both valid for them and chosen alike by every server.
 * So is a `generated` key, which no write may set.
 */
export function singletonKey(collection: Collection): Keying | undefined {
  const pk = collection.primaryKey
  // A key the database refuses to take from a write (identity GENERATED ALWAYS) keeps its own value too.
  if (!pk.autoIncrement || pk.generated) return undefined
  // In the payload's form for the key's type (a bigInteger travels as a digit string).
  const key = pk.spec.fromJson(SINGLETON_KEY)
  return (payload) => (payload.get(pk) == null ? new Map(payload).set(pk, key) : payload)
}
