// The live subscriptions of one router, by collection, and the delivery of each committed write to them: the
// changed items are read once per reading key (caller's view and query), and each subscription turns the
// result into its own messages. Writes to one collection are delivered in the order they came.
import { both, fieldIn } from '../query/filter-node'
import type { Logger, RealtimeChange } from '../types'
import { subscriptionFrame } from './messages'
import type { RealtimeSeam } from './realtime-seam'
import type { KeyedItem, Subscription } from './subscription'
import { keyedItems } from './subscription-query'

/** A subscription with the way to its client. */
export interface Watcher {
  readonly subscription: Subscription
  send(frame: object): void
}

export class ChangeFeed {
  private readonly byCollection = new Map<string, Set<Watcher>>()
  /** Per collection, the delivery of the last write that came: the next one waits for it. */
  private readonly queues = new Map<string, Promise<void>>()
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

  /** A committed write, from this process or another. */
  changed(change: RealtimeChange): void {
    if (!this.byCollection.has(change.collection) || change.keys.length === 0) return
    const previous = this.queues.get(change.collection) ?? Promise.resolve()
    const delivered = previous.then(() => this.deliver(change))
    this.queues.set(change.collection, delivered)
    void delivered.then(() => {
      if (this.queues.get(change.collection) === delivered) this.queues.delete(change.collection)
    })
  }

  /** Resolves once every write that came so far is delivered (for shutdown and specs). */
  async settled(): Promise<void> {
    while (this.queues.size > 0) await Promise.all(this.queues.values())
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
    const filter = both(query.filter, fieldIn(collection.primaryKey, change.keys))
    try {
      const page = await this.seam.run(() =>
        this.seam.services.repository.list(collection, { ...query, filter, limit: null, offset: 0, after: null }),
      )
      return keyedItems(page.items)
    } catch (error) {
      this.logger.error(`express-items-router: realtime could not read the ${change.action} of ${collection.name}`, error)
      return null
    }
  }
}
