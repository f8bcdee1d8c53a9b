// Secure by default, on every database: a router without `defaultAccess` serves its collections without `access`
// for reading only. Every anonymous create, update and delete is a 403 that names the setting and changes no row;
// `defaultAccess: true` or a collection's own `access` opens writes.
import type { Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

const WRITES: ReadonlyArray<[string, 'create' | 'update' | 'delete', (app: Express) => request.Test]> = [
  ['POST one', 'create', (app) => request(app).post('/api/items/comments').send({ article: 1, body: 'Sneaked in' })],
  [
    'POST many',
    'create',
    (app) =>
      request(app)
        .post('/api/items/comments')
        .send([{ article: 1, body: 'Sneaked in' }]),
  ],
  ['PATCH one', 'update', (app) => request(app).patch('/api/items/comments/1').send({ body: 'Sneaked in' })],
  [
    'PATCH keys',
    'update',
    (app) =>
      request(app)
        .patch('/api/items/comments')
        .send({ keys: [1, 2], data: { body: 'Sneaked in' } }),
  ],
  [
    'PATCH by query',
    'update',
    (app) =>
      request(app)
        .patch('/api/items/comments')
        .send({ query: { limit: -1 }, data: { body: 'Sneaked in' } }),
  ],
  ['DELETE one', 'delete', (app) => request(app).delete('/api/items/comments/1')],
  ['DELETE keys', 'delete', (app) => request(app).delete('/api/items/comments').send([1, 2])],
  [
    'DELETE by query',
    'delete',
    (app) =>
      request(app)
        .delete('/api/items/comments')
        .send({ query: { limit: -1 } }),
  ],
]

forEachDialect((ctx) => {
  let readOnly: Express
  beforeAll(() => {
    // `createApp` opens writes for the other suites; `undefined` is what a host that never set it passes.
    readOnly = createApp(ctx.knex, { defaultAccess: undefined })
  })
  beforeEach(() => ctx.reset())

  it.each(WRITES)('refuses an anonymous %s with 403 naming the setting, changing no row', async (_label, action, send) => {
    const error = expectError(await send(readOnly), 403, 'FORBIDDEN')
    expect(error.message).toBe(
      `Writes are closed by default: "comments" has no access rule allowing ${action}. ` +
        "Open writes with the router option defaultAccess or the collection's access.",
    )
    expect(await rowCount(ctx, 'comments')).toBe(seed.comments.length)
    expect(await rowCount(ctx, 'comments', { body: 'Sneaked in' })).toBe(0)
  })

  it('answers reads, lists and searches as an open router does', async () => {
    const open = createApp(ctx.knex, { defaultAccess: true })
    for (const url of ['/api/items/comments?sort=id', '/api/items/comments/1', '/api/items/articles?fields=id,author.name&sort=id']) {
      const [closedAnswer, openAnswer] = [await request(readOnly).get(url), await request(open).get(url)]
      expect(closedAnswer.status).toBe(200)
      expect(closedAnswer.body).toEqual(openAnswer.body)
    }
  })

  it('opens writes with defaultAccess: true, or with a collection of its own access', async () => {
    const created = await request(createApp(ctx.knex, { defaultAccess: true }))
      .post('/api/items/comments')
      .send({ article: 1, body: 'Allowed' })
    expect(created.status).toBe(200)
    const comments = { ...collections.comments, access: { read: true, update: true } }
    const ownApp = createApp(ctx.knex, { defaultAccess: undefined, collections: { ...collections, comments } })
    expect((await request(ownApp).patch('/api/items/comments/1').send({ body: 'Allowed' })).status).toBe(200)
    // A collection's own rule denies as it always did, without pointing at the default.
    const denied = expectError(await request(ownApp).delete('/api/items/comments/1'), 403, 'FORBIDDEN')
    expect(denied.message).not.toContain('by default')
  })
})
