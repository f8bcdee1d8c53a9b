// A map by string key with a bound on its size, for the router's caches (kept statements, statement plans,
// parsed queries): their keys come from requests, so without a bound a stream of new ones would grow it forever.

/**
 * With `evicts`, the least recently used entry makes room for a new one; without, a full map keeps nothing new.
 * The Map's insertion order is the order of use: a read moves its entry to the end, so the first entry is the
 * one to drop. A stream of new keys (a list whose filter value changes on every request) evicts on every
 * request, and finding the entry in constant time matters more there than the few nanoseconds a hit pays to
 * move its entry.
 */
export class LruMap<V extends NonNullable<unknown> | null> {
  private readonly entries = new Map<string, V>()

  constructor(
    private readonly evicts: boolean,
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.entries.size
  }

  /** The entry's value, now the most recently used; undefined when there is none (a value is never undefined). */
  get(key: string): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  keep(key: string, value: V): boolean {
    if (this.entries.delete(key)) {
      this.entries.set(key, value)
      return true
    }
    if (this.entries.size >= this.capacity) {
      if (!this.evicts) return false
      this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, value)
    return true
  }
}
