// A map by string key with a bound on its size, for the router's caches (kept statements, statement plans,
// parsed queries): their keys come from requests, so without a bound a stream of new ones would grow it forever.

/** With `evicts`, the least recently used entry makes room for a new one; without, a full map keeps nothing new. */
export class LruMap<V> {
  private readonly entries = new Map<string, V>()

  constructor(
    private readonly evicts: boolean,
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const value = this.entries.get(key)
    if (value !== undefined && this.evicts) {
      // Map order is insertion order: moving the hit to the end keeps the least recently used first.
      this.entries.delete(key)
      this.entries.set(key, value)
    }
    return value
  }

  keep(key: string, value: V): boolean {
    if (this.entries.size >= this.capacity && !this.entries.has(key)) {
      if (!this.evicts) return false
      const oldest = this.entries.keys().next()
      if (!oldest.done) this.entries.delete(oldest.value)
    }
    this.entries.set(key, value)
    return true
  }
}
