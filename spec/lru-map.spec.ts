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

  it('keeps nothing at a capacity of 0', () => {
    const map = new LruMap<number>(true, 0)
    expect(map.keep('a', 1)).toBe(false)
    expect(map.size).toBe(0)
    expect(map.get('a')).toBeUndefined()
  })

  it('orders a large map by use as a model list does, through any mix of reads and writes', () => {
    // The entries are linked in order of use: a model of that order (an array) must agree after every step.
    const map = new LruMap<number>(true, 50)
    const model: string[] = []
    let seed = 7
    // The high bits of a linear congruential generator (its low bits repeat with a short period).
    const next = (): number => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) >>> 16
    for (let step = 0; step < 5_000; step += 1) {
      const key = String(next() % 80)
      const at = model.indexOf(key)
      if (next() % 2 === 0) {
        expect(map.get(key)).toBe(at === -1 ? undefined : Number(key))
        if (at !== -1) model.push(...model.splice(at, 1))
      } else {
        map.keep(key, Number(key))
        if (at !== -1) model.splice(at, 1)
        else if (model.length === 50) model.shift()
        model.push(key)
      }
      expect(map.size).toBe(model.length)
    }
    // New keys now evict the oldest entries, in the model's order.
    expect(model).toHaveLength(50)
    const survivors = model.slice(10)
    for (let fresh = 0; fresh < 10; fresh += 1) map.keep(`new ${fresh}`, fresh)
    expect(model.slice(0, 10).filter((key) => map.get(key) !== undefined)).toEqual([])
    expect(survivors.every((key) => map.get(key) === Number(key))).toBe(true)
  })

  it('stays within its capacity under a stream of new keys', () => {
    const map = new LruMap<number>(true, 100)
    for (let key = 0; key < 10_000; key += 1) map.keep(String(key), key)
    expect(map.size).toBe(100)
    expect(map.get('9900')).toBe(9900)
    expect(map.get('9899')).toBeUndefined()
  })
})
