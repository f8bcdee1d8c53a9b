// The query string reader answers what qs answers: its one-pass reading of the usual query string
// (readPlainQueryString) and its fallback to qs for everything else, over generated query strings with lists,
// repeated and conflicting keys, escapes, malformed brackets and limits.
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import qs from 'qs'
import { qsOptions, readPlainQueryString, readQueryString, type QueryStringLimits } from '../../lib/query/read-query-string'

const ROOTS = ['a', 'b', 'filter', 'fields', '0', 'x y', 'a%5Bb', '%E0', 'c+d', '', 'constructor']
const SEGMENTS = ['b', 'c', '_eq', '0', '1', '', '01', ' 1', 'x.y', '%5D', '[', 'b%5D%5Bc']
const VALUES = ['', '1', 'a+b', '%20x', '%E0%A4', '%', 'x=y', '%5B', 'é', 'id,title', '-rating', '[]', 'a]=b']

const key = fc
  .tuple(fc.constantFrom(...ROOTS), fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 4 }), fc.boolean())
  .map(([root, segments, closed]) => root + segments.map((segment) => `[${segment}${closed ? ']' : ''}`).join(''))
const part = fc.oneof(
  fc.tuple(key, fc.constantFrom(...VALUES)).map(([name, value]) => `${name}=${value}`),
  key,
  fc.constant(''),
)
const text = fc.array(part, { maxLength: 8 }).map((parts) => parts.join('&'))
const limits = fc.record({
  maxParameters: fc.integer({ min: 1, max: 10 }),
  maxArrayLength: fc.integer({ min: 1, max: 5 }),
  maxDepth: fc.integer({ min: 1, max: 4 }),
})

/** What a reading gives: its value, or that it threw. */
function outcome(read: () => unknown): { value: unknown } | 'throws' {
  try {
    return { value: read() }
  } catch {
    return 'throws'
  }
}

describe('readQueryString', () => {
  const usual: QueryStringLimits = { maxParameters: 100, maxArrayLength: 100, maxDepth: 10 }

  it('reads the usual query string in one pass, as qs does', () => {
    for (const query of [
      'filter[status][_eq]=published&sort=-rating&limit=25&fields=id,title,rating,author.name',
      'filter%5Bauthor%5D%5Bname%5D%5B_icontains%5D=a+b%20c&meta=filter_count',
      'aggregate[count]=*&groupBy=author&deep[comments][_limit]=3',
    ]) {
      const plain = readPlainQueryString(query, usual)
      expect(plain).not.toBeNull()
      expect(isDeepStrictEqual(plain, qs.parse(query, qsOptions(usual)))).toBe(true)
    }
  })

  it('leaves lists, repeated keys and a value that is also a parent to qs', () => {
    for (const query of ['fields[]=id&fields[]=title', 'filter[_and][0][id][_eq]=1', 'sort=id&sort=title', 'a=1&a[b]=2', 'a[b=1']) {
      expect(readPlainQueryString(query, usual)).toBeNull()
    }
  })

  it('answers what qs answers, or refuses what qs refuses, for any query string', () => {
    fc.assert(
      fc.property(text, limits, (query, bounds) => {
        const plain = readPlainQueryString(query, bounds)
        const byQs = outcome(() => qs.parse(query, qsOptions(bounds)))
        // Where the one-pass reading answers, qs answers the same; either way the reader answers as qs does.
        if (plain !== null) expect(byQs !== 'throws' && isDeepStrictEqual(plain, byQs.value)).toBe(true)
        const read = outcome(() => readQueryString(`/x?${query}`, bounds))
        expect(read === 'throws' ? read : isDeepStrictEqual(read.value, byQs === 'throws' ? byQs : byQs.value)).toBe(
          byQs === 'throws' ? 'throws' : true,
        )
      }),
      { numRuns: 3000 },
    )
  })
})
