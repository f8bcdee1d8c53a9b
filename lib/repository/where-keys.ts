// The items of a write by key, as a WHERE clause: `key IN (…)` for a key of one field, and for a composite key one
// `AND` of its components per key. Writes name keys that a read by key found first (key-checks.ts), which compares
// them exactly, so the plain comparison here changes only those rows; a one-statement write of one item, which no
// read checked, compares its key exactly itself (`whereExactKey`).
import type { Knex } from 'knex'
import type { Dialect } from '../dialects'
import { storedKey, toStorage } from '../dialects/storage'
import { chunk } from '../plan/relation-plans'
import type { Collection } from '../schema/collection'
import type { PrimaryKey } from '../types'

/** `keys` in chunks that each bind at most the dialect's parameter limit. */
export const keyChunks = (collection: Collection, keys: readonly PrimaryKey[], dialect: Dialect): PrimaryKey[][] =>
  chunk(keys, Math.floor(dialect.maxParameters / collection.key.length))

/**
 * Narrows `qb` to the one item whose stored key (dialects/storage.ts's `storedKey`, or a template's slots for it) is exactly `stored`,
 * for a write that no read by key checked first: the column's collation may take "A", "a " or "á" for "a"
 * (MySQL's usual ones do). A raw condition beside the plain one (which the index serves): the builder has no
 * exact comparison (see Dialect.exactText).
 */
export function whereExactKey(
  qb: Knex.QueryBuilder,
  collection: Collection,
  stored: readonly unknown[],
  dialect: Dialect,
): Knex.QueryBuilder {
  collection.key.forEach((field, index) => {
    const value = stored[index] as Knex.Value
    qb.where(field.column, value)
    if (field.spec.text && dialect.exactText !== null) qb.whereRaw(`?? = ${dialect.exactText}`, [field.column, value])
  })
  return qb
}

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
      const stored = storedKey(collection, key, dialect)
      group.orWhere(Object.fromEntries(collection.key.map((field, index) => [field.column, stored[index]])))
    }
  })
}
