// The bounded map behind the router's caches: which entry makes room for a new one.
import { LruMap } from '../lib/lru-map'

const keysOf = (map: LruMap<number>, candidates: readonly string[]): string[] => candidates.filter((key) => map.get(key) !== undefined)

describe('LruMap', () => {
  it('drops the least recently used entry, a read or a new value counting as a use', () => {
    const map = new LruMap<number>(true, 3)
    map.keep('a', 1)
    map.keep('b', 2)
    map.keep('c', 3)
    map.get('a')
    map.keep('b', 20)
    // Least recently used now: c.
    expect(map.keep('d', 4)).toBe(true)
    expect(map.size).toBe(3)
    expect(map.get('c')).toBeUndefined()
    expect(map.get('b')).toBe(20)
    // Least recently used now: a (then d, then b).
    map.keep('e', 5)
    expect(keysOf(map, ['a', 'b', 'c', 'd', 'e'])).toEqual(['b', 'd', 'e'])
  })

  it('keeps nothing new once full when it may not evict, and still updates what it holds', () => {
    const map = new LruMap<number>(false, 2)
    expect(map.keep('a', 1)).toBe(true)
    expect(map.keep('b', 2)).toBe(true)
    expect(map.keep('c', 3)).toBe(false)
    expect(map.keep('a', 10)).toBe(true)
    expect(keysOf(map, ['a', 'b', 'c'])).toEqual(['a', 'b'])
    expect(map.get('a')).toBe(10)
  })

  it('stays within its capacity under a stream of new keys', () => {
    const map = new LruMap<number>(true, 100)
    for (let key = 0; key < 10_000; key += 1) map.keep(String(key), key)
    expect(map.size).toBe(100)
    expect(map.get('9900')).toBe(9900)
    expect(map.get('9899')).toBeUndefined()
  })
})
