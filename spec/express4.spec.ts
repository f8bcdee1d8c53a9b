// The router (built on Express 5's Router and body parser) serves reads, writes and every error correctly when mounted in an Express 4 host app.
import type express5 from 'express'
import type { ErrorRequestHandler, Express } from 'express'
import { createRequire } from 'node:module'
import request from 'supertest'
import { collections } from '../fixtures/schema'
import { seed } from '../fixtures/seed'
import { createItemsRouter, type ItemsRouterOptions } from '../lib'
import { recordingLogger } from './support/app'
import { forEachDialect, type DialectContext } from './support/dialects'

const load = createRequire(__filename)
// The `express4` dev dependency is Express 4 under an alias; it has no types, and the API used here is common to 4 and 5.
const express4 = load('express4') as typeof express5
const EXPRESS4_VERSION = (load('express4/package.json') as { version: string }).version
const EXPRESS5_VERSION = (load('express/package.json') as { version: string }).version

const GHOSTS: ItemsRouterOptions['collections'] = {
  ghosts: { table: 'no_such_table', fields: { id: { type: 'integer', primaryKey: true } } },
}

interface Host {
  app: Express
  logger: ReturnType<typeof recordingLogger>
  /** Errors that reached the host's own error middleware. */
  hostErrors: unknown[]
}

/** An Express 4 app with the router at /api, a host route beside it, and a host error handler after it. */
function express4Host(ctx: DialectContext, configure?: (app: Express) => void): Host {
  const logger = recordingLogger()
  const hostErrors: unknown[] = []
  const app = express4()
  configure?.(app)
  app.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { ...collections, ...GHOSTS }, logger }))
  app.get('/api/health', (_req, res) => {
    res.json({ ok: true })
  })
  const hostHandler: ErrorRequestHandler = (error, _req, res, _next) => {
    hostErrors.push(error)
    res.status(418).json({ host: true })
  }
  app.use(hostHandler)
  return { app, logger, hostErrors }
}

const articleIds = (predicate: (article: (typeof seed.articles)[number]) => boolean): number[] =>
  seed.articles.filter(predicate).map((article) => article.id)

it('runs against Express 4 for the host and Express 5 inside the router', () => {
  expect(EXPRESS4_VERSION).toMatch(/^4\./)
  expect(EXPRESS5_VERSION).toMatch(/^5\./)
})

