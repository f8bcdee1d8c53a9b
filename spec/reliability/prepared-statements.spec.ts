// preparedStatements: a statement reused across requests of one shape must bind each request's own values, views
// and callers, keep each connection's statements bounded, and leave an aborted request cancellable.
import type { Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createItemsRouter, type CollectionDefinition, type ItemsRouterOptions } from '../../lib'
import { KEPT_PER_CONNECTION } from '../../lib/dialects/kept-statements'
import { keptOn } from '../../lib/execute/statement-cache'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'

type Article = (typeof seed.articles)[number]

/** The pooled connections of a knex instance, idle ones. */
function idleConnections(knex: Knex): object[] {
  const pool = (knex.client as { pool?: { free: { resource: object }[] } }).pool
  return (pool?.free ?? []).map((slot) => slot.resource)
}

/** Statements each idle connection keeps. */
const keptPerConnection = (knex: Knex): number[] => idleConnections(knex).map((connection) => keptOn(knex, connection)?.size ?? 0)
/** Most statements any idle connection keeps, or 0. */
const mostKept = (knex: Knex): number => Math.max(0, ...keptPerConnection(knex))
/** Statements all idle connections keep. */
const allKept = (knex: Knex): number => keptPerConnection(knex).reduce((sum, kept) => sum + kept, 0)

async function ids(app: Express, path: string, user?: number): Promise<number[]> {
  const call = request(app).get(path)
  const response = await (user === undefined ? call : call.set('x-user', String(user)))
  expect(response.status).toBe(200)
  return (response.body as { data: { id: number }[] }).data.map((item) => item.id)
}

/** Ids of seeded articles passing `keep`, ordered by rating descending (NULLs last), then id. */
function expectedIds(keep: (article: Article) => boolean, limit = Number.POSITIVE_INFINITY): number[] {
  return seed.articles
    .filter(keep)
    .sort((a, b) => (b.rating ?? -Infinity) - (a.rating ?? -Infinity) || a.id - b.id)
    .slice(0, limit)
    .map((article) => article.id)
}

