// A map by string key with a bound on its size, for the router's caches (kept statements, statement plans,
// parsed queries): their keys come from requests, so without a bound a stream of new ones would grow it forever.

interface Entry<V> {
  value: V
  /** When the entry was last kept or read, on the map's own clock. */
  used: number
}

/**
 * With `evicts`, the least recently used entry makes room for a new one; without, a full map keeps nothing new.
 * A read only stamps its entry (reordering the Map on every hit would cost more than the hit saves); the
 * least recently used one is found when room is needed, which a map under its bound never pays for.
 */
export class LruMap<V> {
  private readonly entries = new Map<string, Entry<V>>()
  private clock = 0

  constructor(
    private readonly evicts: boolean,
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.entries.size
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    entry.used = ++this.clock
    return entry.value
  }

  keep(key: string, value: V): boolean {
    const entry = this.entries.get(key)
    if (entry !== undefined) {
      entry.value = value
      entry.used = ++this.clock
      return true
    }
    if (this.entries.size >= this.capacity) {
      if (!this.evicts) return false
      this.entries.delete(this.leastRecentlyUsed()!)
    }
    this.entries.set(key, { value, used: ++this.clock })
    return true
  }

  private leastRecentlyUsed(): string | undefined {
    let oldest: string | undefined
    let when = Number.POSITIVE_INFINITY
    for (const [key, entry] of this.entries) {
      if (entry.used < when) [oldest, when] = [key, entry.used]
    }
    return oldest
  }
}