forEachDialect((ctx) => {
  let host: Host
  beforeAll(() => {
    host = express4Host(ctx)
  })
  afterEach(() => {
    expect(host.hostErrors).toEqual([])
  })

  describe('reads', () => {
    it('GET a list with bracket filters, sort and limit', async () => {
      const response = await request(host.app).get(
        '/api/items/articles?fields=id,status,rating&filter[status][_eq]=archived&filter[rating][_gte]=4&sort=-id&limit=5',
      )
      const expected = seed.articles
        .filter((article) => article.status === 'archived' && article.rating !== null && article.rating >= 4)
        .sort((a, b) => b.id - a.id)
        .slice(0, 5)
        .map(({ id, status, rating }) => ({ id, status, rating }))
      expect(expected).toHaveLength(5)
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { data: expected } })
    })

    it('SEARCH with the query in the body, as @directus/sdk withSearch() sends it', async () => {
      const query = { fields: ['id', 'status'], filter: { status: { _eq: 'archived' } }, sort: ['-id'], limit: 3 }
      const response = await request(host.app).search('/api/items/articles').send({ query })
      const expected = articleIds((article) => article.status === 'archived')
        .sort((a, b) => b - a)
        .slice(0, 3)
        .map((id) => ({ id, status: 'archived' }))
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { data: expected } })
    })

    it('GET a bracket filter deeper than Express 4’s own qs depth of 5', async () => {
      // Express 4's `extended` parser stops at depth 5; the router parses the query string itself.
      const response = await request(host.app).get(
        '/api/items/articles?fields=id&filter[_or][0][_and][0][id][_lte]=3&filter[_or][1][id][_eq]=300',
      )
      expect(response.body).toEqual({ data: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 300 }] })
    })

    it.each([false, 'simple'] as const)('GET a bracket filter when the host sets query parser %j', async (setting) => {
      const { app } = express4Host(ctx, (app) => app.set('query parser', setting))
      const response = await request(app).get('/api/items/articles?fields=id&limit=-1&filter[title][_contains]=%25')
      expect(response.body).toEqual({ data: articleIds((article) => article.title.includes('%')).map((id) => ({ id })) })
    })

    it('GET one item and meta', async () => {
      const one = await request(host.app).get('/api/items/authors/19?fields=id,name')
      expect(one.body).toEqual({ data: { id: 19, name: "Seán O'Brien" } })
      const meta = await request(host.app).get('/api/items/articles?fields=id&limit=1&meta=*&filter[status][_eq]=draft')
      expect(meta.body).toEqual({
        data: [{ id: articleIds((article) => article.status === 'draft')[0] }],
        meta: { total_count: seed.articles.length, filter_count: articleIds((article) => article.status === 'draft').length },
      })
    })

    it('leaves /api/health to the host', async () => {
      const response = await request(host.app).get('/api/health')
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { ok: true } })
    })
  })

  describe('writes', () => {
    beforeEach(() => ctx.reset())

    it('POST creates an item', async () => {
      const response = await request(host.app)
        .post('/api/items/articles?fields=id,title,status,author')
        .send({ title: 'Written under Express 4', author: 2 })
      const id = seed.articles.length + 1
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 200,
        body: { data: { id, title: 'Written under Express 4', status: 'draft', author: 2 } },
      })
      expect(await ctx.knex('articles').where({ id }).first('title')).toEqual({ title: 'Written under Express 4' })
    })

    it('POST creates several items in one request', async () => {
      const response = await request(host.app)
        .post('/api/items/topics?fields=name')
        .send([{ name: 'Vier' }, { name: 'Fünf' }])
      expect(response.body).toEqual({ data: [{ name: 'Vier' }, { name: 'Fünf' }] })
    })

    it('POST works when the host already parsed the JSON body with express4.json()', async () => {
      const { app } = express4Host(ctx, (app) => app.use(express4.json()))
      const response = await request(app).post('/api/items/topics?fields=id,name').send({ name: 'Pre-parsed' })
      expect(response.body).toEqual({ data: { id: seed.topics.length + 1, name: 'Pre-parsed' } })
    })

    it('PATCH one item', async () => {
      const response = await request(host.app)
        .patch('/api/items/articles/3?fields=id,rating,status')
        .send({ rating: 1, status: 'archived' })
      expect(response.body).toEqual({ data: { id: 3, rating: 1, status: 'archived' } })
      expect(await ctx.knex('articles').where({ id: 3 }).first('rating', 'status')).toEqual({ rating: 1, status: 'archived' })
    })

    it('PATCH many by keys', async () => {
      const response = await request(host.app)
        .patch('/api/items/articles?fields=id,rating')
        .send({ keys: [4, 5], data: { rating: 2 } })
      expect(response.body).toEqual({
        data: [
          { id: 4, rating: 2 },
          { id: 5, rating: 2 },
        ],
      })
    })

    it('DELETE one item → 204 without a body', async () => {
      const response = await request(host.app).delete('/api/items/article_topics/1')
      expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: '' })
      expect(await ctx.knex('article_topics').where({ id: 1 }).first()).toBeUndefined()
    })

    it('DELETE many → 204, in one go', async () => {
      const response = await request(host.app)
        .delete('/api/items/article_topics')
        .send({ keys: [2, 3] })
      expect(response.status).toBe(204)
      expect(Number((await ctx.knex('article_topics').count({ n: '*' }))[0]!.n)).toBe(seed.article_topics.length - 2)
    })
  })

  describe('errors', () => {
    it.each([
      ['an unknown collection', 'get', '/api/items/nope'],
      ['an unknown sub-route', 'get', '/api/items/articles/1/extra'],
      ['POST on a singleton', 'post', '/api/items/settings'],
    ] as const)('%s → 404 ROUTE_NOT_FOUND', async (_case, method, path) => {
      const response = await request(host.app)[method](path).send({})
      expect(response.status).toBe(404)
      expect((response.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('ROUTE_NOT_FOUND')
    })

    it('a missing item → 404 NOT_FOUND', async () => {
      const response = await request(host.app).get('/api/items/articles/9999')
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 404,
        body: { errors: [{ message: 'Item not found.', extensions: { code: 'NOT_FOUND' } }] },
      })
    })

    it('a bad query → 400 INVALID_QUERY', async () => {
      const response = await request(host.app).get('/api/items/articles?filter[title][_gt]=a')
      expect(response.status).toBe(400)
      expect((response.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('INVALID_QUERY')
    })

    it.each([
      ['post', '/api/items/articles'],
      ['patch', '/api/items/articles/1'],
      ['delete', '/api/items/articles'],
    ] as const)('malformed JSON on %s %s → 400 INVALID_PAYLOAD', async (method, path) => {
      const response = await request(host.app)[method](path).set('Content-Type', 'application/json').send('{"title": ')
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 400,
        body: {
          errors: [
            {
              message: 'Invalid payload. The body is not valid JSON.',
              extensions: { code: 'INVALID_PAYLOAD', reason: 'The body is not valid JSON' },
            },
          ],
        },
      })
    })

    it('a body without a JSON content type → 400 INVALID_PAYLOAD (Express 4 would otherwise hand over {})', async () => {
      const response = await request(host.app).patch('/api/items/articles/1').set('Content-Type', 'text/plain').send('rating=1')
      expect(response.status).toBe(400)
      expect((response.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('INVALID_PAYLOAD')
      expect(await ctx.knex('articles').where({ id: 1 }).first('rating')).toEqual({ rating: seed.articles[0]!.rating })
    })

    it('a failed validation → 400 FAILED_VALIDATION per field', async () => {
      const response = await request(host.app).post('/api/items/articles').send({ rating: 'high' })
      expect(response.status).toBe(400)
      const errors = (response.body as { errors: Array<{ extensions: { code: string; field: string } }> }).errors
      expect(errors.map((error) => [error.extensions.code, error.extensions.field]).sort()).toEqual([
        ['FAILED_VALIDATION', 'rating'],
        ['FAILED_VALIDATION', 'title'],
      ])
    })

    it('a body over the limit → 413 PAYLOAD_TOO_LARGE', async () => {
      const response = await request(host.app)
        .post('/api/items/articles')
        .send({ title: 'x'.repeat(1024 * 1024 + 1) })
      expect(response.status).toBe(413)
      expect((response.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('PAYLOAD_TOO_LARGE')
    })

    it.each([
      ['get', '/api/items/ghosts', undefined],
      ['post', '/api/items/ghosts', { id: 1 }],
      ['delete', '/api/items/ghosts/1', undefined],
    ] as const)('an async database failure on %s %s → 500 INTERNAL_SERVER_ERROR, logged, not left hanging', async (method, path, body) => {
      host.logger.errors.length = 0
      const call = request(host.app)[method](path).timeout(5000)
      const response = await (body === undefined ? call : call.send(body))
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 500,
        body: {
          errors: [
            { message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } },
          ],
        },
      })
      expect(host.logger.errors).toHaveLength(1)
    })

    it.each(['/api/items/articles/%', '/api/items/%E0%A4%A', '/api/versions/%E0%A4%A'])(
      'an undecodable path %s → 404 ROUTE_NOT_FOUND, not the host error handler',
      async (path) => {
        const response = await request(host.app).get(path)
        expect(response.status).toBe(404)
        expect((response.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code).toBe('ROUTE_NOT_FOUND')
        expect(host.hostErrors).toEqual([])
      },
    )

    it('passUnexpectedErrors hands a 500 to the Express 4 host error handler, with its request id', async () => {
      const hostErrors: unknown[] = []
      const app = express4()
      app.use(
        '/api',
        createItemsRouter({
          knex: ctx.knex,
          defaultAccess: true,
          collections: GHOSTS,
          logger: recordingLogger(),
          passUnexpectedErrors: true,
        }),
      )
      const hostHandler: ErrorRequestHandler = (error, _req, res, _next) => {
        hostErrors.push(error)
        res.status(418).json({ host: true })
      }
      app.use(hostHandler)
      const response = await request(app).get('/api/items/ghosts').set('X-Request-Id', 'e4-1')
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 418, body: { host: true } })
      expect((hostErrors[0] as { requestId?: unknown }).requestId).toBe('e4-1')
    })
  })
})
