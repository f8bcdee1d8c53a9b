// The items of a write by key, as a WHERE clause: `key IN (…)` for a key of one field, and for a composite key one
// `AND` of its components per key. Writes name keys that a read by key found first (key-checks.ts), which compares
// them exactly, so the plain comparison here changes only those rows.
import type { Knex } from 'knex'
import type { Dialect } from '../dialects'
import { toStorage } from '../dialects/storage'
import { chunk } from '../plan/relation-plans'
import type { Collection } from '../schema/collection'
import { keyComponents } from '../schema/item-key'
import type { PrimaryKey } from '../types'

/** `keys` in chunks that each bind at most the dialect's parameter limit. */
export const keyChunks = (collection: Collection, keys: readonly PrimaryKey[], dialect: Dialect): PrimaryKey[][] =>
  chunk(keys, Math.floor(dialect.maxParameters / collection.key.length))

/** Narrows `qb` to the items with these keys (a chunk of `keyChunks`). */
export function whereKeys(qb: Knex.QueryBuilder, collection: Collection, keys: readonly PrimaryKey[], dialect: Dialect): Knex.QueryBuilder {
  if (collection.key.length === 1) {
    const pk = collection.primaryKey
    return qb.whereIn(
      pk.column,
      keys.map((key) => toStorage(pk, key, dialect)),
    )
  }
  return qb.where((group) => {
    for (const key of keys) {
      const components = keyComponents(collection, key)
      group.orWhere(Object.fromEntries(collection.key.map((field, index) => [field.column, toStorage(field, components[index], dialect)])))
    }
  })
}
