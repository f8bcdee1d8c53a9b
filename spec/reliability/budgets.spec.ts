// Each request's work is bounded before or while SQL runs: every budget answers a 400 naming its option, at the
// default and at a small configured value, and the bounds that can be checked while parsing send no SQL at all.
import type { Express } from 'express'
import request, { type Response } from 'supertest'
import { collections } from '../../fixtures/schema'
import type { ItemsRouterOptions } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError } from '../support/expect-error'

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** A json value of JSON_DEPTH `depth`: `depth - 1` arrays around a number (`[[1]]` is 3). */
function nestedJson(depth: number): unknown {
  let value: unknown = 1
  for (let level = 1; level < depth; level++) value = [value]
  return value
}

function ok(response: Response): unknown {
  expect({ status: response.status, body: response.status === 200 ? null : (response.body as unknown) }).toEqual({
    status: 200,
    body: null,
  })
  return (response.body as { data: unknown }).data
}

const SAMPLE = '0b9e6f4a-1c2d-4e5f-8a9b-000000000001'

forEachDialect((ctx: DialectContext) => {
  /** Sends `send(app)` and asserts a 400 with `code` whose message names `option`; answers the statements sent. */
  async function refused(
    app: Express,
    send: (agent: ReturnType<typeof request>) => PromiseLike<Response>,
    option: string,
    code: 'INVALID_QUERY' | 'INVALID_PAYLOAD' | 'FAILED_VALIDATION' = 'INVALID_QUERY',
  ): Promise<number> {
    const { result, count } = await ctx.countQueries(async () => await send(request(app)))
    expect(expectError(result, 400, code).message).toContain(option)
    return count
  }

  const appWith = (options: Partial<ItemsRouterOptions> = {}): Express => createApp(ctx.knex, options)
  let app: Express
  beforeAll(() => {
    app = appWith()
  })

  describe('maxLimit (rows per list)', () => {
    it('the default (1000) refuses limit=1001 without SQL', async () => {
      expect(await refused(app, (a) => a.get('/api/items/articles?limit=1001'), 'maxLimit')).toBe(0)
    })

    it('limit=-1 means "up to maxLimit"', async () => {
      expect(ok(await request(app).get('/api/items/articles?fields=id&limit=-1'))).toHaveLength(300)
      const small = appWith({ maxLimit: 7, defaultLimit: 7 })
      expect(ok(await request(small).get('/api/items/articles?fields=id&limit=-1'))).toEqual(range(1, 7).map((id) => ({ id })))
      expect(await refused(small, (a) => a.get('/api/items/articles?limit=8'), 'maxLimit')).toBe(0)
    })

    it('a per-collection maxLimit overrides the router one', async () => {
      const small = appWith({ collections: { ...collections, comments: { ...collections.comments, maxLimit: 2, defaultLimit: 2 } } })
      expect(ok(await request(small).get('/api/items/articles?fields=id&limit=3'))).toHaveLength(3)
      expect(await refused(small, (a) => a.get('/api/items/comments?limit=3'), 'maxLimit')).toBe(0)
    })

    it('deep[rel][_limit]=-1 is capped per parent, and an explicit larger one is refused without SQL', async () => {
      const small = appWith({ maxLimit: 2, defaultLimit: 2 })
      const data = ok(await request(small).get('/api/items/articles?fields=id,comments.id&limit=2&deep[comments][_limit]=-1')) as Array<{
        comments: unknown[]
      }>
      for (const article of data) expect(article.comments.length).toBeLessThanOrEqual(2)
      expect(await refused(small, (a) => a.get('/api/items/articles?fields=id,comments.id&deep[comments][_limit]=3'), 'maxLimit')).toBe(0)
    })
  })

  describe('maxLoadedRows (rows across every statement of a read)', () => {
    it('the default (10000) serves fields=*.*.* over every article', async () => {
      expect(ok(await request(app).get('/api/items/articles?fields=*.*.*&limit=-1'))).toHaveLength(300)
    })

    it('a small value refuses a read whose relations pass it, each statement asking for one row more than is left', async () => {
      // Articles 1, 2 and 3 have 44, 20 and 11 comments: two articles load 66 rows, three load 78.
      const small = appWith({ maxLoadedRows: 70 })
      expect(ok(await request(small).get('/api/items/articles?fields=id,comments.id&limit=2'))).toHaveLength(2)
      const { result, sql } = await ctx.countQueries(() => request(small).get('/api/items/articles?fields=id,comments.id&limit=3'))
      expect(expectError(result, 400, 'INVALID_QUERY').message).toContain('maxLoadedRows')
      // A plain read of the comments falls short of their windows first.
      expect(sql).toHaveLength(3)
      for (const statement of sql.slice(1)) expect(statement).toMatch(/limit (\?|\$\d+)$/i)
    })

    it('counts the page itself', async () => {
      const small = appWith({ maxLoadedRows: 5 })
      expect(await refused(small, (a) => a.get('/api/items/articles?fields=id&limit=6'), 'maxLoadedRows')).toBe(1)
      expect(ok(await request(small).get('/api/items/articles?fields=id&limit=5'))).toHaveLength(5)
    })

    it('guards a single item read with nested relations', async () => {
      const small = appWith({ maxLoadedRows: 3 })
      const { result } = await ctx.countQueries(() => request(small).get('/api/items/authors/1?fields=id,articles.id,articles.comments.id'))
      expectError(result, 400, 'INVALID_QUERY')
    })
  })

  describe('maxFilterConditions', () => {
    const orOf = (n: number): Record<string, unknown> => ({ _or: range(1, n).map((id) => ({ id: { _eq: id } })) })
    const jsonFilter = (filter: unknown): string => `filter=${encodeURIComponent(JSON.stringify(filter))}`

    it('the default (2000) refuses a by-query write with 70,000 _or terms without SQL, and nothing changes', async () => {
      const body = { query: { filter: { _or: range(1, 70_000).map((id) => ({ id })) } }, data: { rating: 1 } }
      expect(await refused(app, (a) => a.patch('/api/items/articles').send(body), 'maxFilterConditions')).toBe(0)
    })

    it('the default accepts 2000 conditions (two lists of 1000 values)', async () => {
      const lists = `filter[id][_in]=${range(1, 1000).join(',')}&filter[rating][_nin]=${range(1001, 2000).join(',')}`
      expect(ok(await request(app).get(`/api/items/articles?fields=id&limit=-1&${lists}`))).toHaveLength(
        (ok(await request(app).get('/api/items/articles?fields=id&limit=-1&filter[rating][_nnull]=true')) as unknown[]).length,
      )
    })

    it('a small value counts conditions, list values and group entries', async () => {
      const small = appWith({ maxFilterConditions: 4 })
      expect(ok(await request(small).get('/api/items/articles?fields=id&filter[id][_in]=1,2,3,4'))).toHaveLength(4)
      expect(await refused(small, (a) => a.get('/api/items/articles?filter[id][_in]=1,2,3,4,5'), 'maxFilterConditions')).toBe(0)
      expect(await refused(small, (a) => a.get(`/api/items/articles?${jsonFilter(orOf(3))}`), 'maxFilterConditions')).toBe(0)
      expect(
        await refused(
          small,
          (a) => a.get(`/api/items/articles?fields=id,comments.id&deep[comments][_filter]=${encodeURIComponent(JSON.stringify(orOf(3)))}`),
          'maxFilterConditions',
        ),
      ).toBe(0)
    })

    it('counts every filter of the request together: the main one and each deep one', async () => {
      const small = appWith({ maxFilterConditions: 4 })
      const deep = `deep[comments][_filter]=${encodeURIComponent(JSON.stringify({ id: { _in: [1, 2] } }))}`
      expect(ok(await request(small).get(`/api/items/articles?fields=id,comments.id&filter[id][_in]=1,2&${deep}`))).toHaveLength(2)
      expect(
        await refused(
          small,
          (a) => a.get(`/api/items/articles?fields=id,comments.id&filter[id][_in]=1,2,3&${deep}`),
          'maxFilterConditions',
        ),
      ).toBe(0)
    })
  })

  describe('maxPatternConditions (substring, prefix and suffix matches)', () => {
    const patterns = (operators: string[]): string =>
      `filter=${encodeURIComponent(JSON.stringify({ _or: operators.map((operator, i) => ({ title: { [operator]: `x${i}` } })) }))}`

    it('the default (3) accepts three and refuses a fourth of any pattern operator without SQL', async () => {
      ok(await request(app).get(`/api/items/articles?fields=id&${patterns(['_icontains', '_starts_with', '_nends_with'])}`))
      for (const fourth of ['_contains', '_nicontains', '_istarts_with', '_iends_with']) {
        const query = patterns(['_icontains', '_starts_with', '_nends_with', fourth])
        expect(await refused(app, (a) => a.get(`/api/items/articles?fields=id&${query}`), 'maxPatternConditions')).toBe(0)
      }
    })

    it('counts deep filters and relational conditions with the main filter, and not equality or search', async () => {
      const small = appWith({ maxPatternConditions: 1 })
      ok(await request(small).get('/api/items/articles?fields=id&filter[title][_icontains]=a&filter[status][_eq]=draft&search=b'))
      expect(
        await refused(
          small,
          (a) => a.get('/api/items/articles?fields=id,comments.id&filter[title][_icontains]=a&deep[comments][_filter][body][_contains]=b'),
          'maxPatternConditions',
        ),
      ).toBe(0)
      expect(
        await refused(
          small,
          (a) => a.get('/api/items/articles?fields=id&filter[title][_icontains]=a&filter[author][name][_istarts_with]=b'),
          'maxPatternConditions',
        ),
      ).toBe(0)
    })

    it('bounds a by-query write the same way, and nothing changes', async () => {
      const small = appWith({ maxPatternConditions: 1 })
      const body = { query: { filter: { _or: [{ title: { _contains: 'a' } }, { title: { _contains: 'b' } }] } }, data: { rating: 1 } }
      expect(await refused(small, (a) => a.patch('/api/items/articles').send(body), 'maxPatternConditions')).toBe(0)
    })

    it('does not bound the access rules the host writes', async () => {
      const anyOf = { _or: ['a', 'e', 'i', 'o', 'u'].map((letter) => ({ title: { _icontains: letter } })) }
      const guarded = appWith({
        maxPatternConditions: 1,
        collections: { ...collections, articles: { ...collections.articles, access: { read: { filter: anyOf } } } },
      })
      expect((ok(await request(guarded).get('/api/items/articles?fields=id&limit=-1')) as unknown[]).length).toBeGreaterThan(0)
    })
  })

  describe('maxListEntries (fields, sort, groupBy, aggregate, alias)', () => {
    const list = (n: number, name: string): string => Array.from({ length: n }, () => name).join(',')

    it.each([
      ['groupBy', `groupBy=${list(2000, 'status')}&aggregate[count]=*`],
      ['aggregate', `aggregate[count]=${list(2000, 'id')}`],
      ['sort', `sort=${list(101, 'id')}`],
      ['fields', `fields=${list(101, 'id')}`],
    ])('the default (100) refuses %s past it without SQL', async (parameter, query) => {
      const { result, count } = await ctx.countQueries(() => request(app).get(`/api/items/articles?${query}`))
      const error = expectError(result, 400, 'INVALID_QUERY')
      expect(error.message).toContain('maxListEntries')
      expect(error.message).toContain(parameter)
      expect(count).toBe(0)
    })

    it('a small value (2) accepts two entries and refuses three', async () => {
      const small = appWith({ maxListEntries: 2 })
      expect(ok(await request(small).get('/api/items/articles?fields=id,title&sort=status,-id&limit=1'))).toHaveLength(1)
      expect(await refused(small, (a) => a.get('/api/items/articles?fields=id,title,status'), 'maxListEntries')).toBe(0)
      expect(await refused(small, (a) => a.get('/api/items/articles?groupBy=status,rating,author'), 'maxListEntries')).toBe(0)
    })

    it('counts alias entries, in bracket and JSON form', async () => {
      const small = appWith({ maxListEntries: 2 })
      ok(await request(small).get('/api/items/articles?fields=a,b&alias[a]=title&alias[b]=status&limit=1'))
      expect(await refused(small, (a) => a.get('/api/items/articles?alias[a]=id&alias[b]=id&alias[c]=id'), 'maxListEntries')).toBe(0)
      const json = encodeURIComponent(JSON.stringify({ a: 'id', b: 'id', c: 'id' }))
      expect(await refused(small, (a) => a.get(`/api/items/articles?alias=${json}`), 'maxListEntries')).toBe(0)
    })
  })

  describe('deep nesting', () => {
    it('a JSON deep nested past maxRelationalDepth is refused without SQL', async () => {
      // A SEARCH body is bounded by maxJsonDepth before parsing; a URL's JSON is bounded by its length only.
      const levels = 300
      const deep = '{"comments":{"article":'.repeat(levels) + '{}' + '}}'.repeat(levels)
      const { result, count } = await ctx.countQueries(() => request(app).get(`/api/items/articles?fields=id&deep=${deep}`))
      expect(expectError(result, 400, 'INVALID_QUERY').message).toContain('"deep" crosses more than 10 relations')
      expect(count).toBe(0)
    })
  })

  describe('maxJsonDepth', () => {
    beforeEach(() => ctx.reset())

    it('the default (32) stores a value nested 32 deep and refuses 33 without SQL', async () => {
      const stored = ok(
        await request(app)
          .patch(`/api/items/samples/${SAMPLE}?fields=payload`)
          .send({ payload: nestedJson(32) }),
      )
      expect(stored).toEqual({ payload: nestedJson(32) })
      const count = await refused(
        app,
        (a) => a.patch(`/api/items/samples/${SAMPLE}`).send({ payload: nestedJson(33) }),
        'maxJsonDepth',
        'FAILED_VALIDATION',
      )
      expect(count).toBe(0)
    })

    it('a small value (2) refuses [[1]] in a payload and a body nested far deeper before parsing it', async () => {
      const small = appWith({ maxJsonDepth: 2 })
      expect(
        ok(
          await request(small)
            .post('/api/items/samples?fields=payload')
            .send({ payload: [1] }),
        ),
      ).toEqual({ payload: [1] })
      const nested = await refused(small, (a) => a.post('/api/items/samples').send({ payload: [[1]] }), 'maxJsonDepth', 'FAILED_VALIDATION')
      expect(nested).toBe(0)
      const deep = `{"payload":${'['.repeat(50)}${']'.repeat(50)}}`
      const unparsed = await refused(
        small,
        (a) => a.post('/api/items/samples').set('Content-Type', 'application/json').send(deep),
        'maxJsonDepth',
        'INVALID_PAYLOAD',
      )
      expect(unparsed).toBe(0)
    })

    it('content-version saves are bounded the same way', async () => {
      const small = appWith({ maxJsonDepth: 2 })
      const created = await request(small).post('/api/versions').send({ key: 'deep', collection: 'articles', item: '1' })
      const id = (ok(created) as { id: number }).id
      await refused(small, (a) => a.post(`/api/versions/${id}/save`).send({ tags: [[1]] }), 'maxJsonDepth', 'FAILED_VALIDATION')
    })
  })

  describe('relation rows load without spreading them onto the stack', () => {
    const MANY = 200_000
    afterAll(() => ctx.reset())

    it(`an o2m with ${MANY} related rows answers when the budgets allow it (push(...rows) overflowed the stack)`, async () => {
      // One statement generates the rows on every database: 50 × 50 × 80 from a recursive CTE (MariaDB stops
      // recursion at 1000 iterations), fed to INSERT ... SELECT.
      const generate =
        'with recursive n(i) as (select 1 union all select i + 1 from n where i < 80) ' +
        "select 1 as article, 'bulk' as body, 0 as votes from n a cross join n b cross join n c where a.i <= 50 and b.i <= 50"
      await ctx.knex.raw(`insert into comments (article, body, votes) ${generate}`)
      const roomy = appWith({ maxLimit: 300_000, maxLoadedRows: 300_000 })
      const data = ok(await request(roomy).get('/api/items/articles/1?fields=id,comments&deep[comments][_limit]=-1')) as {
        comments: unknown[]
      }
      expect(data.comments.length).toBeGreaterThan(MANY)
    }, 60_000)

    it('the default budgets answer the same read with maxLimit (1000) comments', async () => {
      const data = ok(await request(app).get('/api/items/articles/1?fields=id,comments&deep[comments][_limit]=-1')) as {
        comments: unknown[]
      }
      expect(data.comments).toHaveLength(1000)
    })
  })
})
