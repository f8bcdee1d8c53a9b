// The key form of an item. A key of one field is that field's value, as ever. A composite key (several `primaryKey`
// fields) is written as text: its components in key order, each percent-encoded, joined by commas (`1,23`,
// `en,about%2Cus`). That text is also the key inside the router (key lists, maps by key, a version's `item`), so a
// composite key has exactly one spelling: its components' canonical values, encoded the one way encodeURIComponent does.
import type { PrimaryKey } from '../types'
import type { Collection, Field } from './collection'

const SEPARATOR = ','

/** The text of a composite key whose components are canonical values, in key order. */
export function compositeKeyText(components: readonly unknown[]): string {
  return components.map((component) => encodeURIComponent(String(component))).join(SEPARATOR)
}

/** Why a composite key text is not one of this collection, or its components as canonical values. */
export type KeyReading = { readonly components: readonly unknown[] } | { readonly wrongCount: number } | { readonly badComponent: Field }

/** The components of a composite key's text, each decoded and read as its field's type reads text. */
export function readKeyText(collection: Collection, text: string): KeyReading {
  const parts = text.split(SEPARATOR)
  if (parts.length !== collection.key.length) return { wrongCount: parts.length }
  const components: unknown[] = []
  for (const [index, field] of collection.key.entries()) {
    let decoded: string
    try {
      decoded = decodeURIComponent(parts[index]!)
    } catch {
      return { badComponent: field }
    }
    const value = field.spec.fromText(decoded)
    if (value === undefined || value === null) return { badComponent: field }
    components.push(value)
  }
  return { components }
}

/** The components of a composite key this router wrote (always well formed). */
export function keyComponents(collection: Collection, key: PrimaryKey): readonly unknown[] {
  const reading = readKeyText(collection, String(key))
  if (!('components' in reading)) throw new Error(`"${String(key)}" is not a key of "${collection.name}"`)
  return reading.components
}

/** How a key of the collection is written: `actor_id,film_id` for a composite key, for messages and documents. */
export const keyFormOf = (collection: Collection): string => collection.key.map((field) => field.name).join(SEPARATOR)

/** The key of an item whose key fields hold canonical values (`valueOf` reads each), in the router's key form. */
export function keyOfValues(collection: Collection, valueOf: (field: Field) => unknown): PrimaryKey {
  if (collection.key.length === 1) return valueOf(collection.primaryKey) as PrimaryKey
  return compositeKeyText(collection.key.map(valueOf))
}

/** An item that holds its key's fields only (the answer of a write whose read-back failed). */
export function keyItem(collection: Collection, key: PrimaryKey): Record<string, unknown> {
  if (collection.key.length === 1) return { [collection.primaryKey.name]: key }
  const components = keyComponents(collection, key)
  return Object.fromEntries(collection.key.map((field, index) => [field.name, components[index]]))
}

/** A key as a list of keys answers it: the key itself, or a composite key as an object of its fields. */
export const listedKey = (collection: Collection, key: PrimaryKey): PrimaryKey | Record<string, unknown> =>
  collection.key.length === 1 ? key : keyItem(collection, key)
