// Time limits and cancellation: statements cut by statementTimeout or by their client leaving, hooks bounded by hookTimeout.
import type { Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createItemsRouter, type CollectionDefinition, type HookMeta, type Hooks, type ItemsRouterOptions } from '../../lib'
import { createApp, recordingLogger } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'

/** A statement that runs for `seconds` on the server, or null on SQLite, where a statement cannot be interrupted. */
function sleepSql(ctx: DialectContext, seconds: number): string | null {
  if (ctx.name === 'postgres') return `select pg_sleep(${seconds})`
  if (ctx.name === 'mysql') return `select sleep(${seconds})`
  return null
}

/** How many statements of this worker's database containing `text` the server is running (the asking one aside). */
async function running(ctx: DialectContext, text: string): Promise<number> {
  if (ctx.name === 'postgres') {
    const { rows } = (await ctx.knex.raw(
      "select count(*) as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and datname = current_database() and query like ?",
      [`%${text}%`],
    )) as { rows: { n: string }[] }
    return Number(rows[0]!.n)
  }
  const [rows] = (await ctx.knex.raw(
    'select count(*) as n from information_schema.processlist where id <> connection_id() and db = database() and info like ?',
    [`%${text}%`],
  )) as [{ n: number }[]]
  return Number(rows[0]!.n)
}

