// SEARCH /items/:collection with the query in the JSON body answers exactly as GET with those parameters, with the same limits, 400s and access rules; URL and body never both carry a query.
import type { Express } from 'express'
import qs from 'qs'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { QUERY_PARAMETER_NAMES } from '../../lib/query/query-parameters'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'

type Query = Record<string, unknown>

/** The GET form of a body query: objects as JSON strings, as @directus/sdk sends them; lists as comma lists. */
const asUrl = (query: Query): string =>
  qs.stringify(
    Object.fromEntries(
      Object.entries(query).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(',') : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value),
      ]),
    ),
  )

const QUERIES: [string, Query][] = [
  [
    'fields, filter, sort, limit, offset',
    { fields: ['id', 'title', 'author.name'], filter: { rating: { _gte: 4 } }, sort: ['-rating', 'id'], limit: 7, offset: 3 },
  ],
  ['search and meta', { search: 'bridge', fields: ['id'], meta: '*', limit: -1 }],
  ['page', { fields: ['id'], limit: 5, page: 4 }],
  ['deep and alias', { fields: ['id', 'top.votes'], alias: { top: 'comments' }, deep: { top: { _sort: '-votes', _limit: 1 } }, limit: 5 }],
  ['aggregate and groupBy', { aggregate: { count: '*', avg: ['rating'] }, groupBy: ['status'] }],
  ['backlink', { fields: ['comments.*.*'], filter: { id: { _eq: 1 } }, backlink: false }],
  ['an unknown parameter is ignored', { fields: ['id'], limit: 2, unknown: { a: 1 } }],
]

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  describe('SEARCH /items/:collection', () => {
    it.each(QUERIES)('%s: the same answer as GET', async (_label, query) => {
      const searched = await request(app).search('/api/items/articles').send({ query })
      const got = await request(app).get(`/api/items/articles?${asUrl(query)}`)
      expect(got.status).toBe(200)
      expect({ status: searched.status, body: searched.body as unknown }).toEqual({ status: 200, body: got.body as unknown })
    })

    it('the bracket form of the same query answers the same', async () => {
      const query = { filter: { author: { name: { _eq: 'Bob Stone' } } }, fields: ['id'], limit: -1 }
      const searched = await request(app).search('/api/items/articles').send({ query })
      const brackets = await request(app).get(`/api/items/articles?${qs.stringify(query, { encodeValuesOnly: true })}`)
      expect(searched.body).toEqual(brackets.body)
      const bob = seed.authors.find((author) => author.name === 'Bob Stone')!.id
      expect(searched.body.data).toEqual(seed.articles.filter((row) => row.author === bob).map(({ id }) => ({ id })))
    })

    it('a bad value is the same 400 as in the URL', async () => {
      const query = { filter: { nope: { _eq: 1 } } }
      const searched = await request(app).search('/api/items/articles').send({ query })
      const got = await request(app).get(`/api/items/articles?${asUrl(query)}`)
      expectError(searched, 400, 'INVALID_QUERY')
      expect(searched.body).toEqual(got.body)
    })

    it.each<[string, string, unknown]>([
      ['no body', '', undefined],
      ['a body without query', '', { filter: {} }],
      ['a query that is no object', '', { query: 'fields=id' }],
    ])('%s is a 400 INVALID_PAYLOAD', async (_label, url, body) => {
      const call = request(app).search(`/api/items/articles${url}`)
      expectError(await (body === undefined ? call : call.send(body as object)), 400, 'INVALID_PAYLOAD')
    })

    it('a URL that also carries query parameters is refused, whichever they are', async () => {
      const response = await request(app)
        .search('/api/items/articles?limit=1&fields=id')
        .send({ query: { limit: 2 } })
      expectError(response, 400, 'INVALID_QUERY')
      expect(response.body.errors[0].message).toContain('"fields", "limit"')
    })

    it.each(QUERY_PARAMETER_NAMES)('a URL carrying %s is refused, and names it', async (name) => {
      const response = await request(app)
        .search(`/api/items/articles?${name}=csv`)
        .send({ query: { fields: ['id'], limit: 1 } })
      expectError(response, 400, 'INVALID_QUERY')
      expect(response.body.errors[0].message).toContain(`remove "${name}" from the URL`)
    })

    it('a URL parameter the parser does not read is left alone', async () => {
      const response = await request(app)
        .search('/api/items/articles?access_token=x')
        .send({ query: { fields: ['id'], limit: 1 } })
      expect(response.body).toEqual({ data: [{ id: 1 }] })
    })

    it("the body's query counts toward maxQueryParameters", async () => {
      const limited = createApp(ctx.knex, { maxQueryParameters: 3 })
      const query = { fields: 'id', limit: 1, offset: 0, sort: 'id' }
      expectError(await request(limited).search('/api/items/articles').send({ query }), 400, 'INVALID_QUERY')
      expectError(await request(limited).get(`/api/items/articles?${asUrl(query)}`), 400, 'INVALID_QUERY')
    })

    it('goes through access rules as GET does', async () => {
      const guarded = createApp(ctx.knex, {
        collections: {
          ...collections,
          articles: { ...collections.articles, access: { read: { filter: { status: { _eq: 'published' } }, fields: ['status'] } } },
        },
      })
      const searched = await request(guarded)
        .search('/api/items/articles')
        .send({ query: { fields: ['id', 'status'], limit: -1 } })
      expect(searched.body.data).toEqual(
        seed.articles.filter((row) => row.status === 'published').map(({ id, status }) => ({ id, status })),
      )
      const hidden = await request(guarded)
        .search('/api/items/articles')
        .send({ query: { fields: ['title'] } })
      expectError(hidden, 400, 'INVALID_QUERY')
      expect(hidden.body).toEqual((await request(guarded).get('/api/items/articles?fields=title')).body)
    })

    it('on a singleton collection reads its item', async () => {
      const searched = await request(app)
        .search('/api/items/settings')
        .send({ query: { fields: ['tagline'] } })
      expect(searched.body).toEqual({ data: { tagline: 'Just another site' } })
    })
  })
})
