// One subscription of one connection: its collection, event, query through its caller's view, and the items it
// has told its client about, which decide whether a changed item is sent as created, updated or deleted.
import type { Collection } from '../schema/collection'
import { listedKey } from '../schema/item-key'
import type { Query } from '../query/query'
import type { Item, PrimaryKey, WriteAction } from '../types'
import type { SubscriptionEvent, Uid } from './messages'

/** An item a subscription's query matches, beside its key (the query's `fields` may leave the key out). */
export interface KeyedItem {
  readonly key: PrimaryKey
  readonly item: Item
}

/** What one write means to one subscription: at most one message per event, in this order. */
export interface Delivery {
  readonly event: WriteAction
  readonly data: readonly (Item | PrimaryKey)[]
}

export interface SubscriptionSpec {
  readonly uid: Uid | undefined
  readonly collection: Collection
  readonly event: WriteAction | null
  readonly query: Query
  /** Subscriptions with one reading key read the same items for a write: one read serves them all. */
  readonly readingKey: string
  readonly maxKnownItems: number
}

export class Subscription {
  readonly uid: Uid | undefined
  readonly collection: Collection
  readonly event: WriteAction | null
  readonly query: Query
  readonly readingKey: string
  private readonly maxKnownItems: number
  /**
   * The keys (as text) of the items the client holds: those of `init`, and every one sent since as created or
   * updated, less the deleted ones. In the order they were last sent, so the oldest is forgotten first.
   */
  private readonly known = new Set<string>()

  constructor(spec: SubscriptionSpec) {
    this.uid = spec.uid
    this.collection = spec.collection
    this.event = spec.event
    this.query = spec.query
    this.readingKey = spec.readingKey
    this.maxKnownItems = spec.maxKnownItems
  }

  /** The items of `init` are the first the client holds. */
  initialised(items: readonly KeyedItem[]): void {
    this.known.clear()
    for (const { key } of items) this.remember(key)
  }

  /** Whether the subscription sends messages of this event at all. */
  wants(event: SubscriptionEvent): boolean {
    return this.event === null || this.event === event
  }

  /**
   * The messages a write of `keys` means to this subscription, from the items among them its query matches now
   * (`matched`, in its sort; none for a delete):
   * - create: the matched items are created.
   * - update: a matched item the client holds is updated; one it does not hold has entered the query and is
   *   created; an item it holds that no longer matches has left it and is deleted.
   * - delete: only the items the client holds are deleted; others it never saw.
   * A subscription to one `event` gets only the messages of that event, and only for writes of that action.
   */
  deliveries(action: WriteAction, keys: readonly PrimaryKey[], matched: readonly KeyedItem[]): Delivery[] {
    if (action === 'delete') {
      const gone = keys.filter((key) => this.forget(key))
      return gone.length > 0 && this.wants('delete') ? [{ event: 'delete', data: this.keysAnswered(gone) }] : []
    }
    if (action === 'create') {
      for (const { key } of matched) this.remember(key)
      return matched.length > 0 && this.wants('create') ? [{ event: 'create', data: matched.map(({ item }) => item) }] : []
    }
    const still = new Set(matched.map(({ key }) => String(key)))
    const left = keys.filter((key) => !still.has(String(key)) && this.forget(key))
    const entered: Item[] = []
    const updated: Item[] = []
    for (const { key, item } of matched) (this.remember(key) ? updated : entered).push(item)
    if (this.event !== null)
      return this.event === 'update' && matched.length > 0 ? [{ event: 'update', data: matched.map(({ item }) => item) }] : []
    const deliveries: Delivery[] = []
    if (left.length > 0) deliveries.push({ event: 'delete', data: this.keysAnswered(left) })
    if (entered.length > 0) deliveries.push({ event: 'create', data: entered })
    if (updated.length > 0) deliveries.push({ event: 'update', data: updated })
    return deliveries
  }

  /** Keys as a delete event carries them: a composite key as an object of its fields, as lists of keys answer it. */
  private keysAnswered(keys: readonly PrimaryKey[]): (PrimaryKey | Item)[] {
    return keys.map((key) => listedKey(this.collection, key))
  }

  /** Remembers `key` as the newest known; answers whether it was known before. */
  private remember(key: PrimaryKey): boolean {
    const id = String(key)
    const before = this.known.delete(id)
    this.known.add(id)
    if (this.known.size > this.maxKnownItems) this.known.delete(this.known.values().next().value!)
    return before
  }

  /** Forgets `key`; answers whether it was known. */
  private forget(key: PrimaryKey): boolean {
    return this.known.delete(String(key))
  }
}
