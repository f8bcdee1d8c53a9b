// options.replica on every dialect: reads of read requests go to the replica's knex, everything a write request
// runs (its read-back, version saves and promotes, idempotency keys) goes to the primary, and a client can ask
// to read its own writes. A frozen replica (a second database) shows that lag never changes a write's answer.
import { randomUUID } from 'node:crypto'
import type { Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { rebuildTables } from '../../fixtures/seed'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsRouterOptions } from '../../lib'
import { createApp } from '../support/app'
import { knexConfig, workerDatabase } from '../support/databases'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { statementsOf } from '../support/statements-of'

/** A second knex instance on the primary's own database: SQLite's in-memory database is reachable only through its one connection. */
function sameDatabase(ctx: DialectContext): Knex {
  return ctx.name === 'sqlite' ? ctx.knex.withUserParams({}) : knexFactory(knexConfig(ctx.name))
}

forEachDialect((ctx) => {
  describe('a replica on the same database', () => {
    let replica: Knex
    let app: Express
    const routed = (fn: () => Promise<unknown>) => statementsOf(ctx.knex, replica, fn)
    const build = (options: Partial<ItemsRouterOptions> = {}): Express =>
      createApp(ctx.knex, { createIdempotencyTable: true, replica: { knex: replica }, ...options })

    beforeAll(() => {
      replica = sameDatabase(ctx)
      app = build()
    })
    afterAll(async () => {
      if (ctx.name !== 'sqlite') await replica.destroy()
    })
    beforeEach(() => ctx.reset())

    it('runs every statement of a read request on the replica', async () => {
      const seen = await routed(async () => {
        expect((await request(app).get('/api/items/articles?fields=title,author.name,comments.body&meta=*')).status).toBe(200)
        expect((await request(app).get('/api/items/articles/1')).status).toBe(200)
        expect((await request(app).get('/api/items/settings')).status).toBe(200)
        expect((await request(app).get('/api/items/articles?aggregate[count]=*&groupBy[]=status')).status).toBe(200)
        expect(
          (
            await request(app)
              .search('/api/items/authors')
              .send({ query: { filter: { id: { _eq: 1 } } } })
          ).status,
        ).toBe(200)
      })
      expect(seen.primary).toEqual([])
      expect(seen.replica.length).toBeGreaterThanOrEqual(8)
    })

    it('runs every statement of a write request on the primary, its read-back and idempotency key included', async () => {
      const seen = await routed(async () => {
        const created = await request(app).post('/api/items/authors').set('Idempotency-Key', randomUUID()).send({ name: 'Primary' })
        expect(created.status).toBe(200)
        expect(created.body.data).toMatchObject({ name: 'Primary' })
        expect((await request(app).patch('/api/items/articles/1?fields=title').send({ title: 'Moved' })).body.data).toEqual({
          title: 'Moved',
        })
        expect((await request(app).patch('/api/items/settings').send({ site_name: 'Primary site' })).status).toBe(200)
        expect((await request(app).delete('/api/items/comments/1')).status).toBe(204)
      })
      expect(seen.replica).toEqual([])
      // The read-back after each write is among them.
      expect(seen.primary.filter((sql) => /^\/\*[^*]*\*\/ select/i.test(sql) || /^select/i.test(sql)).length).toBeGreaterThan(4)
    })

    it('saves and promotes a content version on the primary', async () => {
      const version = await request(app).post('/api/versions').send({ key: 'draft', collection: 'articles', item: 1 })
      expect(version.status).toBe(200)
      const id = version.body.data.id as number
      const compare = await request(app).get(`/api/versions/${id}/compare`)
      expect(compare.status).toBe(200)
      const seen = await routed(async () => {
        expect((await request(app).post(`/api/versions/${id}/save`).send({ title: 'Draft' })).status).toBe(200)
        const promoted = await request(app).post(`/api/versions/${id}/promote`).send({ mainHash: compare.body.data.mainHash })
        expect(promoted.status).toBe(200)
      })
      expect(seen.replica).toEqual([])
      expect(seen.primary.length).toBeGreaterThan(0)
    })

    it('reads from the primary when the client asks for its own writes', async () => {
      const seen = await routed(async () => {
        const read = await request(app).get('/api/items/articles/1').set('Items-Consistency', 'strong')
        expect(read.status).toBe(200)
      })
      expect(seen.replica).toEqual([])
      expect(seen.primary.length).toBeGreaterThan(0)
    })

    it('lets the host decide which reads need the primary', async () => {
      const custom = build({ replica: { knex: replica, readsPrimary: (req) => req.get('Cookie') === 'wrote=1' } })
      const strong = await routed(() => request(custom).get('/api/items/authors').set('Cookie', 'wrote=1'))
      expect(strong.replica).toEqual([])
      const plain = await routed(() => request(custom).get('/api/items/authors').set('Items-Consistency', 'strong'))
      expect(plain.primary).toEqual([])
    })
  })

  describe('a replica that lags behind', () => {
    let frozen: Knex
    let app: Express

    beforeAll(async () => {
      if (ctx.name === 'sqlite') {
        frozen = knexFactory(knexConfig('sqlite'))
      } else {
        const database = `${workerDatabase()}_replica`
        if (ctx.name === 'postgres') {
          const exists = await ctx.knex('pg_database').where({ datname: database }).first('datname')
          if (!exists) await ctx.knex.raw('create database ??', [database])
        } else {
          await ctx.knex.raw('create database if not exists ?? character set utf8mb4', [database])
        }
        const config = knexConfig(ctx.name)
        const connection = config.connection as Knex.PgConnectionConfig & Knex.MySql2ConnectionConfig
        frozen = knexFactory({
          ...config,
          connection: connection.connectionString
            ? { ...connection, connectionString: connection.connectionString.replace(/\/[^/]*$/, `/${database}`) }
            : { ...connection, database },
        })
      }
      await rebuildTables(frozen)
      app = createApp(ctx.knex, { replica: { knex: frozen } })
    })
    afterAll(() => frozen.destroy())
    beforeEach(() => ctx.reset())

    it('answers a write with what it wrote, however far behind the replica is', async () => {
      const created = await request(app).post('/api/items/authors').send({ name: 'Fresh' })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ name: 'Fresh' })
      const id = created.body.data.id as number

      const updated = await request(app).patch(`/api/items/authors/${id}`).send({ email: 'fresh@example.com' })
      expect(updated.body.data).toMatchObject({ id, name: 'Fresh', email: 'fresh@example.com' })

      // A plain read sees the replica's past; a client that asks for its writes sees them.
      expect((await request(app).get(`/api/items/authors/${id}`)).status).toBe(404)
      const own = await request(app).get(`/api/items/authors/${id}`).set('Items-Consistency', 'strong')
      expect(own.body.data).toMatchObject({ id, name: 'Fresh', email: 'fresh@example.com' })
    })

    it('checks If-Match against the primary, not the replica', async () => {
      await ctx.knex('articles').where({ id: 1 }).update({ title: 'Changed on the primary' })
      const stale = await request(app).get('/api/items/articles/1')
      const etag = stale.headers.etag as string
      const refused = await request(app).patch('/api/items/articles/1').set('If-Match', etag).send({ rating: 1 })
      expect(refused.status).toBe(412)
      const fresh = await request(app).get('/api/items/articles/1').set('Items-Consistency', 'strong')
      const accepted = await request(app)
        .patch('/api/items/articles/1')
        .set('If-Match', fresh.headers.etag as string)
        .send({ rating: 1 })
      expect(accepted.status).toBe(200)
    })
  })
})

describe('options.replica', () => {
  const sqlite = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  const pg = knexFactory({ client: 'pg', connection: {} })
  afterAll(() => Promise.all([sqlite.destroy(), pg.destroy()]))
  const build = (replica: unknown) => () =>
    createItemsRouter({ knex: sqlite, collections, replica: replica as ItemsRouterOptions['replica'] })

  it.each([
    ['a replica of another database kind', { knex: pg }, 'CONFIG_BAD_OPTION'],
    ['something that is not knex', { knex: {} }, 'CONFIG_MISSING_KNEX'],
    ['an unknown key', { knex: sqlite, lag: 5 }, 'CONFIG_UNKNOWN_OPTION'],
    ['a readsPrimary that is not a function', { knex: sqlite, readsPrimary: 'strong' }, 'CONFIG_BAD_OPTION'],
    ['no object', 'replica', 'CONFIG_BAD_OPTION'],
  ])('refuses %s', (_what, replica, code) => {
    expect(build(replica)).toThrow(expect.objectContaining({ code }))
  })

  it('takes a second knex of the same kind', () => {
    expect(build({ knex: sqlite.withUserParams({}), readsPrimary: () => true })).not.toThrow()
  })
})