/** Waits until `check` holds, polling; fails with `what` after `ms`. */
async function eventually(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`Timed out waiting for: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const hanging = (): Promise<never> => new Promise<never>(() => undefined)

/** Sends the request and expects a 504 with `code`, well before the seconds its statement or hook would take. */
async function expectCut(send: () => request.Test, code: 'QUERY_TIMEOUT' | 'HOOK_TIMEOUT'): Promise<void> {
  const started = Date.now()
  const response = await send()
  expect(Date.now() - started).toBeLessThan(3000)
  expect(response.status).toBe(504)
  expect(response.body.errors[0].extensions.code).toBe(code)
}

forEachDialect((ctx) => {
  function appWith(hooks: Partial<Record<'articles', Hooks>>, options: Partial<ItemsRouterOptions> = {}): Express {
    const configured: Record<string, CollectionDefinition> = { ...collections }
    if (hooks.articles) configured.articles = { ...collections.articles!, hooks: hooks.articles }
    return createApp(ctx.knex, { collections: configured, ...options })
  }

  const articleCount = async (): Promise<number> => Number((await ctx.knex('articles').count({ n: '*' }))[0]!.n)

  beforeEach(() => ctx.reset())

  describe('statementTimeout', () => {
    const sql = sleepSql(ctx, 7)
    // SQLite has no statement timeout: a statement there runs synchronously and cannot be interrupted.
    const it_ = sql === null ? it.skip : it

    it_('cuts a long statement with 504 QUERY_TIMEOUT and leaves nothing running on the server', async () => {
      const app = appWith({ articles: { beforeRead: async (query, { db }) => (await db.raw(sql!), query) } }, { statementTimeout: 300 })
      const started = Date.now()
      const response = await request(app).get('/api/items/articles')
      expect(Date.now() - started).toBeLessThan(3000)
      expect(response.status).toBe(504)
      expect(response.body).toEqual({ errors: [{ message: expect.stringContaining('300 ms'), extensions: { code: 'QUERY_TIMEOUT' } }] })
      expect(await running(ctx, 'sleep(7)')).toBe(0)
      // The connection went back to the pool in working order.
      expect((await request(appWith({}, { statementTimeout: 300 })).get('/api/items/articles?limit=1')).status).toBe(200)
    })

    it_('rolls back a write whose statement it cut', async () => {
      const app = appWith(
        {
          articles: {
            beforeCreate: async (item, { db }) => {
              await db('authors').where('id', 1).update({ name: 'changed' })
              await db.raw(sql!)
              return item
            },
          },
        },
        { statementTimeout: 300 },
      )
      const response = await request(app).post('/api/items/articles').send({ title: 'Slow' })
      expect(response.status).toBe(504)
      expect(response.body.errors[0].extensions.code).toBe('QUERY_TIMEOUT')
      expect(await articleCount()).toBe(seed.articles.length)
      expect((await ctx.knex('authors').where('id', 1).first('name')).name).toBe(seed.authors[0]!.name)
    })

    it_('cancels the statement on the server when the client disconnects', async () => {
      const app = appWith({ articles: { beforeRead: async (query, { db }) => (await db.raw(sql!), query) } })
      await expect(request(app).get('/api/items/articles').timeout(500)).rejects.toThrow(/Timeout/)
      await eventually('the statement to be cancelled', 3000, async () => (await running(ctx, 'sleep(7)')) === 0)
    })
  })

  // The router's own statements: a shape's first request builds its statement with knex, later ones run the
  // kept text past knex's runner (run-statement.ts). Both must stop at the limit and when the client leaves.
  describe("statementTimeout on the router's own statements", () => {
    const nap = ctx.name === 'postgres' ? 'pg_sleep(7)::text' : ctx.name === 'mysql' ? 'sleep(7)' : null
    const it_ = nap === null ? it.skip : it
    const napping: Record<string, CollectionDefinition> = {
      napping: { fields: { id: { type: 'integer', primaryKey: true }, nap: { type: 'string' } } },
    }
    const URL = '/api/items/napping?fields=id,nap&filter[id][_eq]=1'

    beforeAll(async () => {
      if (nap !== null) await ctx.knex.raw(`create or replace view napping as select 1 as id, ${nap} as nap`)
    })
    afterAll(async () => {
      if (nap !== null) await ctx.knex.raw('drop view if exists napping')
    })

    it_('cuts the first and every later request of a shape with 504 QUERY_TIMEOUT, and the pool stays usable', async () => {
      const app = createApp(ctx.knex, { collections: { ...collections, ...napping }, statementTimeout: 300 })
      for (let attempt = 0; attempt < 3; attempt++) await expectCut(() => request(app).get(URL), 'QUERY_TIMEOUT')
      await eventually('the statements to be cancelled', 3000, async () => (await running(ctx, 'napping')) === 0)
      expect((await request(app).get('/api/items/articles?limit=1')).status).toBe(200)
    })

    it_("cancels a later request's statement on the server when its client disconnects", async () => {
      const app = createApp(ctx.knex, { collections: { ...collections, ...napping }, statementTimeout: 0 })
      for (let attempt = 0; attempt < 2; attempt++) {
        await expect(request(app).get(URL).timeout(400)).rejects.toThrow(/Timeout/)
        await eventually('the statement to be cancelled', 3000, async () => (await running(ctx, 'napping')) === 0)
      }
    })

    describe('a one-statement update', () => {
      const sleepy: Record<string, CollectionDefinition> = {
        sleepy_rows: { fields: { id: { type: 'integer', primaryKey: true }, nap: { type: 'string' } } },
      }
      beforeAll(async () => {
        if (nap === null) return
        await ctx.knex.schema.dropTableIfExists('sleepy_rows')
        await ctx.knex.schema.createTable('sleepy_rows', (table) => {
          table.integer('id').primary()
          table.string('nap', 20)
        })
        await ctx.knex('sleepy_rows').insert({ id: 1, nap: 'awake' })
        // Every update of a row sleeps first.
        if (ctx.name === 'postgres') {
          await ctx.knex.raw(
            'create or replace function sleepy_rows_nap() returns trigger language plpgsql as $$ begin perform pg_sleep(7); return new; end $$',
          )
          await ctx.knex.raw('create trigger sleepy_rows_nap before update on sleepy_rows for each row execute function sleepy_rows_nap()')
        } else await ctx.knex.raw('create trigger sleepy_rows_nap before update on sleepy_rows for each row set @nap = sleep(7)')
      })
      afterAll(async () => {
        if (nap === null) return
        await ctx.knex.schema.dropTableIfExists('sleepy_rows')
        if (ctx.name === 'postgres') await ctx.knex.raw('drop function if exists sleepy_rows_nap()')
      })

      it_('is cut with 504 QUERY_TIMEOUT and cancelled on the server; the row keeps its value', async () => {
        const app = createApp(ctx.knex, { collections: { ...collections, ...sleepy }, statementTimeout: 300 })
        for (let attempt = 0; attempt < 2; attempt++) {
          await expectCut(() => request(app).patch('/api/items/sleepy_rows/1').send({ nap: 'changed' }), 'QUERY_TIMEOUT')
        }
        await eventually('the statement to be cancelled', 3000, async () => (await running(ctx, 'sleepy_rows')) === 0)
        expect((await ctx.knex('sleepy_rows').where('id', 1).first('nap')).nap).toBe('awake')
        expect((await request(app).get('/api/items/articles?limit=1')).status).toBe(200)
      })
    })
  })

  it('adds one statement listener to a knex instance, however many routers share it', () => {
    const before = ctx.knex.listenerCount('start')
    for (let i = 0; i < 20; i++) createItemsRouter({ knex: ctx.knex, collections })
    expect(ctx.knex.listenerCount('start')).toBeLessThanOrEqual(Math.max(before, 1))
  })

  it.each([
    ['statementTimeout', -1],
    ['statementTimeout', 1.5],
    ['hookTimeout', '10s'],
    ['hookTimeout', 2 ** 31],
  ])('refuses %s: %j with CONFIG_BAD_LIMIT', (option, value) => {
    expect(() => createItemsRouter({ knex: ctx.knex, collections, [option]: value })).toThrow(/CONFIG_BAD_LIMIT/)
  })

  describe('hookTimeout', () => {
    it('rolls back a before hook that never resolves, answers 504 HOOK_TIMEOUT, and the pool stays usable', async () => {
      let signal: AbortSignal | undefined
      const app = appWith(
        {
          articles: {
            beforeCreate: async (_item, meta: HookMeta) => {
              signal = meta.signal
              await meta.db('authors').where('id', 1).update({ name: 'changed' })
              return hanging()
            },
          },
        },
        { hookTimeout: 300 },
      )
      const response = await request(app).post('/api/items/articles').send({ title: 'Never' })
      expect(response.status).toBe(504)
      expect(response.body).toEqual({
        errors: [
          {
            message: expect.stringContaining('beforeCreate'),
            extensions: { code: 'HOOK_TIMEOUT', collection: 'articles', hook: 'beforeCreate' },
          },
        ],
      })
      expect(signal?.aborted).toBe(true)
      expect(await articleCount()).toBe(seed.articles.length)
      expect((await ctx.knex('authors').where('id', 1).first('name')).name).toBe(seed.authors[0]!.name)
      // SQLite has one connection: it must be free again for the next request and for writes.
      expect((await request(app).get('/api/items/articles?limit=1')).status).toBe(200)
      expect((await request(appWith({})).post('/api/items/articles').send({ title: 'After' })).status).toBe(200)
    })

    const stuck = sleepSql(ctx, 8)
    const itStuck = stuck === null ? it.skip : it
    itStuck('stops waiting for a before hook stuck in a statement, and cancels that statement', async () => {
      const sql = stuck!
      const app = appWith({ articles: { beforeCreate: async (item, { db }) => (await db.raw(sql), item) } }, { hookTimeout: 300 })
      await expectCut(() => request(app).post('/api/items/articles').send({ title: 'Stuck' }), 'HOOK_TIMEOUT')
      await eventually('the statement to be cancelled', 3000, async () => (await running(ctx, 'sleep(8)')) === 0)
      expect(await articleCount()).toBe(seed.articles.length)
    })

    it('bounds beforeRead the same way', async () => {
      const app = appWith({ articles: { beforeRead: () => hanging() } }, { hookTimeout: 200 })
      const response = await request(app).get('/api/items/articles')
      expect(response.status).toBe(504)
      expect(response.body.errors[0].extensions).toEqual({ code: 'HOOK_TIMEOUT', collection: 'articles', hook: 'beforeRead' })
    })

    it('does not hold the response for an after hook that never resolves; the timeout is logged', async () => {
      const logger = recordingLogger()
      let signal: AbortSignal | undefined
      const app = appWith(
        {
          articles: {
            afterCreate: (_event, meta) => {
              signal = meta.signal
              return hanging()
            },
          },
        },
        { hookTimeout: 200, logger },
      )
      const started = Date.now()
      const response = await request(app).post('/api/items/articles').send({ title: 'Committed' })
      expect(Date.now() - started).toBeLessThan(2000)
      expect(response.status).toBe(200)
      expect(await articleCount()).toBe(seed.articles.length + 1)
      expect(signal?.aborted).toBe(true)
      expect(logger.errors).toEqual([expect.objectContaining({ code: 'HOOK_TIMEOUT' })])
    })

    // SQLite's own connection cannot cancel a statement, so there is nothing to look for there.
    ;(ctx.name === 'sqlite' ? it.skip : it)(
      'leaves the request’s statements alone when an after hook times out: the answer is still read back',
      async () => {
        const logger = recordingLogger()
        const app = appWith({ articles: { afterCreate: () => hanging() } }, { hookTimeout: 100, logger })
        const { result, sql } = await ctx.countQueries(async () => {
          const response = await request(app).post('/api/items/articles?fields=title').send({ title: 'Read back' })
          // A cancellation the abort started would be sent right away; give it the time to show.
          await new Promise((resolve) => setTimeout(resolve, 100))
          return response
        })
        expect(result.body).toEqual({ data: { title: 'Read back' } })
        expect(sql.filter((statement) => /pg_cancel_backend|information_schema\.processlist|kill query/i.test(statement))).toEqual([])
        expect(logger.errors).toEqual([expect.objectContaining({ code: 'HOOK_TIMEOUT' })])
      },
    )

    it('lets a hook that finishes in time change the value as before', async () => {
      const app = appWith(
        {
          articles: {
            beforeCreate: async (item) => (await new Promise((resolve) => setTimeout(resolve, 20)), { ...item, title: 'Hooked' }),
          },
        },
        { hookTimeout: 1000 },
      )
      const response = await request(app).post('/api/items/articles?fields=title').send({ title: 'Sent' })
      expect(response.body).toEqual({ data: { title: 'Hooked' } })
    })
  })
})
