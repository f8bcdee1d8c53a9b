// The router reads a request's query from req.url, relative to its mount: a host middleware that rewrites the URL before it takes effect.
import express, { type Express, type RequestHandler } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createItemsRouter } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'

const PUBLISHED = seed.articles.filter((article) => article.status === 'published').map((article) => article.id)

/** Rewrites `/api/published/articles?...` into the Items request it stands for, keeping the client's parameters. */
const publishedAlias: RequestHandler = (req, _res, next) => {
  const match = /^\/api\/published\/articles(?:\?(.*))?$/.exec(req.url)
  if (match) req.url = `/api/items/articles?filter[status][_eq]=published&fields=id&limit=-1${match[1] ? `&${match[1]}` : ''}`
  next()
}

/** Mounted beside the router: appends the parameters a header names, the way a host might add some per client. */
const addQuery: RequestHandler = (req, _res, next) => {
  const extra = req.get('x-add-query')
  if (extra !== undefined) req.url = `${req.url}${req.url.includes('?') ? '&' : '?'}${extra}`
  next()
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = express()
    app.use(publishedAlias)
    app.use('/api', addQuery, createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger() }))
  })

  it('serves the query of a URL rewritten before the mount', async () => {
    const response = await request(app).get('/api/published/articles?sort=-id')
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual([...PUBLISHED].sort((a, b) => b - a).map((id) => ({ id })))
  })

  it('serves the query of a URL rewritten by middleware on the same mount', async () => {
    const response = await request(app).get('/api/items/articles?fields=id&sort=id').set('x-add-query', 'limit=3')
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }])
  })

  it('keys parsed queries by the rewritten URL: one address rewritten two ways answers two ways', async () => {
    const path = '/api/items/articles?fields=id&sort=id'
    const capped = await request(app).get(path).set('x-add-query', 'limit=2')
    const wider = await request(app).get(path).set('x-add-query', 'limit=4')
    const plain = await request(app).get(path)
    expect(capped.body.data).toHaveLength(2)
    expect(wider.body.data).toHaveLength(4)
    expect(plain.body.data).toHaveLength(Math.min(100, seed.articles.length))
  })

  it('serves the query of a rewritten one-item read', async () => {
    const response = await request(app).get('/api/items/articles/1?fields=id').set('x-add-query', 'fields=title')
    expect(response.status).toBe(200)
    expect(response.body.data).toEqual({ id: 1, title: seed.articles[0]!.title })
  })
})