forEachDialect((ctx: DialectContext) => {
  beforeAll(() => ctx.reset())

  // MySQL reuses nothing (see Dialect.statementReuse), so on it both settings run the same way: still correct.
  describe.each([true, false])('preparedStatements: %s', (preparedStatements) => {
    const options: Partial<ItemsRouterOptions> = { preparedStatements }

    it('binds each request its own values in one request shape', async () => {
      const app = createApp(ctx.knex, options)
      for (const [status, limit] of [
        ['published', 5],
        ['draft', 7],
        ['archived', 3],
        ['published', 11],
      ] as const) {
        const path = `/api/items/articles?filter[status][_eq]=${status}&sort=-rating&limit=${limit}&fields=id`
        expect(await ids(app, path)).toEqual(expectedIds((article) => article.status === status, limit))
      }
      // The same shape with an IN list: each length is a shape of its own, each value bound anew.
      for (const list of [[1, 2], [3, 4, 5], [6]]) {
        const path = `/api/items/articles?filter[author][_in]=${list.join(',')}&sort=-rating&limit=1000&fields=id`
        expect(await ids(app, path)).toEqual(expectedIds((article) => list.includes(article.author ?? -1)))
      }
    })

    it('gives each caller and each access view its own rows from the same request shape', async () => {
      const ruled: Record<string, CollectionDefinition> = {
        ...collections,
        articles: {
          ...collections.articles,
          access: { read: (context) => (context.role === 'editor' ? true : { filter: { author: { _eq: '$CURRENT_USER' } } }) },
        },
      }
      const app = createApp(ctx.knex, {
        ...options,
        collections: ruled,
        context: (req) => ({ user: Number(req.get('x-user')), role: req.get('x-user') === '0' ? 'editor' : 'author' }),
      })
      const path = '/api/items/articles?sort=-rating&limit=1000&fields=id'
      for (const user of [3, 5, 3, 0, 7, 0]) {
        const mine = user === 0 ? expectedIds(() => true) : expectedIds((article) => article.author === user)
        expect(await ids(app, path, user)).toEqual(mine)
      }
    })

    it('binds each write its own values, through the statements a lone write keeps in its transaction', async () => {
      const app = createApp(ctx.knex, options)
      const keptBefore = allKept(ctx.knex)
      const titles = ['First kept write', 'Second kept write', 'Third kept write']
      const keys: number[] = []
      for (const [index, title] of titles.entries()) {
        const created = await request(app).post('/api/items/articles?fields=id,title,rating').send({ title, rating: index })
        expect(created.body.data).toMatchObject({ title, rating: index })
        keys.push(created.body.data.id as number)
      }
      for (const [index, id] of keys.entries()) {
        const updated = await request(app)
          .patch(`/api/items/articles/${id}?fields=id,rating`)
          .send({ rating: 10 + index })
        expect(updated.body.data).toEqual({ id, rating: 10 + index })
      }
      // Only the writes ran (their answers come from RETURNING; MySQL reuses nothing).
      if (preparedStatements && ctx.name !== 'mysql') expect(allKept(ctx.knex)).toBeGreaterThan(keptBefore)
      else expect(allKept(ctx.knex)).toBe(keptBefore)
      const stored = await ctx.knex('articles').whereIn('id', keys).orderBy('id').select('title', 'rating')
      expect(stored).toEqual(titles.map((title, index) => ({ title, rating: 10 + index })))
      // The reads above and below expect the seed's articles alone.
      await ctx.knex('articles').whereIn('id', keys).delete()
    })

    it(`keeps statements only when on, at most ${KEPT_PER_CONNECTION} per connection`, async () => {
      const app = createApp(ctx.knex, options)
      const before = mostKept(ctx.knex)
      // More distinct statements than a connection keeps: IN lists of every length from 1 on.
      for (let length = 1; length <= KEPT_PER_CONNECTION + 20; length += 1) {
        const list = Array.from({ length }, (_, i) => i + 1)
        await ids(app, `/api/items/articles?filter[id][_in]=${list.join(',')}&limit=1&fields=id`)
      }
      const kept = mostKept(ctx.knex)
      expect(kept).toBeLessThanOrEqual(KEPT_PER_CONNECTION)
      if (preparedStatements && ctx.name !== 'mysql') expect(kept).toBeGreaterThan(0)
      else expect(kept).toBe(before)
    })
  })

  it('refuses a preparedStatements that is not a boolean with CONFIG_BAD_OPTION', () => {
    expect(() => createItemsRouter({ knex: ctx.knex, collections, preparedStatements: 'yes' as unknown as boolean })).toThrow(
      /CONFIG_BAD_OPTION/,
    )
  })

  // A host migrates its tables while the app serves: a statement kept before it must not fail after it. SQLite
  // reads a kept `select *`'s column names per call; PostgreSQL refuses to run a named statement whose result
  // type changed (SQLSTATE 0A000) until it is prepared again.
  it("answers a table's columns as they are now through a kept `select *` after the host added one", async () => {
    await ctx.knex.schema.dropTableIfExists('kept_star')
    await ctx.knex.schema.createTable('kept_star', (table) => {
      table.integer('id').primary()
      table.text('a')
    })
    await ctx.knex('kept_star').insert({ id: 1, a: 'x' })
    const seen: unknown[] = []
    // The caller's context is resolved inside the request, so its statements go through the kept ones.
    const app = createApp(ctx.knex, {
      preparedStatements: true,
      context: async () => (seen.push(await ctx.knex('kept_star').select('*').where('id', 1)), {}),
    })
    const read = async (): Promise<void> => {
      expect((await request(app).get('/api/items/articles?limit=1&fields=id')).status).toBe(200)
    }
    // Twice each side of the change, so that at least one read runs a statement its connection kept.
    await read()
    await read()
    await ctx.knex.schema.alterTable('kept_star', (table) => table.text('b'))
    await ctx.knex('kept_star').update({ b: 'y' })
    await read()
    await read()
    await ctx.knex.schema.dropTable('kept_star')
    const before = [{ id: 1, a: 'x' }]
    const after = [{ id: 1, a: 'x', b: 'y' }]
    expect(seen).toEqual([before, before, after, after])
  })

  it("reads and writes through kept statements after the host changed a column's type", async () => {
    await ctx.knex.schema.dropTableIfExists('kept_shape')
    await ctx.knex.schema.createTable('kept_shape', (table) => {
      table.integer('id').primary()
      table.string('label', 20)
    })
    await ctx.knex('kept_shape').insert({ id: 1, label: 'first' })
    const app = createApp(ctx.knex, {
      preparedStatements: true,
      collections: { kept_shape: { fields: { id: { type: 'integer', primaryKey: true }, label: { type: 'string' } } } },
    })
    const readAndWrite = async (label: string): Promise<void> => {
      // Items created together are created in a transaction (first, so that it meets the change first); one
      // item's update runs alone.
      const pair = [
        { id: 2, label },
        { id: 3, label },
      ]
      const created = await request(app).post('/api/items/kept_shape').send(pair)
      expect([created.status, created.body]).toEqual([200, { data: pair }])
      const updated = await request(app).patch('/api/items/kept_shape/1').send({ label })
      expect([updated.status, updated.body]).toEqual([200, { data: { id: 1, label } }])
      const read = await request(app).get('/api/items/kept_shape?sort=id')
      expect([read.status, read.body]).toEqual([200, { data: [{ id: 1, label }, ...pair] }])
      expect((await request(app).delete('/api/items/kept_shape').send([2, 3])).status).toBe(204)
    }
    // Several rounds each side: the pool may lend any of its connections, and each keeps statements of its own.
    for (let round = 0; round < 12; round += 1) await readAndWrite(`before ${round}`)
    await ctx.knex.schema.alterTable('kept_shape', (table) => table.string('label', 40).alter())
    for (let round = 0; round < 12; round += 1) await readAndWrite(`after the change ${round}`)
    await ctx.knex.schema.dropTable('kept_shape')
  })

  // PostgreSQL's reused statements carry no request marker: an aborted request is cancelled by its connection.
  const it_ = ctx.name === 'postgres' ? it : it.skip
  it_('cancels an unmarked statement on the server when the client disconnects', async () => {
    const hooked: Record<string, CollectionDefinition> = {
      ...collections,
      articles: { ...collections.articles, hooks: { beforeRead: async (query, { db }) => (await db.raw('select pg_sleep(7)'), query) } },
    }
    const app = createApp(ctx.knex, { collections: hooked, preparedStatements: true })
    const sleeping = async (): Promise<string[]> => {
      const { rows } = (await ctx.knex.raw(
        "select query from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and datname = current_database() and query like '%pg_sleep(7)%' and query not like '%pg_stat_activity%'",
      )) as { rows: { query: string }[] }
      return rows.map((row) => row.query)
    }
    const abandoned = expect(request(app).get('/api/items/articles').timeout(1000)).rejects.toThrow(/Timeout/)
    let seen: string[] = []
    for (let tries = 0; seen.length === 0 && tries < 40; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      seen = await sleeping()
    }
    // Unmarked, so the marker search of a plain cancellation could not have found it.
    expect(seen).toEqual(['select pg_sleep(7)'])
    await abandoned
    const until = Date.now() + 3000
    while ((await sleeping()).length > 0) {
      if (Date.now() > until) throw new Error('The statement was not cancelled')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })
})
