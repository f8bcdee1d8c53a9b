// By-query writes on every database: a body key the router does not know, at the top or inside `query`, and a
// query that selects no rows of its own (`{}`, an empty filter) are 400s that send no SQL and change nothing, so a
// misspelt or dropped filter never deletes or rewrites a whole table. A write to every row says so: `limit: -1`.
import type { Express } from 'express'
import request from 'supertest'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError, expectInvalidQuery } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

/** Each a `query` that names comment 1 only, but under a key the router does not know. */
const MISSPELT: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['filters', { filters: { id: { _eq: 1 } } }],
  ['Filter', { Filter: { id: { _eq: 1 } } }],
  ['where', { where: { id: { _eq: 1 } } }],
  ['limt', { filter: { id: { _eq: 1 } }, limt: 1 }],
]

/** Each a `query` that selects every row: no filter or search of its own, and no limit. */
const UNBOUNDED: ReadonlyArray<[string, Record<string, unknown>]> = [
  ['{}', {}],
  ['an empty filter', { filter: {} }],
  ['a filter of empty groups', { filter: { _and: [{ _and: [] }] } }],
  ['an empty filter as JSON text', { filter: '{}' }],
  ['an empty search', { search: '' }],
  ['a sort alone', { sort: ['-id'] }],
  ['an empty limit', { filter: {}, limit: '' }],
]

forEachDialect((ctx) => {
  let app: Express
  beforeAll(async () => {
    app = createApp(ctx.knex)
    // The router's first request checks the database once; the counts below are of the requests alone.
    await request(app).get('/api/items/comments?limit=1').expect(200)
  })
  beforeEach(() => ctx.reset())

  const comments = (): Promise<number> => rowCount(ctx, 'comments')
  const titles = async (): Promise<string[]> => (await ctx.knex('articles').orderBy('id').select('title')).map((row) => row.title as string)

  describe.each([
    ['DELETE', (query: unknown) => request(app).delete('/api/items/comments').send({ query })],
    [
      'PATCH',
      (query: unknown) =>
        request(app)
          .patch('/api/items/comments')
          .send({ query, data: { body: 'Overwritten' } }),
    ],
  ])('%s /items/:c with { query }', (_method, send) => {
    it.each(MISSPELT)('refuses an unknown key "%s" in the query with 400, sending no SQL', async (key, query) => {
      const { result, count } = await ctx.countQueries(() => send(query))
      expectInvalidQuery(result, count, [`"${key}"`])
      expect(await comments()).toBe(seed.comments.length)
      expect(await rowCount(ctx, 'comments', { body: 'Overwritten' })).toBe(0)
    })

    it.each(UNBOUNDED)('refuses a query that selects every item (%s) with 400, sending no SQL', async (_label, query) => {
      const { result, count } = await ctx.countQueries(() => send(query))
      expectInvalidQuery(result, count, ['"limit": -1'])
      expect(await comments()).toBe(seed.comments.length)
      expect(await rowCount(ctx, 'comments', { body: 'Overwritten' })).toBe(0)
    })

    it('refuses an unknown operator or field inside the filter with 400', async () => {
      for (const filter of [{ id: { _equals: 1 } }, { ID: { _eq: 1 } }, { _and: [{ idd: { _eq: 1 } }] }]) {
        const { result, count } = await ctx.countQueries(() => send({ filter }))
        expectInvalidQuery(result, count, [])
      }
      expect(await comments()).toBe(seed.comments.length)
    })
  })

  it.each([
    ['DELETE', { query: { filter: { id: { _eq: 1 } } }, force: true }, 'force'],
    ['DELETE', { keys: [1], dryRun: true }, 'dryRun'],
    ['PATCH', { query: { filter: { id: { _eq: 1 } } }, data: { title: 'X' }, upsert: true }, 'upsert'],
    ['PATCH', { keys: [1], Data: { title: 'X' } }, 'Data'],
  ])('refuses a %s body with an unknown key with 400 naming it', async (method, body, key) => {
    const path = '/api/items/articles'
    const response = method === 'DELETE' ? await request(app).delete(path).send(body) : await request(app).patch(path).send(body)
    expect(expectError(response, 400, 'INVALID_PAYLOAD').message).toContain(`"${key}"`)
    expect(await titles()).toEqual(seed.articles.map((row) => row.title))
  })

  it('changes every item when the query asks for it with "limit": -1, or with a filter that says so', async () => {
    const patched = await request(app)
      .patch('/api/items/topics?fields=id')
      .send({ query: { filter: { id: { _nnull: true } } }, data: { name: 'Renamed' } })
    expect(patched.status).toBe(200)
    expect(await rowCount(ctx, 'topics', { name: 'Renamed' })).toBe(seed.topics.length)
    await ctx.knex('article_topics').delete()
    expect(
      (
        await request(app)
          .delete('/api/items/topics')
          .send({ query: { limit: -1 } })
      ).status,
    ).toBe(204)
    expect(await rowCount(ctx, 'topics')).toBe(0)
  })
})
