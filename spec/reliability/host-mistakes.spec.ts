// A host's easy mistakes, on every database: a knex transaction passed as `knex` is refused at creation, and an
// app-wide `express.json()` mounted before the router is noticed (one warning naming the fix) while the router's
// `bodyLimit` and its refusal of an empty body still hold.
import express, { type Express } from 'express'
import { createRequire } from 'node:module'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { ConfigError, createItemsRouter } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

// Express 4 brings body-parser 1, which marks a parsed request differently from body-parser 2 (see json-body.ts).
const express4 = createRequire(__filename)('express4') as typeof express

forEachDialect((ctx) => {
  it('refuses a transaction as knex or replica.knex with CONFIG_KNEX_TRANSACTION', async () => {
    const trx = await ctx.knex.transaction()
    try {
      for (const options of [{ knex: trx }, { knex: ctx.knex, replica: { knex: trx } }]) {
        let thrown: unknown
        try {
          createItemsRouter({ ...options, collections, defaultAccess: true })
        } catch (error) {
          thrown = error
        }
        expect(thrown).toBeInstanceOf(ConfigError)
        expect((thrown as ConfigError).code).toBe('CONFIG_KNEX_TRANSACTION')
        expect((thrown as ConfigError).message).toMatch(/is a transaction; pass the knex instance itself/)
      }
    } finally {
      await trx.rollback()
    }
  })

  describe.each([
    ['Express 5', express],
    ['Express 4', express4],
  ])('express.json() mounted before the router (%s)', (_version, host) => {
    let app: Express
    let warnings: string[]
    beforeAll(() => {
      warnings = []
      const logger = { warn: (message: string) => warnings.push(message), error: () => undefined }
      app = host()
      // A generous host parser: without the router's own check, a body over its bodyLimit would be written.
      app.use(host.json({ limit: '10mb' }))
      app.use('/api', createItemsRouter({ knex: ctx.knex, collections, defaultAccess: true, logger, bodyLimit: 2048 }))
    })
    beforeEach(() => ctx.reset())

    it('still writes a body within the limits', async () => {
      const created = await request(app).post('/api/items/authors').send({ name: 'Parsed twice over' })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ name: 'Parsed twice over' })
    })

    it("refuses a body over the router's bodyLimit with 413 PAYLOAD_TOO_LARGE, writing nothing", async () => {
      const before = await rowCount(ctx, 'authors')
      const refused = await request(app)
        .post('/api/items/authors')
        .send({ name: 'Big', bio: 'x'.repeat(5000) })
      expect(expectError(refused, 413, 'PAYLOAD_TOO_LARGE').extensions).toEqual({ code: 'PAYLOAD_TOO_LARGE', limit: 2048 })
      expect(await rowCount(ctx, 'authors')).toBe(before)
    })

    it('refuses an empty body with 400 INVALID_PAYLOAD instead of creating an item of nulls', async () => {
      const before = await rowCount(ctx, 'comments')
      const refused = await request(app).post('/api/items/comments').set('Content-Type', 'application/json').send('')
      expectError(refused, 400, 'INVALID_PAYLOAD')
      expect(await rowCount(ctx, 'comments')).toBe(before)
    })

    it('warns once, naming the fix, however many requests arrive pre-parsed', async () => {
      for (let i = 0; i < 3; i++)
        await request(app)
          .patch('/api/items/authors/1')
          .send({ bio: `Seen ${i}` })
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/body parser ran before the router/)
      expect(warnings[0]).toMatch(/Mount express\.json\(\) after the router/)
    })
  })

  it('does not warn when the router parses its own bodies', async () => {
    const warnings: string[] = []
    const logger = { warn: (message: string) => warnings.push(message), error: () => undefined }
    const app = express().use('/api', createItemsRouter({ knex: ctx.knex, collections, defaultAccess: true, logger }))
    await ctx.reset()
    expect((await request(app).patch('/api/items/authors/1').send({ bio: 'Own parser' })).status).toBe(200)
    expect(warnings).toEqual([])
  })
})
