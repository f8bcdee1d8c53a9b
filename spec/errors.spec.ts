// Every error the router answers has the `{ errors: [{ message, extensions: { code } }] }` shape and the right status, unexpected failures stay generic and logged, and the exported error classes carry the same codes.
import express, { type ErrorRequestHandler, type Express } from 'express'
import request from 'supertest'
import { collections } from '../fixtures/schema'
import { seed } from '../fixtures/seed'
import {
  ConfigError,
  createItemsRouter,
  FailedValidationError,
  ForbiddenError,
  InvalidPayloadError,
  InvalidQueryError,
  ItemsError,
  ItemsErrorList,
  NotFoundError,
  RouteNotFoundError,
  type CollectionDefinition,
  type ErrorCode,
  type ItemsRouterOptions,
} from '../lib'
import { createApp, recordingLogger } from './support/app'
import { forEachDialect, type DialectContext } from './support/dialects'
import { expectError, expectErrors } from './support/expect-error'

async function rowCounts(ctx: DialectContext): Promise<{ articles: number; authors: number }> {
  const count = async (table: string): Promise<number> => Number((await ctx.knex(table).count({ n: '*' }))[0]!.n)
  return { articles: await count('articles'), authors: await count('authors') }
}

const SEEDED = { articles: seed.articles.length, authors: seed.authors.length }

/** The fixtures with some fields declared differently from their columns, to let the database raise the error. */
function loosened(fields: Partial<Record<'title' | 'status' | 'rating', object>>): Record<string, CollectionDefinition> {
  return {
    ...collections,
    articles: { ...collections.articles, fields: { ...collections.articles.fields, ...fields } } as CollectionDefinition,
  }
}

const GHOSTS: ItemsRouterOptions['collections'] = {
  ghosts: { table: 'no_such_table', fields: { id: { type: 'integer', primaryKey: true }, name: { type: 'string' } } },
}

