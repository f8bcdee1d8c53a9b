// Missing setup on every database: when the versions or Idempotency-Key table does not exist and the router was
// not asked to create it, /versions is a 404 to everyone and absent from the OpenAPI document, `?version=` finds
// no version, a write with an Idempotency-Key is a 400 that writes nothing, and each table is logged once, not a
// 500 with a stack per request.
import { randomUUID } from 'node:crypto'
import express, { type Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsRouter } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

/** A logger that keeps every line, so a spec can count them. */
function countingLogger(): {
  warnings: string[]
  errors: unknown[]
  warn(message: string): void
  error(message: string, error?: unknown): void
} {
  const warnings: string[] = []
  const errors: unknown[] = []
  return { warnings, errors, warn: (message) => warnings.push(message), error: (_message, error) => errors.push(error) }
}

forEachDialect((ctx) => {
  // Names no run of any helper creates, so the tables are surely missing.
  const versionsTable = `no_versions_${randomUUID().slice(0, 8)}`
  const idempotencyTable = `no_idem_${randomUUID().slice(0, 8)}`
  let app: Express
  let router: ItemsRouter
  let logger: ReturnType<typeof countingLogger>
  beforeAll(() => {
    logger = countingLogger()
    router = createItemsRouter({ knex: ctx.knex, collections, defaultAccess: true, logger, versionsTable, idempotencyTable, openapi: true })
    app = express().use('/api', router)
  })
  beforeEach(() => ctx.reset())

  it('answers every /versions route with 404 ROUTE_NOT_FOUND, anonymous callers included', async () => {
    const sends = [
      () => request(app).get('/api/versions'),
      () => request(app).post('/api/versions').send({ key: 'draft', collection: 'articles', item: 1 }),
      () => request(app).get('/api/versions/1'),
      () => request(app).patch('/api/versions/1').send({ name: 'x' }),
      () => request(app).delete('/api/versions/1'),
      () => request(app).post('/api/versions/1/save').send({ title: 'x' }),
      () => request(app).get('/api/versions/1/compare'),
      () => request(app).post('/api/versions/1/promote').send({ mainHash: 'x' }),
    ]
    for (const send of sends) expectError(await send(), 404, 'ROUTE_NOT_FOUND')
    expect(logger.errors).toEqual([])
  })

  it('answers ?version= with 404 NOT_FOUND for that version, and lists with it as without versions', async () => {
    const error = expectError(await request(app).get('/api/items/articles/1?version=draft'), 404, 'NOT_FOUND')
    expect(error.extensions).toEqual({ code: 'NOT_FOUND', version: 'draft' })
    const listed = await request(app).get('/api/items/articles?version=draft&fields=id')
    expect(listed.status).toBeLessThan(500)
    expect(logger.errors).toEqual([])
  })

  it('leaves /versions out of the OpenAPI document, served and from router.openapi()', async () => {
    const served = await request(app).get('/api/openapi.json')
    expect(served.status).toBe(200)
    const paths = Object.keys(served.body.paths as Record<string, unknown>)
    expect(paths.filter((path) => path.startsWith('/versions'))).toEqual([])
    expect(paths).toContain('/items/articles')
    expect(Object.keys(router.openapi().paths).filter((path) => path.startsWith('/versions'))).toEqual([])
    expect(
      Object.keys(router.openapi().components.schemas as Record<string, unknown>).filter((name) => name.includes('ContentVersion')),
    ).toEqual([])
  })

  it('refuses a write with an Idempotency-Key with 400 naming the header, writing nothing', async () => {
    const before = await rowCount(ctx, 'authors')
    const refused = await request(app).post('/api/items/authors').set('Idempotency-Key', randomUUID()).send({ name: 'Keyed' })
    const error = expectError(refused, 400, 'INVALID_PAYLOAD')
    expect(error.message).toContain('Idempotency-Key')
    expect(error.extensions).toEqual({ code: 'INVALID_PAYLOAD', header: 'Idempotency-Key' })
    expect(await rowCount(ctx, 'authors')).toBe(before)
    // Without the header the same write goes through.
    expect((await request(app).post('/api/items/authors').send({ name: 'Unkeyed' })).status).toBe(200)
  })

  it('logs each missing table once, however many requests meet it, and no error', async () => {
    for (let i = 0; i < 5; i++) {
      await request(app).get('/api/versions')
      await request(app).patch('/api/items/articles/1').set('Idempotency-Key', randomUUID()).send({ rating: 2 })
    }
    expect(logger.warnings).toHaveLength(2)
    expect(logger.warnings.find((line) => line.includes(versionsTable))).toMatch(/createVersionsTable/)
    expect(logger.warnings.find((line) => line.includes(idempotencyTable))).toMatch(/createIdempotencyTable/)
    expect(logger.errors).toEqual([])
  })

  it('serves /versions and Idempotency-Key as before when the router creates its tables', async () => {
    const created = express().use(
      '/api',
      createItemsRouter({
        knex: ctx.knex,
        collections,
        defaultAccess: true,
        logger: countingLogger(),
        versionsTable: `${versionsTable}_c`,
        idempotencyTable: `${idempotencyTable}_c`,
        createVersionsTable: true,
        createIdempotencyTable: true,
      }),
    )
    try {
      expect((await request(created).get('/api/versions')).status).toBe(200)
      expect((await request(created).post('/api/items/authors').set('Idempotency-Key', randomUUID()).send({ name: 'Kept' })).status).toBe(
        200,
      )
    } finally {
      await ctx.knex.schema.dropTableIfExists(`${versionsTable}_c`)
      await ctx.knex.schema.dropTableIfExists(`${idempotencyTable}_c`)
    }
  })
})
