// Hostile or malformed input answers a 4xx naming the problem on every database: never a 500, never silently stored.
import { once } from 'node:events'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Express } from 'express'
import request from 'supertest'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError, type Answered } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

const SAMPLE = '0b9e6f4a-1c2d-4e5f-8a9b-000000000001'

/**
 * Sends `body` with exactly these headers over a real connection: supertest sets its own length, and could not
 * send a chunked body that ends at once.
 */
async function sendRaw(app: Express, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<Answered> {
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  try {
    const { port } = server.address() as AddressInfo
    const req = http.request({ host: '127.0.0.1', port, method, path, headers })
    req.end(body)
    const [res] = (await once(req, 'response')) as [http.IncomingMessage]
    const chunks: Buffer[] = []
    for await (const chunk of res) chunks.push(chunk as Buffer)
    const text = Buffer.concat(chunks).toString()
    return {
      status: res.statusCode!,
      headers: res.headers as Record<string, string>,
      body: text === '' ? {} : (JSON.parse(text) as unknown),
    }
  } finally {
    server.close()
  }
}

/** A json value nested `depth` arrays deep. */
function nestedJson(depth: number): unknown {
  let value: unknown = 1
  for (let level = 0; level < depth; level++) value = [value]
  return value
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })
  beforeEach(() => ctx.reset())

  describe('paths with invalid percent-escapes', () => {
    it.each(['/api/items/articles/%', '/api/items/%E0%A4%A', '/api/versions/%E0%A4%A', '/api/items/articles/%E0%A4%A'])(
      '%s is a 404 ROUTE_NOT_FOUND',
      async (path) => {
        expectError(await request(app).get(path), 404, 'ROUTE_NOT_FOUND')
      },
    )
  })

  describe('bodies', () => {
    it('a body that claims gzip but is not is a 400 INVALID_PAYLOAD', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .set('Content-Type', 'application/json')
        .set('Content-Encoding', 'gzip')
        .send('{"name":"x"}')
      expectError(response, 400, 'INVALID_PAYLOAD')
    })

    it('an application/vnd.api+json body is parsed as JSON', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .set('Content-Type', 'application/vnd.api+json')
        .send(JSON.stringify({ name: 'plus json' }))
      expect({ status: response.status, body: response.body as unknown }).toMatchObject({
        status: 200,
        body: { data: { name: 'plus json' } },
      })
    })

    it.each([
      ['APPLICATION/JSON; charset=UTF-8', 200],
      ['application/merge-patch+json', 200],
      [' application/json ;charset=utf-8', 200],
      ['text/plain', 400],
      ['application/jsonp', 400],
      ['application/json-seq', 400],
      ['application/+json', 400],
    ])('a body sent as %s is %s', async (type, status) => {
      const response = await request(app)
        .post('/api/items/authors')
        .set('Content-Type', type)
        .send(JSON.stringify({ name: 'typed' }))
      if (status === 200)
        expect({ status: response.status, name: (response.body as { data?: { name?: unknown } }).data?.name }).toEqual({
          status,
          name: 'typed',
        })
      else expectError(response, 400, 'INVALID_PAYLOAD')
    })

    it('a json value nested 100,000 deep is a 400 INVALID_PAYLOAD', async () => {
      const text = '{"payload":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}'
      const response = await request(app).patch(`/api/items/samples/${SAMPLE}`).set('Content-Type', 'application/json').send(text)
      expectError(response, 400, 'INVALID_PAYLOAD')
    })

    describe.each([
      ['POST /items/authors', 'POST', '/api/items/authors'],
      ['PATCH /items/authors/1', 'PATCH', '/api/items/authors/1'],
      ['PATCH /items/authors', 'PATCH', '/api/items/authors'],
      ['DELETE /items/comments', 'DELETE', '/api/items/comments'],
    ])('an empty JSON body on %s', (_route, method, path) => {
      it.each([
        ['Content-Length: 0', { 'Content-Length': '0' }],
        ['an empty chunked body', { 'Transfer-Encoding': 'chunked' }],
      ])('with %s is a 400 INVALID_PAYLOAD, and nothing is written', async (_label, headers) => {
        const response = await sendRaw(app, method, path, { 'Content-Type': 'application/json', ...headers }, Buffer.alloc(0))
        expect(expectError(response, 400, 'INVALID_PAYLOAD').message).toContain('empty')
        expect(await rowCount(ctx, 'authors')).toBe(seed.authors.length)
        expect(await rowCount(ctx, 'comments')).toBe(seed.comments.length)
        expect(await ctx.knex('authors').where({ id: 1 }).first('name')).toEqual({ name: seed.authors[0]!.name })
      })
    })

    it('an empty JSON body where none is needed (a one-item DELETE) is no body', async () => {
      const headers = { 'Content-Type': 'application/json', 'Content-Length': '0' }
      expect((await sendRaw(app, 'DELETE', '/api/items/comments/1', headers, Buffer.alloc(0))).status).toBe(204)
    })

    it.each([
      ['an invalid byte', Buffer.from([0xff])],
      ['a lone continuation byte', Buffer.from([0x80])],
      ['an overlong slash', Buffer.from([0xc0, 0xaf])],
      ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
      ['a truncated sequence', Buffer.from([0xe2, 0x82])],
    ])('a JSON body with %s (not UTF-8) is a 400 INVALID_PAYLOAD, and nothing is stored', async (_label, bytes) => {
      const body = Buffer.concat([Buffer.from('{"name":"a'), bytes, Buffer.from('b"}')])
      for (const type of ['application/json', 'application/json; charset=UTF-8']) {
        const response = await sendRaw(app, 'POST', '/api/items/authors', { 'Content-Type': type }, body)
        expect(expectError(response, 400, 'INVALID_PAYLOAD').message).toContain('UTF-8')
      }
      expect(await rowCount(ctx, 'authors')).toBe(seed.authors.length)
    })

    it('a JSON body in UTF-8 with a byte order mark and four-byte characters is stored as sent', async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"😀 Zoë"}')])
      const response = await sendRaw(app, 'POST', '/api/items/authors?fields=name', { 'Content-Type': 'application/json' }, body)
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { data: { name: '😀 Zoë' } } })
    })

    it('a json value nested 40 deep is a 400 INVALID_PAYLOAD naming maxJsonDepth', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}`)
        .send({ payload: nestedJson(40) })
      expect(expectError(response, 400, 'INVALID_PAYLOAD').message).toContain('maxJsonDepth')
    })

    it('a json value nested 30 deep is stored and read back', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}?fields=payload`)
        .send({ payload: nestedJson(30) })
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 200,
        body: { data: { payload: nestedJson(30) } },
      })
    })
  })

  describe('values out of range', () => {
    it.each(['$NOW(-999999999 year)', '$NOW(+999999999 year)'])('filter %s on a dateTime is a 400', async (value) => {
      const response = await request(app).get(`/api/items/articles?filter[published_at][_gt]=${encodeURIComponent(value)}`)
      expectError(response, 400, 'INVALID_QUERY')
    })

    it('$NOW(-5000 year) on a date is a 400', async () => {
      const response = await request(app).get(`/api/items/samples?filter[day][_gt]=${encodeURIComponent('$NOW(-5000 year)')}`)
      expectError(response, 400, 'INVALID_QUERY')
    })

    it('year 0000 in a filter is a 400', async () => {
      const response = await request(app).get('/api/items/samples?filter[logged_at][_gt]=0000-01-01T00:00:00Z')
      expectError(response, 400, 'INVALID_QUERY')
    })

    it('year 0000 in a payload is a 400', async () => {
      const response = await request(app).patch(`/api/items/samples/${SAMPLE}`).send({ logged_at: '0000-01-01T00:00:00Z' })
      expectError(response, 400, 'FAILED_VALIDATION')
    })

    it.each(['1e309', '-1e309', 'Infinity', 'NaN'])('filter[ratio][_gt]=%s is a 400', async (value) => {
      const response = await request(app).get(`/api/items/samples?filter[ratio][_gt]=${value}`)
      expectError(response, 400, 'INVALID_QUERY')
    })

    it('{"ratio":1e309} is a 400, not NULL', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}`)
        .set('Content-Type', 'application/json')
        .send('{"ratio":1e309}')
      expectError(response, 400, 'FAILED_VALIDATION')
    })

    it('a 1,000-digit decimal is a 400', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}`)
        .send({ price: '9'.repeat(1000) })
      expect(expectError(response, 400, 'FAILED_VALIDATION').extensions).toMatchObject({ field: 'price', type: 'decimalDigits' })
    })

    it('1e20 does not fit a decimal(14,2)', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}`)
        .set('Content-Type', 'application/json')
        .send('{"price":1e20}')
      expect(expectError(response, 400, 'FAILED_VALIDATION').extensions).toMatchObject({ field: 'price', type: 'decimalDigits' })
    })

    it('12 digits before the point fit a decimal(14,2)', async () => {
      const response = await request(app).patch(`/api/items/samples/${SAMPLE}?fields=price`).send({ price: '999999999999.99' })
      expect({ status: response.status, body: response.body as unknown }).toEqual({
        status: 200,
        body: { data: { price: '999999999999.99' } },
      })
    })

    it.each([
      ['ASCII', 'x'.repeat(900_000)],
      ['two-byte', 'é'.repeat(300_000)],
      ['four-byte', '😀'.repeat(200_000)],
    ])('a 900 KB %s text is stored, or VALUE_TOO_LONG where the column is smaller (MySQL TEXT)', async (_kind, body) => {
      const response = await request(app).patch(`/api/items/samples/${SAMPLE}?fields=id`).send({ body })
      if (ctx.name === 'mysql') expect(expectError(response, 400, 'VALUE_TOO_LONG').extensions.field).toBe('body')
      else expect(response.status).toBe(200)
    })

    it('/versions/2147483648 is a 404', async () => {
      expectError(await request(app).get('/api/versions/2147483648'), 404, 'NOT_FOUND')
    })
  })

  describe('NUL and lone surrogates', () => {
    it('NUL inside a json value is a 400', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}`)
        .send({ payload: { a: 'x\u0000y' } })
      expectError(response, 400, 'FAILED_VALIDATION')
    })

    it('NUL inside a json key is a 400', async () => {
      const response = await request(app)
        .patch(`/api/items/samples/${SAMPLE}`)
        .send({ payload: { 'a\u0000': 1 } })
      expectError(response, 400, 'FAILED_VALIDATION')
    })

    it('NUL in ?version= is a 400', async () => {
      expectError(await request(app).get('/api/items/articles/1?version=a%00b'), 400, 'INVALID_QUERY')
    })

    it('NUL in a version key is a 400', async () => {
      const response = await request(app).post('/api/versions').send({ key: 'a\u0000b', name: 'x', collection: 'articles', item: '1' })
      expectError(response, 400, 'INVALID_PAYLOAD')
    })

    it('a lone surrogate in a string is a 400', async () => {
      const response = await request(app).post('/api/items/authors').set('Content-Type', 'application/json').send('{"name":"a\\ud800b"}')
      expectError(response, 400, 'FAILED_VALIDATION')
    })

    it('a lone surrogate in a filter value is a 400', async () => {
      const filter = encodeURIComponent('{"name":{"_eq":"a\\ud800b"}}')
      expectError(await request(app).get(`/api/items/authors?filter=${filter}`), 400, 'INVALID_QUERY')
    })
  })

  describe('__proto__', () => {
    it('filter[__proto__][_eq]=1 is a 400', async () => {
      expectError(await request(app).get('/api/items/articles?filter[__proto__][_eq]=1'), 400, 'INVALID_QUERY')
    })
    it('deep[__proto__][_limit]=1 is a 400', async () => {
      expectError(await request(app).get('/api/items/articles?deep[__proto__][_limit]=1'), 400, 'INVALID_QUERY')
    })
    it('a JSON filter with __proto__ is a 400', async () => {
      const filter = encodeURIComponent('{"__proto__":{"_eq":1}}')
      expectError(await request(app).get(`/api/items/articles?filter=${filter}`), 400, 'INVALID_QUERY')
    })
  })
})
