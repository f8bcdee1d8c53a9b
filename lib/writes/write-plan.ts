// The write plan: what a payload with nested relational values asks for, as a value. A tree of items to create
// or update, each with the many-to-one items written before it and the one-to-many changes written after it.
import type { Collection, Field, O2MRelation } from '../schema/collection'
import type { PrimaryKey } from '../types'

/** Where a value sits in the item's payload: `["players", 2, "team"]`; empty for the item itself. */
export type WritePath = readonly (string | number)[]

/** Where in a request a write sits: its path, and for an array body the index of the item it belongs to. */
export interface Place {
  readonly path: WritePath
  readonly item?: number
}

/** A key the payload names, with where it names it (for the error when it names nothing). */
export interface KeyRef extends Place {
  readonly key: PrimaryKey
}

/** One item to write: created when `key` is null, else updated. */
export interface ItemWrite extends Place {
  readonly collection: Collection
  readonly key: PrimaryKey | null
  /** The item's own fields as sent, relation values taken out (a many-to-one key stays: it is a column value). */
  readonly data: Readonly<Record<string, unknown>>
  /** Many-to-one objects, written before the item so that it stores their keys. */
  readonly toOne: readonly ToOneWrite[]
  /** One-to-many changes, written after the item, once its key is known. */
  readonly toMany: readonly ToManyWrite[]
}

/**
 * A many-to-one value that is an object: an item to create (no key) or update (a key and fields), or an
 * existing one to link (a key alone, `link`), whose key the parent then stores in `field`.
 */
export interface ToOneWrite {
  readonly field: Field
  readonly item: ItemWrite
  /** The object held the key alone: nothing to write, only a key to check and store. */
  readonly link: boolean
}

/** The changes of one one-to-many value, in either form. */
export interface ToManyWrite extends Place {
  readonly relation: O2MRelation
  /** The basic (array) form: the array is the complete new set, and every other child is detached. */
  readonly replace: boolean
  /** Existing children to attach, by key. */
  readonly link: readonly KeyRef[]
  /** Children to create (no key) or update and attach (a key). */
  readonly items: readonly ItemWrite[]
  /** The detailed form's `delete`: children of this item to detach (see `O2MRelation.onDetach`). */
  readonly detach: readonly KeyRef[]
}

/** The item the plan writes for one key of an update (`data` applied to each key on its own). */
export const forKey = (write: ItemWrite, key: PrimaryKey): ItemWrite => ({ ...write, key })

/** How many rows a plan names: each item, link and detached key, at every level (nested rows count toward `maxBatchSize`). */
export function plannedRows(writes: readonly ItemWrite[]): number {
  let rows = 0
  for (const write of writes) {
    rows += 1
    for (const one of write.toOne) rows += plannedRows([one.item])
    for (const many of write.toMany) rows += many.link.length + many.detach.length + plannedRows(many.items)
  }
  return rows
}

/** Every collection a plan writes to (for its access rules and hooks). */
export function plannedCollections(writes: readonly ItemWrite[], into = new Set<Collection>()): Set<Collection> {
  for (const write of writes) {
    into.add(write.collection)
    for (const one of write.toOne) plannedCollections([one.item], into)
    for (const many of write.toMany) {
      into.add(many.relation.related)
      plannedCollections(many.items, into)
    }
  }
  return into
}
