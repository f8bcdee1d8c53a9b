// The browser guide's CORS setup, transpiled and mounted as written: every method @directus/sdk sends passes
// its preflight with the headers it carries, and answers expose the ETag a page sends back as If-Match.
import cors from 'cors'
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import * as library from '../../lib'
import { forEachDialect } from '../support/dialects'
import { loadBlockModule } from './doc-blocks'

const { corsApp } = loadBlockModule<{ corsApp(knex: Knex, collections: library.Collections): Express }>('cors', {
  cors,
  express,
  'express-items-router': library,
})

const ORIGIN = 'https://app.example.com'

/** What the SDK's rest() client sends: JSON on every call, and the concurrency headers where a client adds them. */
const CALLS: ReadonlyArray<[method: string, path: string, headers: string]> = [
  ['GET', '/api/items/articles', 'content-type'],
  ['SEARCH', '/api/items/articles', 'content-type'],
  ['POST', '/api/items/articles', 'content-type,idempotency-key'],
  ['PATCH', '/api/items/articles/1', 'content-type,if-match'],
  ['DELETE', '/api/items/articles/1', 'content-type,if-match'],
  ['PATCH', '/api/items/settings', 'content-type,authorization'],
]

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = corsApp(ctx.knex, collections)
  })

  it.each(CALLS)('lets a page send %s %s with %s', async (method, path, headers) => {
    const preflight = await request(app)
      .options(path)
      .set('Origin', ORIGIN)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', headers)
    expect(preflight.status).toBe(204)
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN)
    expect(preflight.headers['access-control-allow-credentials']).toBe('true')
    expect(preflight.headers['access-control-allow-methods']!.split(',')).toContain(method)
    expect(preflight.headers['access-control-allow-headers']).toBe(headers)
  })

  it('exposes the ETag of a read to the page, and names no other origin', async () => {
    const read = await request(app).get('/api/items/articles/1').set('Origin', ORIGIN)
    expect(read.status).toBe(200)
    expect(read.headers.etag).toBeDefined()
    expect(read.headers['access-control-expose-headers']!.split(',')).toContain('ETag')

    const other = await request(app).get('/api/items/articles/1').set('Origin', 'https://evil.example')
    expect(other.headers['access-control-allow-origin']).toBeUndefined()
  })
})
