// Every configured limit (filter depth, _in length, query parameters, bracket depth, limit, batch size, body size, search length) is enforced with a clear 4xx code, at its boundary, and nothing is written.
import type { Express } from 'express'
import request, { type Response } from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import type { CollectionDefinition, ErrorCode } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError, type RenderedError } from '../support/expect-error'

type Method = 'get' | 'post' | 'patch' | 'delete'

const SEEDED = { articles: seed.articles.length, authors: seed.authors.length, article_topics: seed.article_topics.length }

async function rowCounts(ctx: DialectContext): Promise<typeof SEEDED> {
  const count = async (table: string): Promise<number> => Number((await ctx.knex(table).count({ n: '*' }))[0]!.n)
  return { articles: await count('articles'), authors: await count('authors'), article_topics: await count('article_topics') }
}

function ids(response: Response): number[] {
  // The body rides along so that an unexpected error shows its reason.
  expect({ status: response.status, body: response.status === 200 ? null : (response.body as unknown) }).toEqual({
    status: 200,
    body: null,
  })
  return (response.body as { data: Array<{ id: number }> }).data.map((item) => item.id)
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i)

/** `depth` nested groups, alternating `_and` / `_or`, around `id = 1`. */
function nestedFilter(depth: number): Record<string, unknown> {
  let filter: Record<string, unknown> = { id: { _eq: 1 } }
  for (let level = 0; level < depth; level++) filter = { [level % 2 === 0 ? '_and' : '_or']: [filter] }
  return filter
}

/** The same as bracket syntax: `filter[_and][0][_or][0]...[id][_eq]=1`. */
function nestedBrackets(depth: number): string {
  const groups = range(1, depth).map((level) => `[${level % 2 === 1 ? '_and' : '_or'}][0]`)
  return `filter${groups.reverse().join('')}[id][_eq]=1`
}

const jsonFilter = (filter: unknown): string => `filter=${encodeURIComponent(JSON.stringify(filter))}`

