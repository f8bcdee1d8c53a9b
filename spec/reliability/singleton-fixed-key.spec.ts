// A singleton's row created on an empty table, where the router's singleton lock does not reach every writer
// (MySQL's GET_LOCK is local to a Galera node): the row gets the fixed key 1, so two creators collide on the
// primary key and the loser runs again, finding and updating the winner's row instead of adding a second one.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express, { type Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, prepareSqliteConnection, type Hooks } from '../../lib'
import { knexConfig } from '../support/databases'
import { forEachDialect, type DialectContext } from '../support/dialects'

/** Two knex instances on one database, as two app servers (or two cluster nodes' clients) hold them. */
interface TwoServers {
  readonly first: Knex
  readonly second: Knex
  close(): Promise<void>
}

/**
 * PostgreSQL and MySQL: a second instance on the worker database. SQLite: the worker database is in memory and
 * cannot be shared, so both open one file in WAL mode, the journal that lets a writer commit beside a reader.
 */
async function twoServers(ctx: DialectContext): Promise<TwoServers> {
  if (ctx.name !== 'sqlite') {
    const second = knexFactory(knexConfig(ctx.name))
    return { first: ctx.knex, second, close: () => second.destroy() }
  }
  const dir = mkdtempSync(join(tmpdir(), 'singleton-key-'))
  const open = (): Knex =>
    knexFactory({
      client: 'better-sqlite3',
      connection: { filename: join(dir, 'db.sqlite') },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { pragma(source: string): unknown }, done: (err: Error | null, conn: unknown) => void) => {
          conn.pragma('journal_mode = WAL')
          conn.pragma('busy_timeout = 200')
          prepareSqliteConnection(conn)
          done(null, conn)
        },
      },
    })
  const first = open()
  const second = open()
  await first.schema.createTable('settings', (table) => {
    table.increments('id')
    table.string('site_name')
    table.string('tagline')
    table.integer('items_per_page')
  })
  return {
    first,
    second,
    close: async () => {
      await Promise.all([first.destroy(), second.destroy()])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

function appOn(knex: Knex, hooks: Hooks = {}): Express {
  const app = express()
  app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections: { settings: { ...collections.settings, hooks } } }))
  return app
}

forEachDialect((ctx) => {
  let servers: TwoServers
  beforeAll(async () => {
    servers = await twoServers(ctx)
  })
  afterAll(() => servers.close())
  beforeEach(async () => {
    await ctx.reset()
    await servers.first('settings').delete()
  })

  it('creates one row, with key 1, from concurrent PATCHes through two routers on two knex instances', async () => {
    const apps = [appOn(servers.first), appOn(servers.second)]
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        request(apps[index % 2]!)
          .patch(index % 4 < 2 ? '/api/items/settings' : '/api/items/settings/singleton')
          .send({ site_name: `site ${index}` }),
      ),
    )
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200))
    const rows = await servers.first('settings').select('id')
    expect(rows.map((row: { id: unknown }) => Number(row.id))).toEqual([1])
    expect(new Set(responses.map((response) => response.body.data.id))).toEqual(new Set([1]))
  })

  it('updates the row another server created between its find and its insert, instead of adding a second', async () => {
    // The lock held here does not stop the other server, as on two Galera nodes: the hook stands for that
    // server's create landing once this transaction has found no row.
    let created = 0
    const app = appOn(servers.first, {
      beforeCreate: async (payload) => {
        if (created++ === 0) await servers.second('settings').insert({ id: 1, site_name: 'from the other server' })
        return payload
      },
    })
    const response = await request(app).patch('/api/items/settings').send({ site_name: 'from this server' })
    expect(response.status).toBe(200)
    expect(response.body.data).toMatchObject({ id: 1, site_name: 'from this server' })
    // The retry found the row: no second create ran.
    expect(created).toBe(1)
    const rows = await servers.first('settings').select('id', 'site_name')
    expect(rows.map((row: { id: unknown; site_name: unknown }) => [Number(row.id), row.site_name])).toEqual([[1, 'from this server']])
  })

  it('keeps handing out new keys after the fixed one (PostgreSQL moves its sequence past it)', async () => {
    expect((await request(appOn(servers.first)).patch('/api/items/settings').send({ site_name: 'one' })).status).toBe(200)
    await servers.first('settings').insert({ site_name: 'next' })
    const next = (await servers.first('settings').where({ site_name: 'next' }).first('id')) as { id: unknown }
    expect(Number(next.id)).toBeGreaterThan(1)
  })

  if (ctx.name === 'postgres') {
    it('leaves a GENERATED ALWAYS identity key to the database, which refuses a written one', async () => {
      await ctx.knex.raw('drop table if exists fixed_key_identity')
      await ctx.knex.raw('create table fixed_key_identity (id integer generated always as identity primary key, label text)')
      try {
        const app = express()
        const fields = {
          id: { type: 'integer', primaryKey: true, autoIncrement: true, generated: true },
          label: { type: 'string' },
        } as const
        app.use(
          '/api',
          createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { fixed_key_identity: { singleton: true, fields } } }),
        )
        await ctx.knex.raw('select setval(pg_get_serial_sequence(?, ?), 41)', ['fixed_key_identity', 'id'])
        const response = await request(app).patch('/api/items/fixed_key_identity').send({ label: 'one' })
        expect(response.status).toBe(200)
        expect(response.body.data).toMatchObject({ id: 42, label: 'one' })
      } finally {
        await ctx.knex.raw('drop table fixed_key_identity')
      }
    })
  }
})
