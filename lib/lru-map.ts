// A map by string key with a bound on its size, for the router's caches (kept statements, statement templates,
// parsed queries): their keys come from requests, so without a bound a stream of new ones would grow it forever.

/** An entry in the order of use: a ring through the map's sentinel, oldest after it, newest before it. */
interface Entry<V> {
  readonly key: string
  value: V
  older: Entry<V>
  newer: Entry<V>
}

/**
 * With `evicts`, the least recently used entry makes room for a new one; without, a full map keeps nothing new.
 * The order of use is a list of linked entries, so a read moves its entry by relinking two neighbours. Moving
 * it in a Map instead (delete, then set again) costs far more than it looks: V8 leaves a hole per delete and
 * compacts the whole table when they pile up, so a hit would cost more as the map grows; relinked, it costs the
 * same at any size (bench row "list 25, a new URL each request" runs the caches full).
 */
export class LruMap<V extends NonNullable<unknown> | null> {
  private readonly entries = new Map<string, Entry<V>>()
  /** Neither oldest nor newest: its `newer` is the oldest entry, its `older` the newest. */
  private readonly ring: Entry<V | undefined>

  constructor(
    private readonly evicts: boolean,
    readonly capacity: number,
  ) {
    const ring = { key: '', value: undefined } as Entry<V | undefined>
    ring.older = ring.newer = ring
    this.ring = ring
  }

  get size(): number {
    return this.entries.size
  }

  /** The entry's value, now the most recently used; undefined when there is none (a value is never undefined). */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.newer !== this.ring) {
      this.unlink(entry)
      this.linkNewest(entry)
    }
    return entry.value
  }

  keep(key: string, value: V): boolean {
    const entry = this.entries.get(key)
    if (entry !== undefined) {
      entry.value = value
      this.unlink(entry)
      this.linkNewest(entry)
      return true
    }
    if (this.entries.size >= this.capacity) {
      const oldest = this.ring.newer
      // At a capacity of 0 there is no oldest entry: the ring is empty.
      if (!this.evicts || oldest === this.ring) return false
      this.unlink(oldest)
      this.entries.delete(oldest.key)
    }
    const added = { key, value } as Entry<V>
    this.linkNewest(added)
    this.entries.set(key, added)
    return true
  }

  private unlink(entry: Entry<V | undefined>): void {
    entry.older.newer = entry.newer
    entry.newer.older = entry.older
  }

  private linkNewest(entry: Entry<V | undefined>): void {
    const ring = this.ring
    entry.older = ring.older
    entry.newer = ring
    ring.older.newer = entry
    ring.older = entry
  }
}