describe('exported error classes', () => {
  // [class, instance, code, status, message]
  const CLASSES: Array<[string, ItemsError, ErrorCode, number, string]> = [
    ['InvalidQueryError', new InvalidQueryError('"limit" is wrong'), 'INVALID_QUERY', 400, 'Invalid query. "limit" is wrong.'],
    ['InvalidPayloadError', new InvalidPayloadError('The body is empty'), 'INVALID_PAYLOAD', 400, 'Invalid payload. The body is empty.'],
    [
      'FailedValidationError',
      new FailedValidationError('Field "title" is required.', { field: 'title', type: 'required' }),
      'FAILED_VALIDATION',
      400,
      'Field "title" is required.',
    ],
    ['NotFoundError', new NotFoundError(), 'NOT_FOUND', 404, 'Item not found.'],
    ['RouteNotFoundError', new RouteNotFoundError('/items/nope'), 'ROUTE_NOT_FOUND', 404, "Route /items/nope doesn't exist."],
    ['ForbiddenError', new ForbiddenError(), 'FORBIDDEN', 403, "You don't have permission to access this."],
  ]

  it.each(CLASSES)('%s has its code, status and message', (name, error, code, status, message) => {
    expect(error).toBeInstanceOf(ItemsError)
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe(name)
    expect(error.code).toBe(code)
    expect(error.status).toBe(status)
    expect(error.message).toBe(message)
  })

  it('keeps the reason of query and payload errors in extensions', () => {
    expect(new InvalidQueryError('bad sort').extensions).toEqual({ reason: 'bad sort' })
    expect(new InvalidPayloadError('bad body').extensions).toEqual({ reason: 'bad body' })
    expect(new FailedValidationError('m', { field: 'rating', type: 'type', item: 2 }).extensions).toEqual({
      field: 'rating',
      type: 'type',
      item: 2,
    })
    expect(new RouteNotFoundError('/items/nope').extensions).toEqual({ path: '/items/nope' })
  })

  // Every code with its status: one table, so a host app can rely on `error.status`.
  const STATUSES: Array<[ErrorCode, number]> = [
    ['INVALID_QUERY', 400],
    ['INVALID_PAYLOAD', 400],
    ['FAILED_VALIDATION', 400],
    ['FORBIDDEN', 403],
    ['NOT_FOUND', 404],
    ['ROUTE_NOT_FOUND', 404],
    ['RECORD_NOT_UNIQUE', 400],
    ['INVALID_FOREIGN_KEY', 400],
    ['NOT_NULL_VIOLATION', 400],
    ['VALUE_TOO_LONG', 400],
    ['VALUE_OUT_OF_RANGE', 400],
    ['PAYLOAD_TOO_LARGE', 413],
    ['CONFLICT', 409],
    ['SERVICE_UNAVAILABLE', 503],
    ['INTERNAL_SERVER_ERROR', 500],
  ]

  it.each(STATUSES)('ItemsError %s answers %d', (code, status) => {
    const cause = new Error('driver detail')
    const error = new ItemsError(code, 'Something.', { field: 'title' }, { cause })
    expect({ code: error.code, status: error.status, extensions: error.extensions, cause: error.cause }).toEqual({
      code,
      status,
      extensions: { field: 'title' },
      cause,
    })
  })

  it('ItemsErrorList carries several errors and joins their messages', () => {
    const list = new ItemsErrorList([new InvalidQueryError('a'), new NotFoundError()])
    expect(list).toBeInstanceOf(Error)
    expect(list.name).toBe('ItemsErrorList')
    expect(list.errors.map((error) => error.code)).toEqual(['INVALID_QUERY', 'NOT_FOUND'])
    expect(list.message).toBe('Invalid query. a.; Item not found.')
  })

  it('ConfigError is a creation-time error, not an API error', () => {
    const error = new ConfigError('CONFIG_BAD_LIMIT', 'options.maxLimit must be a positive integer')
    expect(error).toBeInstanceOf(Error)
    expect(error).not.toBeInstanceOf(ItemsError)
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({
      name: 'ConfigError',
      code: 'CONFIG_BAD_LIMIT',
      message: 'options.maxLimit must be a positive integer [CONFIG_BAD_LIMIT]',
    })
  })
})

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  describe('request errors', () => {
    it('INVALID_QUERY: message "Invalid query. <reason>." with the reason naming the parameter', async () => {
      const error = expectError(await request(app).get('/api/items/articles?limit=abc'), 400, 'INVALID_QUERY')
      expect(Object.keys(error.extensions).sort()).toEqual(['code', 'reason'])
      expect(error.extensions.reason).toContain('"limit"')
      expect(error.message).toBe(`Invalid query. ${String(error.extensions.reason)}.`)
    })

    it('INVALID_QUERY names an unknown field', async () => {
      const error = expectError(await request(app).get('/api/items/articles?fields=id,nope'), 400, 'INVALID_QUERY')
      expect(error.extensions.reason).toBe('Field "nope" does not exist in collection "articles"')
    })

    it('INVALID_PAYLOAD: a body of the wrong shape', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send({ data: { rating: 1 } })
      const error = expectError(response, 400, 'INVALID_PAYLOAD')
      expect(Object.keys(error.extensions).sort()).toEqual(['code', 'reason'])
      expect(error.message).toBe(`Invalid payload. ${String(error.extensions.reason)}.`)
    })

    it.each([
      ['POST', '/api/items/articles'],
      ['PATCH', '/api/items/articles/1'],
      ['PATCH', '/api/items/articles'],
      ['DELETE', '/api/items/articles'],
    ])('INVALID_PAYLOAD: malformed JSON on %s %s', async (method, path) => {
      const verb = method.toLowerCase() as 'post' | 'patch' | 'delete'
      const response = await request(app)[verb](path).set('Content-Type', 'application/json').send('{"title": "unterminated')
      const error = expectError(response, 400, 'INVALID_PAYLOAD')
      expect(error).toEqual({
        message: 'Invalid payload. The body is not valid JSON.',
        extensions: { code: 'INVALID_PAYLOAD', reason: 'The body is not valid JSON' },
      })
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('INVALID_PAYLOAD: a body that is not JSON at all', async () => {
      const response = await request(app).post('/api/items/articles').set('Content-Type', 'text/plain').send('title=x')
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('FAILED_VALIDATION: one error per failing field, with field, type and collection', async () => {
      const response = await request(app).post('/api/items/authors').send({ name: 5, email: 7 })
      const errors = expectErrors(response, 400, 'FAILED_VALIDATION')
      expect(errors.map((error) => error.extensions).sort((a, b) => String(a.field).localeCompare(String(b.field)))).toEqual([
        { code: 'FAILED_VALIDATION', collection: 'authors', field: 'email', type: 'type' },
        { code: 'FAILED_VALIDATION', collection: 'authors', field: 'name', type: 'type' },
      ])
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('FAILED_VALIDATION: errors in an array body say which item failed', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .send([{ name: 'Fine' }, { name: 'Also fine' }, {}])
      const errors = expectErrors(response, 400, 'FAILED_VALIDATION')
      expect(errors.map((error) => error.extensions)).toEqual([
        { code: 'FAILED_VALIDATION', collection: 'authors', field: 'name', type: 'required', item: 2 },
      ])
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('NOT_FOUND: a missing item', async () => {
      const response = await request(app).get('/api/items/articles/99999')
      expect(expectErrors(response, 404, 'NOT_FOUND')).toEqual([{ message: 'Item not found.', extensions: { code: 'NOT_FOUND' } }])
    })

    it('NOT_FOUND: a batch naming a missing key says which, and deletes nothing', async () => {
      const response = await request(app)
        .delete('/api/items/articles')
        .send({ keys: [1, 99999] })
      const error = expectError(response, 404, 'NOT_FOUND')
      expect(error.extensions).toEqual({ code: 'NOT_FOUND', collection: 'articles', keys: [99999] })
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('PAYLOAD_TOO_LARGE: 413 with the limit', async () => {
      const small = createApp(ctx.knex, { bodyLimit: 100 })
      const response = await request(small)
        .post('/api/items/articles')
        .send({ title: 'x'.repeat(200) })
      const error = expectError(response, 413, 'PAYLOAD_TOO_LARGE')
      expect(error.extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', limit: 100 })
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })
  })

  describe('ROUTE_NOT_FOUND and paths the router does not own', () => {
    it.each([
      ['GET', '/api/items/nope'],
      ['POST', '/api/items/nope'],
      ['PATCH', '/api/items/nope'],
      ['DELETE', '/api/items/nope'],
      ['GET', '/api/items/nope/1'],
      ['PATCH', '/api/items/nope/1'],
      ['DELETE', '/api/items/nope/1'],
      ['GET', '/api/items/nope/singleton'],
    ])('%s %s (unknown collection) → 404 ROUTE_NOT_FOUND', async (method, path) => {
      const { result: response, count } = await ctx.countQueries(() =>
        request(app)[method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](path).send({}),
      )
      const error = expectError(response, 404, 'ROUTE_NOT_FOUND')
      expect(error.message).toContain('/items/nope')
      expect(count).toBe(0)
    })

    it.each([
      ['GET', '/api/items/articles/1/extra'],
      ['PATCH', '/api/items/articles/1/extra'],
      ['DELETE', '/api/items/articles/1/extra'],
      ['POST', '/api/items/articles/1'],
      ['PUT', '/api/items/articles/1'],
      ['PUT', '/api/items/articles'],
      ['GET', '/api/items'],
      ['GET', '/api/items/'],
    ])('%s %s (no such route) → 404 ROUTE_NOT_FOUND', async (method, path) => {
      const response = await request(app)[method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete'](path).send({ title: 'x' })
      expectError(response, 404, 'ROUTE_NOT_FOUND')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('POST on a singleton collection → 404 ROUTE_NOT_FOUND', async () => {
      expectError(await request(app).post('/api/items/settings').send({ site_name: 'x' }), 404, 'ROUTE_NOT_FOUND')
      expect(Number((await ctx.knex('settings').count({ n: '*' }))[0]!.n)).toBe(0)
    })

    it('leaves /api/health to the host app', async () => {
      const response = await request(app).get('/api/health')
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { ok: true } })
    })

    it.each(['/api/other', '/api/itemsx', '/api/itemsx/articles'])('leaves %s to the host app (its own 404, not ours)', async (path) => {
      const response = await request(app).get(path)
      expect(response.status).toBe(404)
      // Express's own final handler, which answers HTML: the router did not claim the path.
      expect(response.headers['content-type']).toMatch(/^text\/html/)
      expect(response.text).toContain(`Cannot GET ${path}`)
    })
  })

  describe('database constraint errors', () => {
    beforeEach(() => ctx.reset())

    it('RECORD_NOT_UNIQUE names the collection and field', async () => {
      const response = await request(app).post('/api/items/authors').send({ name: 'Copycat', email: seed.authors[0]!.email })
      const error = expectError(response, 400, 'RECORD_NOT_UNIQUE')
      // The same fields on every database, and never the duplicate value (it may be a row the caller cannot read).
      expect(error.extensions).toEqual({ code: 'RECORD_NOT_UNIQUE', collection: 'authors', field: 'email' })
      expect(error.message).toBe('Value has to be unique (field "email").')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('RECORD_NOT_UNIQUE for an explicit primary key that exists', async () => {
      const response = await request(app).post('/api/items/authors').send({ id: 1, name: 'Impostor' })
      const error = expectError(response, 400, 'RECORD_NOT_UNIQUE')
      expect(error.extensions).toMatchObject({ collection: 'authors', field: 'id' })
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('INVALID_FOREIGN_KEY names the field and the missing key', async () => {
      const response = await request(app).post('/api/items/articles').send({ title: 'Orphan', author: 999 })
      expect(expectErrors(response, 400, 'INVALID_FOREIGN_KEY')).toEqual([
        {
          message: 'Invalid foreign key (field "author"): "authors" has no item 999.',
          extensions: { code: 'INVALID_FOREIGN_KEY', collection: 'articles', field: 'author', value: 999 },
        },
      ])
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('NOT_NULL_VIOLATION from the database when the schema allows null but the column does not', async () => {
      const loose = createApp(ctx.knex, { collections: loosened({ title: { type: 'string', maxLength: 200 } }) })
      const response = await request(loose).post('/api/items/articles').send({ title: null })
      expect(expectErrors(response, 400, 'NOT_NULL_VIOLATION')).toEqual([
        {
          message: 'Value can not be null (field "title").',
          extensions: { code: 'NOT_NULL_VIOLATION', collection: 'articles', field: 'title' },
        },
      ])
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('VALUE_TOO_LONG from the database when the schema has no maxLength (SQLite does not enforce lengths)', async () => {
      const loose = createApp(ctx.knex, { collections: loosened({ status: { type: 'string', default: 'draft' } }) })
      const status = 's'.repeat(30)
      const response = await request(loose).post('/api/items/articles?fields=status').send({ title: 'Long status', status })
      if (ctx.name === 'sqlite') {
        expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { data: { status } } })
        return
      }
      const error = expectError(response, 400, 'VALUE_TOO_LONG')
      const { field, ...rest } = error.extensions
      expect(rest).toEqual({ code: 'VALUE_TOO_LONG', collection: 'articles' })
      if (field !== undefined) expect(field).toBe('status')
      expect(await rowCounts(ctx)).toEqual(SEEDED)
    })

    it('VALUE_OUT_OF_RANGE from the database when the schema allows a wider integer than the column', async () => {
      const loose = createApp(ctx.knex, { collections: loosened({ rating: { type: 'bigInteger' } }) })
      const response = await request(loose).patch('/api/items/articles/1?fields=rating').send({ rating: '9999999999' })
      if (ctx.name === 'sqlite') {
        expect({ status: response.status, body: response.body as unknown }).toEqual({
          status: 200,
          body: { data: { rating: '9999999999' } },
        })
        return
      }
      const error = expectError(response, 400, 'VALUE_OUT_OF_RANGE')
      const { field, ...rest } = error.extensions
      expect(rest).toEqual({ code: 'VALUE_OUT_OF_RANGE', collection: 'articles' })
      if (field !== undefined) expect(field).toBe('rating')
      const [row] = await ctx.knex('articles').where({ id: 1 }).select('rating')
      expect(row.rating).toBe(seed.articles[0]!.rating)
    })
  })

  describe('unexpected database errors', () => {
    let logger: ReturnType<typeof recordingLogger>
    let ghosts: Express
    beforeEach(() => {
      logger = recordingLogger()
      ghosts = express()
      ghosts.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: GHOSTS, logger }))
    })

    it.each([
      ['GET', '/api/items/ghosts', undefined],
      ['GET', '/api/items/ghosts/1', undefined],
      ['POST', '/api/items/ghosts', { id: 1, name: 'Casper' }],
      ['PATCH', '/api/items/ghosts/1', { name: 'Casper' }],
      ['PATCH', '/api/items/ghosts', { keys: [1], data: { name: 'Casper' } }],
      ['PATCH', '/api/items/ghosts', { query: { filter: { name: { _eq: 'x' } } }, data: { name: 'Casper' } }],
      ['DELETE', '/api/items/ghosts/1', undefined],
      ['DELETE', '/api/items/ghosts', [1, 2]],
    ])('%s %s → 500 with a generic message; the logger gets the cause', async (method, path, body) => {
      const call = request(ghosts)[method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](path)
      const response = await (body === undefined ? call : call.send(body))
      expect(expectErrors(response, 500, 'INTERNAL_SERVER_ERROR')).toEqual([
        { message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } },
      ])
      // Neither SQL nor schema names may reach the client.
      expect(response.text).not.toMatch(/no_such_table|ghosts|select|insert|update|delete|from|sql/i)
      expect(logger.errors).toHaveLength(1)
      // Not `toBeInstanceOf(Error)`: a native driver's error class may come from another jest module context.
      expect(String((logger.errors[0] as { message?: unknown }).message)).toMatch(/no_such_table/)
    })
  })

  describe('host error middleware', () => {
    let seen: unknown[]
    let host: Express
    beforeAll(() => {
      seen = []
      host = express()
      host.use(
        '/api',
        createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { ...collections, ...GHOSTS }, logger: recordingLogger() }),
      )
      host.get('/api/boom', () => {
        throw new Error('host failure')
      })
      const hostHandler: ErrorRequestHandler = (error, _req, res, _next) => {
        seen.push(error)
        res.status(418).json({ host: true })
      }
      host.use(hostHandler)
    })
    beforeEach(() => {
      seen.length = 0
    })

    it.each([
      ['a bad query', 'get', '/api/items/articles?sort=nope', undefined, 400],
      ['an unknown collection', 'get', '/api/items/nope', undefined, 404],
      ['a missing item', 'get', '/api/items/articles/99999', undefined, 404],
      ['a validation failure', 'post', '/api/items/articles', { rating: 'x' }, 400],
      ['malformed JSON', 'post', '/api/items/articles', '{"title":', 400],
      ['an unexpected database error', 'get', '/api/items/ghosts', undefined, 500],
    ] as const)('is not called for %s: the router answers it', async (_case, method, path, body, status) => {
      let call = request(host)[method](path)
      if (typeof body === 'string') call = call.set('Content-Type', 'application/json')
      const response = await (body === undefined ? call : call.send(body))
      expect(response.status).toBe(status)
      expect(response.body).toHaveProperty('errors')
      expect(seen).toEqual([])
    })

    it('still handles the host app’s own errors', async () => {
      const response = await request(host).get('/api/boom')
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 418, body: { host: true } })
      expect(seen).toHaveLength(1)
    })
  })
})
