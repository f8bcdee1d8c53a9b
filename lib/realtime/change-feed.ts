// The live subscriptions of one router, by collection, and the delivery of each committed write to them: the
// changed items are read once per reading key (caller's view and query), and each subscription turns the
// result into its own messages. Writes to one collection are delivered in the order they came; writes that
// come while an earlier one is still being delivered wait, and a waiting write of the same action as the one
// before it joins that one (see ChangeFeed.changed).
import { both, keysIn } from '../query/filter-node'
import type { Logger, RealtimeChange } from '../types'
import { subscriptionFrame } from './messages'
import type { RealtimeSeam } from './realtime-seam'
import type { KeyedItem, Subscription } from './subscription'
import { keyedItems } from './subscription-query'

/** The most keys waiting writes are joined up to: one read's `IN` list stays of a size a single write may have. */
const MAX_JOINED_KEYS = 1000

/** A subscription with the way to its client. */
export interface Watcher {
  readonly subscription: Subscription
  send(frame: object): void
}

export class ChangeFeed {
  private readonly byCollection = new Map<string, Set<Watcher>>()
  /** Per collection being delivered, the writes waiting for the delivery under way, oldest first. */
  private readonly waiting = new Map<string, RealtimeChange[]>()
  /** Per collection, the delivery under way and those its waiting writes will make. */
  private readonly drains = new Map<string, Promise<void>>()
  private count = 0

  constructor(
    private readonly seam: RealtimeSeam,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.count
  }

  add(watcher: Watcher): void {
    const name = watcher.subscription.collection.name
    let watchers = this.byCollection.get(name)
    if (watchers === undefined) this.byCollection.set(name, (watchers = new Set()))
    watchers.add(watcher)
    this.count++
  }

  remove(watcher: Watcher): void {
    const name = watcher.subscription.collection.name
    const watchers = this.byCollection.get(name)
    if (watchers?.delete(watcher)) {
      this.count--
      if (watchers.size === 0) this.byCollection.delete(name)
    }
  }

  /**
   * A committed write, from this process or another. While a write of the collection is being delivered, later
   * ones wait; one that comes after a waiting write of the same action joins it, its keys added. Every delivery
   * reads the items as they are by then, so two waiting updates of one item would send its latest values twice:
   * joined, writes that come faster than they are delivered cost one delivery together rather than one each, and
   * the wait stops growing with every write (`npm run bench:realtime`, the write path's rows).
   */
  changed(change: RealtimeChange): void {
    if (!this.byCollection.has(change.collection) || change.keys.length === 0) return
    const waiting = this.waiting.get(change.collection)
    if (waiting === undefined) {
      this.waiting.set(change.collection, [change])
      this.drains.set(change.collection, this.drain(change.collection))
      return
    }
    const last = waiting.at(-1)
    if (last !== undefined && last.action === change.action && last.keys.length + change.keys.length <= MAX_JOINED_KEYS) {
      const known = new Set(last.keys.map(String))
      waiting[waiting.length - 1] = { ...last, keys: [...last.keys, ...change.keys.filter((key) => !known.has(String(key)))] }
    } else waiting.push(change)
  }

  /** Resolves once every write that came so far is delivered (for shutdown and specs). */
  async settled(): Promise<void> {
    while (this.drains.size > 0) await Promise.all(this.drains.values())
  }

  /** Delivers the collection's writes one after another until none waits. */
  private async drain(collection: string): Promise<void> {
    // Delivered on a later tick: a write's caller never runs a delivery inside its own emit.
    await Promise.resolve()
    const waiting = this.waiting.get(collection)!
    for (let change = waiting.shift(); change !== undefined; change = waiting.shift()) {
      const { action } = change
      // A failure is one write's: the writes after it are still delivered.
      await this.deliver(change).catch((error: unknown) =>
        this.logger.error(`express-items-router: realtime could not deliver the ${action} of ${collection}`, error),
      )
    }
    this.waiting.delete(collection)
    this.drains.delete(collection)
  }

  private async deliver(change: RealtimeChange): Promise<void> {
    const watchers = [...(this.byCollection.get(change.collection) ?? [])]
    const reads = new Map<string, Promise<KeyedItem[] | null>>()
    const matchedBy = (subscription: Subscription): Promise<KeyedItem[] | null> => {
      let read = reads.get(subscription.readingKey)
      if (read === undefined) reads.set(subscription.readingKey, (read = this.readChanged(subscription, change)))
      return read
    }
    await Promise.all(
      watchers.map(async (watcher) => {
        const { subscription } = watcher
        const matched = change.action === 'delete' ? [] : await matchedBy(subscription)
        // A failed read is logged once (readChanged); its subscribers hear nothing of this write.
        if (matched === null) return
        // Unsubscribed while the read ran.
        if (!this.byCollection.get(change.collection)?.has(watcher)) return
        for (const { event, data } of subscription.deliveries(change.action, change.keys, matched)) {
          watcher.send(subscriptionFrame(event, data, subscription.uid))
        }
      }),
    )
  }

  /** The changed items the subscription's query matches now, in its sort; null when the read failed. */
  private async readChanged(subscription: Subscription, change: RealtimeChange): Promise<KeyedItem[] | null> {
    const { collection, query } = subscription
    const filter = both(query.filter, keysIn(collection, change.keys))
    try {
      const page = await this.seam.run(() =>
        this.seam.services.repository.list(collection, { ...query, filter, limit: null, offset: 0, after: null }),
      )
      return keyedItems(page.items, collection)
    } catch (error) {
      this.logger.error(`express-items-router: realtime could not read the ${change.action} of ${collection.name}`, error)
      return null
    }
  }
}