forEachDialect((ctx) => {
  /** Sends a request and checks that it was refused with `code` before any SQL was sent. */
  async function refusedWithoutSql(
    app: Express,
    method: Method,
    path: string,
    body: unknown,
    status: number,
    code: ErrorCode,
  ): Promise<RenderedError> {
    const { result: response, count } = await ctx.countQueries(async () => {
      const call = request(app)[method](path)
      return body === undefined ? await call : await call.send(body as object)
    })
    const error = expectError(response, status, code)
    expect(count).toBe(0)
    return error
  }

  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  describe('maxFilterDepth', () => {
    it.each([1, 5, 10])('the default (10) accepts %d nested _and/_or groups', async (depth) => {
      expect(ids(await request(app).get(`/api/items/articles?fields=id&${jsonFilter(nestedFilter(depth))}`))).toEqual([1])
      expect(ids(await request(app).get(`/api/items/articles?fields=id&${nestedBrackets(depth)}`))).toEqual([1])
    })

    it.each([11, 20])('the default (10) refuses %d nested groups (JSON form) without SQL', async (depth) => {
      const error = await refusedWithoutSql(
        app,
        'get',
        `/api/items/articles?${jsonFilter(nestedFilter(depth))}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
      expect(error.extensions.reason).toContain('10')
    })

    it('the default (10) refuses 11 nested groups (bracket form) without SQL', async () => {
      await refusedWithoutSql(app, 'get', `/api/items/articles?${nestedBrackets(11)}`, undefined, 400, 'INVALID_QUERY')
    })

    it('a pathologically deep JSON filter is refused without SQL (and without a stack overflow)', async () => {
      await refusedWithoutSql(app, 'get', `/api/items/articles?${jsonFilter(nestedFilter(400))}`, undefined, 400, 'INVALID_QUERY')
    })

    it('maxFilterDepth: 3 accepts exactly 3 nested groups and refuses 4', async () => {
      const shallow = createApp(ctx.knex, { maxFilterDepth: 3 })
      expect(ids(await request(shallow).get(`/api/items/articles?fields=id&${jsonFilter(nestedFilter(3))}`))).toEqual([1])
      expect(ids(await request(shallow).get(`/api/items/articles?fields=id&${nestedBrackets(3)}`))).toEqual([1])
      const error = await refusedWithoutSql(
        shallow,
        'get',
        `/api/items/articles?${jsonFilter(nestedFilter(4))}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
      expect(error.extensions.reason).toContain('3')
      await refusedWithoutSql(shallow, 'get', `/api/items/articles?${nestedBrackets(4)}`, undefined, 400, 'INVALID_QUERY')
    })

    it('the depth limit also guards by-query writes', async () => {
      const shallow = createApp(ctx.knex, { maxFilterDepth: 3 })
      const query = { filter: nestedFilter(4) }
      await refusedWithoutSql(shallow, 'patch', '/api/items/articles', { query, data: { rating: 1 } }, 400, 'INVALID_QUERY')
      await refusedWithoutSql(shallow, 'delete', '/api/items/articles', { query }, 400, 'INVALID_QUERY')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })
  })

  describe('deep bracket nesting', () => {
    const deep = (root: string, levels: number): string => `${root}${'[a]'.repeat(levels)}=1`

    it.each([
      ['a filter', deep('filter', 60)],
      ['fields', deep('fields', 60)],
      ['an unknown parameter', deep('x', 60)],
      ['a filter operator value', `filter[title][_eq]${'[x]'.repeat(40)}=1`],
    ])('%s nested 40+ brackets deep → 400 INVALID_QUERY without SQL', async (_case, query) => {
      await refusedWithoutSql(app, 'get', `/api/items/articles?${query}`, undefined, 400, 'INVALID_QUERY')
    })
  })

  describe('maxInListLength', () => {
    it('the default (1000) accepts 1000 values and refuses 1001 without SQL', async () => {
      expect(ids(await request(app).get(`/api/items/articles?fields=id&limit=-1&filter[id][_in]=${range(1, 1000).join(',')}`))).toEqual(
        range(1, 300),
      )
      const error = await refusedWithoutSql(
        app,
        'get',
        `/api/items/articles?filter[id][_in]=${range(1, 1001).join(',')}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
      expect(error.extensions.reason).toContain('1000')
    })

    describe('maxInListLength: 5', () => {
      let short: Express
      beforeAll(() => {
        short = createApp(ctx.knex, { maxInListLength: 5 })
      })

      // [form, query for a list of n ids]
      const FORMS: Array<[string, (operator: string, n: number) => string]> = [
        ['comma', (operator, n) => `filter[id][${operator}]=${range(1, n).join(',')}`],
        [
          'brackets []',
          (operator, n) =>
            range(1, n)
              .map((id) => `filter[id][${operator}][]=${id}`)
              .join('&'),
        ],
        [
          'indexed brackets',
          (operator, n) =>
            range(1, n)
              .map((id) => `filter[id][${operator}][${id - 1}]=${id}`)
              .join('&'),
        ],
        ['JSON', (operator, n) => jsonFilter({ id: { [operator]: range(1, n) } })],
      ]

      it.each(FORMS)('_in accepts exactly 5 values (%s form)', async (_form, query) => {
        expect(ids(await request(short).get(`/api/items/articles?fields=id&${query('_in', 5)}`))).toEqual([1, 2, 3, 4, 5])
      })

      it.each(FORMS)('_in refuses 6 values (%s form) without SQL', async (_form, query) => {
        await refusedWithoutSql(short, 'get', `/api/items/articles?${query('_in', 6)}`, undefined, 400, 'INVALID_QUERY')
      })

      it.each(FORMS)('_nin refuses 6 values (%s form) without SQL', async (_form, query) => {
        await refusedWithoutSql(short, 'get', `/api/items/articles?${query('_nin', 6)}`, undefined, 400, 'INVALID_QUERY')
      })

      it('names the field and the limit', async () => {
        const error = await refusedWithoutSql(
          short,
          'get',
          `/api/items/articles?filter[id][_in]=1,2,3,4,5,6`,
          undefined,
          400,
          'INVALID_QUERY',
        )
        expect(error.extensions.reason).toContain('"id"')
        expect(error.extensions.reason).toContain('5')
      })

      it('guards the list inside a by-query write too', async () => {
        const query = { filter: { id: { _in: range(1, 6) } } }
        await refusedWithoutSql(short, 'delete', '/api/items/articles', { query }, 400, 'INVALID_QUERY')
        expect(await rowCounts(ctx)).toEqual(SEEDED)
      })
    })
  })

  describe('maxQueryParameters', () => {
    /** `count` parameters in all: fields and limit, then unknown ones (which are otherwise ignored). */
    const parameters = (count: number): string => ['fields=id', 'limit=1', ...range(3, count).map((i) => `p${i}=${i}`)].join('&')

    it('the default (1000) accepts 1000 parameters and refuses 1001 without SQL', async () => {
      expect(ids(await request(app).get(`/api/items/articles?${parameters(1000)}`))).toEqual([1])
      await refusedWithoutSql(app, 'get', `/api/items/articles?${parameters(1001)}`, undefined, 400, 'INVALID_QUERY')
    })

    it('maxQueryParameters: 10 accepts 10 parameters and refuses 11 without SQL', async () => {
      const few = createApp(ctx.knex, { maxQueryParameters: 10 })
      expect(ids(await request(few).get(`/api/items/articles?${parameters(10)}`))).toEqual([1])
      await refusedWithoutSql(few, 'get', `/api/items/articles?${parameters(11)}`, undefined, 400, 'INVALID_QUERY')
    })

    it('the parameter limit also guards writes', async () => {
      const few = createApp(ctx.knex, { maxQueryParameters: 10 })
      await refusedWithoutSql(few, 'post', `/api/items/articles?${parameters(11)}`, { title: 'Too many parameters' }, 400, 'INVALID_QUERY')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })
  })

  describe('limit, offset and page', () => {
    it.each([
      ['limit', '2147483648'],
      ['limit', '99999999999999999999'],
      ['limit', '1e9'],
      ['limit', '-2'],
      ['offset', '2147483648'],
      ['offset', '-1'],
      ['page', '99999999999'],
    ])('%s=%s → 400 INVALID_QUERY naming it, without SQL', async (parameter, value) => {
      const error = await refusedWithoutSql(app, 'get', `/api/items/articles?${parameter}=${value}`, undefined, 400, 'INVALID_QUERY')
      expect(error.extensions.reason).toContain(`"${parameter}"`)
    })

    it('the largest accepted limit returns every row (maxLimit raised to it)', async () => {
      const uncapped = createApp(ctx.knex, { maxLimit: 2147483647 })
      expect(ids(await request(uncapped).get('/api/items/articles?fields=id&limit=2147483647'))).toEqual(range(1, 300))
    })

    it('the largest accepted offset returns no row', async () => {
      expect(
        await request(app)
          .get('/api/items/articles?fields=id&offset=2147483647')
          .then((r) => r.body as unknown),
      ).toEqual({ data: [] })
    })

    it('the largest page with the largest limit is not a 500', async () => {
      const uncapped = createApp(ctx.knex, { maxLimit: 2147483647 })
      const response = await request(uncapped).get('/api/items/articles?fields=id&limit=2147483647&page=2147483647')
      if (response.status === 200) expect(response.body).toEqual({ data: [] })
      else expect(expectError(response, 400, 'INVALID_QUERY').extensions.reason).toContain('page')
    })
  })

  describe('maxLimit', () => {
    let capped: Express
    beforeAll(() => {
      capped = createApp(ctx.knex, { defaultLimit: 20, maxLimit: 50 })
    })

    it('applies defaultLimit without a limit', async () => {
      expect(ids(await request(capped).get('/api/items/articles?fields=id'))).toEqual(range(1, 20))
    })

    it('accepts limit = maxLimit', async () => {
      expect(ids(await request(capped).get('/api/items/articles?fields=id&limit=50'))).toEqual(range(1, 50))
    })

    it('refuses limit = maxLimit + 1 without SQL, naming the cap', async () => {
      const error = await refusedWithoutSql(capped, 'get', '/api/items/articles?limit=51', undefined, 400, 'INVALID_QUERY')
      expect(error.extensions.reason).toContain('50')
    })

    it('caps limit=-1 to maxLimit', async () => {
      expect(ids(await request(capped).get('/api/items/articles?fields=id&limit=-1&offset=260'))).toEqual(range(261, 300))
      expect(ids(await request(capped).get('/api/items/articles?fields=id&limit=-1'))).toEqual(range(1, 50))
    })

    it('does not cap the counts in meta', async () => {
      const response = await request(capped).get('/api/items/articles?fields=id&limit=-1&meta=*')
      expect((response.body as { meta: unknown }).meta).toEqual({ total_count: 300, filter_count: 300 })
    })

    it('a per-collection maxLimit overrides the router one', async () => {
      const perCollection = createApp(ctx.knex, {
        collections: { ...collections, authors: { ...collections.authors, defaultLimit: 5, maxLimit: 10 } as CollectionDefinition },
      })
      expect(ids(await request(perCollection).get('/api/items/authors?fields=id'))).toEqual(range(1, 5))
      expect(ids(await request(perCollection).get('/api/items/authors?fields=id&limit=-1'))).toEqual(range(1, 10))
      await refusedWithoutSql(perCollection, 'get', '/api/items/authors?limit=11', undefined, 400, 'INVALID_QUERY')
      // Other collections keep the router's defaults.
      expect(ids(await request(perCollection).get('/api/items/articles?fields=id&limit=-1'))).toEqual(range(1, 300))
    })
  })

  describe('maxBatchSize', () => {
    let small: Express
    beforeAll(() => {
      small = createApp(ctx.knex, { maxBatchSize: 3 })
    })

    it('the default (1000) refuses a 1001-item create without SQL', async () => {
      const items = range(1, 1001).map((i) => ({ title: `Bulk ${i}` }))
      await refusedWithoutSql(app, 'post', '/api/items/articles', items, 400, 'INVALID_PAYLOAD')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    describe('refused before any SQL', () => {
      const FOUR = [1, 2, 3, 4]
      it.each([
        ['POST an array of 4', 'post', '/api/items/articles', FOUR.map((i) => ({ title: `New ${i}` }))],
        ['PATCH { keys } of 4', 'patch', '/api/items/articles', { keys: FOUR, data: { rating: 1 } }],
        ['PATCH an array of 4', 'patch', '/api/items/articles', FOUR.map((id) => ({ id, rating: 1 }))],
        ['DELETE an array of 4 keys', 'delete', '/api/items/article_topics', FOUR],
        ['DELETE { keys } of 4', 'delete', '/api/items/article_topics', { keys: FOUR }],
      ] as Array<[string, Method, string, unknown]>)('%s → 400 INVALID_PAYLOAD', async (_case, method, path, body) => {
        const error = await refusedWithoutSql(small, method, path, body, 400, 'INVALID_PAYLOAD')
        expect(error.message).toContain('3')
        expect(await rowCounts(ctx)).toEqual(SEEDED)
      })
    })

    describe('by-query writes', () => {
      beforeEach(() => ctx.reset())

      it('PATCH { query } matching 4 → 400 INVALID_PAYLOAD, no UPDATE sent', async () => {
        const body = { query: { filter: { id: { _lte: 4 } } }, data: { rating: 1 } }
        const { result: response, sql } = await ctx.countQueries(() =>
          request(small)
            .patch('/api/items/articles')
            .send(body)
            .then((r) => r),
        )
        expect(expectError(response, 400, 'INVALID_PAYLOAD').message).toContain('3')
        expect(sql.filter((statement) => /^\s*update/i.test(statement))).toEqual([])
        expect(await ctx.knex('articles').orderBy('id').pluck('rating')).toEqual(seed.articles.map((article) => article.rating))
      })

      it('DELETE { query } matching 4 → 400 INVALID_PAYLOAD, no DELETE sent', async () => {
        const body = { query: { filter: { id: { _lte: 4 } } } }
        const { result: response, sql } = await ctx.countQueries(() =>
          request(small)
            .delete('/api/items/article_topics')
            .send(body)
            .then((r) => r),
        )
        expectError(response, 400, 'INVALID_PAYLOAD')
        expect(sql.filter((statement) => /^\s*delete/i.test(statement))).toEqual([])
        expect(await rowCounts(ctx)).toEqual(SEEDED)
      })

      it('PATCH { query } matching exactly 3 updates all 3', async () => {
        const body = { query: { filter: { id: { _lte: 3 } } }, data: { rating: 5 } }
        const response = await request(small).patch('/api/items/articles?fields=id,rating').send(body)
        expect(response.body).toEqual({ data: [1, 2, 3].map((id) => ({ id, rating: 5 })) })
      })

      it('a query limit keeps a larger match within the batch size', async () => {
        const body = { query: { filter: { id: { _lte: 10 } }, sort: ['-id'], limit: 3 }, data: { rating: 5 } }
        const response = await request(small).patch('/api/items/articles?fields=id,rating').send(body)
        expect(ids(response).sort((a, b) => a - b)).toEqual([8, 9, 10])
        const ratings = await ctx.knex('articles').whereBetween('id', [1, 10]).orderBy('id').pluck('rating')
        expect(ratings).toEqual(seed.articles.slice(0, 10).map((article) => (article.id >= 8 ? 5 : article.rating)))
      })

      it('DELETE { query } matching exactly 3 deletes all 3', async () => {
        const response = await request(small)
          .delete('/api/items/article_topics')
          .send({ query: { filter: { id: { _lte: 3 } } } })
        expect(response.status).toBe(204)
        expect(await ctx.knex('article_topics').where('id', '<=', 4).orderBy('id').pluck('id')).toEqual([4])
      })

      it('a per-collection maxBatchSize overrides the router one', async () => {
        const perCollection = createApp(ctx.knex, {
          maxBatchSize: 3,
          collections: { ...collections, article_topics: { ...collections.article_topics, maxBatchSize: 2 } as CollectionDefinition },
        })
        await refusedWithoutSql(perCollection, 'delete', '/api/items/article_topics', [1, 2, 3], 400, 'INVALID_PAYLOAD')
        expect(Number((await ctx.knex('article_topics').count({ n: '*' }))[0]!.n)).toBe(SEEDED.article_topics)
        // articles keep the router's 3.
        const response = await request(perCollection)
          .patch('/api/items/articles?fields=id')
          .send({ keys: [1, 2, 3], data: { rating: 2 } })
        expect(ids(response)).toEqual([1, 2, 3])
      })
    })
  })

  describe('bodyLimit', () => {
    const titled = (bytes: number): { title: string; tags: string[] } => ({ title: 'Big body', tags: ['x'.repeat(bytes)] })

    it.each([
      ['POST', 'post', '/api/items/articles'],
      ['PATCH one', 'patch', '/api/items/articles/1'],
      ['PATCH many', 'patch', '/api/items/articles'],
      ['DELETE many', 'delete', '/api/items/articles'],
    ] as Array<[string, Method, string]>)(
      'bodyLimit: 1024 → %s with a 2 kB body is 413 PAYLOAD_TOO_LARGE without SQL',
      async (_case, method, path) => {
        const limited = createApp(ctx.knex, { bodyLimit: 1024 })
        const error = await refusedWithoutSql(limited, method, path, titled(2048), 413, 'PAYLOAD_TOO_LARGE')
        expect(error.extensions.limit).toBe(1024)
        expect(await rowCounts(ctx)).toEqual(SEEDED)
      },
    )

    it('bodyLimit: 1024 accepts a body just under it', async () => {
      const limited = createApp(ctx.knex, { bodyLimit: 1024 })
      const body = JSON.stringify({ title: 'x'.repeat(100) })
      const response = await request(limited).patch('/api/items/articles/1?fields=title').set('Content-Type', 'application/json').send(body)
      expect(response.body).toEqual({ data: { title: 'x'.repeat(100) } })
      await ctx.reset()
    })

    it("bodyLimit: '2kb' refuses a 3 kB body", async () => {
      const limited = createApp(ctx.knex, { bodyLimit: '2kb' })
      await refusedWithoutSql(limited, 'post', '/api/items/articles', titled(3000), 413, 'PAYLOAD_TOO_LARGE')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('the default (1 MB) refuses a body over 1 MB without SQL', async () => {
      await refusedWithoutSql(app, 'post', '/api/items/articles', titled(1024 * 1024 + 10), 413, 'PAYLOAD_TOO_LARGE')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })
  })

  describe('search length', () => {
    it('a 2000-character search term → 400 INVALID_QUERY without SQL', async () => {
      const error = await refusedWithoutSql(app, 'get', `/api/items/articles?search=${'a'.repeat(2000)}`, undefined, 400, 'INVALID_QUERY')
      expect(error.extensions.reason).toContain('"search"')
    })

    it('a 1000-character search term is accepted', async () => {
      expect(
        await request(app)
          .get(`/api/items/articles?fields=id&search=${'a'.repeat(1000)}`)
          .then((r) => r.body as unknown),
      ).toEqual({ data: [] })
    })

    it('a 2000-character search in a by-query write is refused without SQL', async () => {
      await refusedWithoutSql(app, 'delete', '/api/items/articles', { query: { search: 'a'.repeat(2000) } }, 400, 'INVALID_QUERY')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })
  })
})
