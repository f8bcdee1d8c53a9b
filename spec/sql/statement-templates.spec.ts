// Read statements are compiled once per key: later requests of the key bind their own values into the kept
// SQL without building a query, a value that changes the SQL text compiles afresh, a statement that binds a
// value outside its comparisons is never kept, and the kept templates stay bounded. The whole suite also runs with
// checkCaches on (spec/support/check-caches.ts); the last specs here show that check can fail.
import type { Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { dialectOf } from '../../lib/dialects'
import { checkCaches } from '../../lib/cache-checks'
import { QueryKey } from '../../lib/query/query-key'
import { StatementTemplates } from '../../lib/sql/statement-templates'
import { collections } from '../../fixtures/schema'
import { createApp } from '../support/app'
import { foldsKeyLists, forEachDialect } from '../support/dialects'

type Row = Record<string, unknown>
const ids = (response: request.Response): unknown[] => (response.body as { data: Row[] }).data.map((item) => item.id)

forEachDialect((ctx) => {
  describe('statement templates', () => {
    let app: Express
    beforeAll(async () => {
      await ctx.reset()
      app = createApp(ctx.knex)
    })

    /** The ids the database itself gives for the articles matching `where`, in key order. */
    const expected = async (where: (qb: Knex.QueryBuilder) => void): Promise<unknown[]> => {
      const qb = ctx.knex('articles').select('id').orderBy('id')
      where(qb)
      return ((await qb) as Row[]).map((row) => row.id)
    }

    it('binds each request its own values into the kept statement of its key', async () => {
      for (const rating of [3, 4, 1]) {
        const response = await request(app).get(`/api/items/articles?filter[rating][_eq]=${rating}&sort=id&fields=id&limit=-1`)
        expect(ids(response)).toEqual(await expected((qb) => qb.where('rating', rating)))
      }
      for (const [limit, offset] of [
        [5, 0],
        [3, 7],
        [4, 2],
      ] as const) {
        const response = await request(app).get(
          `/api/items/articles?filter[rating][_gte]=2&sort=id&fields=id&limit=${limit}&offset=${offset}`,
        )
        expect(ids(response)).toEqual(await expected((qb) => qb.where('rating', '>=', 2).limit(limit).offset(offset)))
      }
    })

    it('compiles afresh when a value changes the text: a null, a longer list, a non-ASCII pattern', async () => {
      const cases: Array<[string, (qb: Knex.QueryBuilder) => void]> = [
        ['filter[author][_eq]=4', (qb) => qb.where('author', 4)],
        ['filter[author][_eq]=null', (qb) => qb.whereNull('author')],
        ['filter[author][_eq]=5', (qb) => qb.where('author', 5)],
        ['filter[id][_in]=1,2', (qb) => qb.whereIn('id', [1, 2])],
        ['filter[id][_in]=3,4,5', (qb) => qb.whereIn('id', [3, 4, 5])],
        ['filter[id][_in]=6', (qb) => qb.whereIn('id', [6])],
      ]
      for (const [filter, where] of cases) {
        const response = await request(app).get(`/api/items/articles?${filter}&sort=id&fields=id&limit=-1`)
        expect({ filter, ids: ids(response) }).toEqual({ filter, ids: await expected(where) })
      }
      // On SQLite an ASCII term folds with lower(), any other with items_fold(): two texts of one key.
      const ascii = await request(app).get('/api/items/authors?filter[name][_icontains]=volk&fields=name&limit=-1')
      const accented = await request(app).get('/api/items/authors?filter[name][_icontains]=ÅNGSTR&fields=name&limit=-1')
      const asciiAgain = await request(app).get('/api/items/authors?filter[name][_icontains]=kai&fields=name&limit=-1')
      const names = (response: request.Response): unknown[] => (response.body as { data: Row[] }).data.map((item) => item.name)
      expect(names(ascii)).toEqual(['Dmitri Volkov'])
      expect(names(accented)).toEqual(['Zoë Ångström'])
      expect(names(asciiAgain)).toEqual(['Kai Müller'])
    })

    it('never takes a search or a cursor page for the same key without it', async () => {
      const list = '/api/items/authors?fields=id,name&sort=id&limit=3'
      await request(app).get(list).expect(200)
      const names = (response: request.Response): unknown[] => (response.body as { data: Row[] }).data.map((item) => item.name)
      expect(names(await request(app).get(`${list}&search=volk`).expect(200))).toEqual(['Dmitri Volkov'])
      const first = await request(app).get(`${list}&meta=next_cursor`).expect(200)
      const cursor = (first.body as { meta: { next_cursor: string } }).meta.next_cursor
      const next = await request(app)
        .get(`${list}&cursor=${encodeURIComponent(cursor)}`)
        .expect(200)
      expect(ids(next)).toEqual([4, 5, 6])
    })

    it('runs a kept key without building a query: the second one-item read creates no query builder', async () => {
      await request(app).get('/api/items/articles/1').expect(200)
      const builders = jest.spyOn(ctx.knex.client as { queryBuilder(): Knex.QueryBuilder }, 'queryBuilder')
      checkCaches(false)
      try {
        const { result, sql } = await ctx.countQueries(() => request(app).get('/api/items/articles/2'))
        expect(result.status).toBe(200)
        // The article with its comment and topic keys (Dialect.keyPairs), or where the connection folds no key list
        // (SQLite's own) the article and a statement per list.
        expect(sql).toHaveLength((await foldsKeyLists(ctx.knex)) ? 1 : 3)
        expect(builders).not.toHaveBeenCalled()
      } finally {
        checkCaches(true)
        builders.mockRestore()
      }
    })

    it("keeps a one-item UPDATE's key where it returns no row: the next one of the key builds no query", async () => {
      // An afterUpdate hook has the answer read after the write, so the UPDATE returns no row on every database.
      const events: unknown[] = []
      const hooks = { afterUpdate: (event: { keys: unknown }): void => void events.push(event.keys) }
      const hooked = createApp(ctx.knex, { collections: { ...collections, articles: { ...collections.articles, hooks } } })
      await request(hooked).patch('/api/items/articles/3?fields=id,rating').send({ rating: 2 }).expect(200)
      const builders = jest.spyOn(ctx.knex.client as { queryBuilder(): Knex.QueryBuilder }, 'queryBuilder')
      checkCaches(false)
      try {
        const { result, sql } = await ctx.countQueries(() =>
          request(hooked).patch('/api/items/articles/4?fields=id,rating').send({ rating: 5 }),
        )
        expect(result.status).toBe(200)
        expect(result.body.data).toEqual({ id: 4, rating: 5 })
        expect(sql.filter((text) => /^(\/\*.*?\*\/ )?update /.test(text))).toHaveLength(1)
        expect(builders).not.toHaveBeenCalled()
      } finally {
        checkCaches(true)
        builders.mockRestore()
      }
      expect(await ctx.knex('articles').where('id', 4).first('rating')).toEqual({ rating: 5 })
      expect(events).toEqual([[3], [4]])
      // Another set of fields is another key; a key with no row still answers 404.
      await request(hooked).patch('/api/items/articles/4').send({ title: 'Kept', rating: 1 }).expect(200)
      expect(await ctx.knex('articles').where('id', 4).first('title', 'rating')).toEqual({ title: 'Kept', rating: 1 })
      await request(hooked).patch('/api/items/articles/99999').send({ rating: 5 }).expect(404)
    })

    it("runs a kept key past knex's runner, reported to the knex instance's query and query-response listeners", async () => {
      await request(app).get('/api/items/articles/1').expect(200)
      const sent: string[] = []
      const answered: string[] = []
      const onQuery = (query: { sql: string }): void => void sent.push(query.sql)
      const onResponse = (_response: unknown, query: { sql: string }): void => void answered.push(query.sql)
      ctx.knex.on('query', onQuery).on('query-response', onResponse)
      try {
        await request(app).get('/api/items/articles/2').expect(200)
      } finally {
        ctx.knex.off('query', onQuery).off('query-response', onResponse)
      }
      expect(sent.length).toBeGreaterThan(0)
      expect(answered).toEqual(sent)
      // Marked with the request's id where a statement can be cancelled, as a statement built with knex is.
      if (ctx.name !== 'sqlite') for (const sql of sent) expect(sql).toMatch(/^\/\* items-router [0-9a-f-]{36} \*\/ select /)
    })

    it("keeps a one-to-many list's per-parent window: each page binds its parents and rank bounds, a kept one builds no query", async () => {
      const page = (offset: number, windowOffset: number): string =>
        `/api/items/articles?fields=id,comments.id&sort=id&limit=4&offset=${offset}` +
        `&deep[comments][_sort]=id&deep[comments][_limit]=2&deep[comments][_offset]=${windowOffset}`
      /** Each article of the page with its comments' ids in key order, cut as the window cuts them. */
      const windows = async (offset: number, windowOffset: number): Promise<Row[]> => {
        const articles = ((await ctx.knex('articles').select('id').orderBy('id').limit(4).offset(offset)) as Row[]).map((row) => row.id)
        const comments = (await ctx
          .knex('comments')
          .select('id', 'article')
          .whereIn('article', articles as number[])
          .orderBy('id')) as Row[]
        return articles.map((id) => ({
          id,
          comments: comments
            .filter((comment) => comment.article === id)
            .slice(windowOffset, windowOffset + 2)
            .map((comment) => comment.id),
        }))
      }
      const flat = (body: { data: Array<{ id: unknown; comments: Row[] }> }): Row[] =>
        body.data.map((item) => ({ id: item.id, comments: item.comments.map((comment) => comment.id) }))
      for (const [offset, windowOffset] of [
        [0, 0],
        [4, 1],
        [8, 0],
      ] as const) {
        expect(flat((await request(app).get(page(offset, windowOffset)).expect(200)).body)).toEqual(await windows(offset, windowOffset))
      }
      const builders = jest.spyOn(ctx.knex.client as { queryBuilder(): Knex.QueryBuilder }, 'queryBuilder')
      checkCaches(false)
      try {
        expect(flat((await request(app).get(page(12, 1)).expect(200)).body)).toEqual(await windows(12, 1))
        // The spy saw the expectation's own two queries only.
        expect(builders).toHaveBeenCalledTimes(2)
      } finally {
        checkCaches(true)
        builders.mockRestore()
      }
    })

    it('keeps grouped aggregates too: each request counts its own rows, and a kept one builds no query', async () => {
      const url = (rating: number): string =>
        `/api/items/articles?aggregate[count]=*&groupBy[]=status&filter[rating][_eq]=${rating}&sort=status`
      const counted = async (rating: number): Promise<Row[]> =>
        (
          (await ctx
            .knex('articles')
            .select('status')
            .count({ count: '*' })
            .where('rating', rating)
            .groupBy('status')
            .orderBy('status')) as Row[]
        ).map((row) => ({ status: row.status, count: Number(row.count) }))
      for (const rating of [3, 4]) {
        expect((await request(app).get(url(rating)).expect(200)).body).toEqual({ data: await counted(rating) })
      }
      const builders = jest.spyOn(ctx.knex.client as { queryBuilder(): Knex.QueryBuilder }, 'queryBuilder')
      checkCaches(false)
      try {
        expect((await request(app).get(url(1)).expect(200)).body).toEqual({ data: await counted(1) })
        // The spy saw the expectation's own query only.
        expect(builders).toHaveBeenCalledTimes(1)
      } finally {
        checkCaches(true)
        builders.mockRestore()
      }
    })

    describe('StatementTemplates', () => {
      const page = { limit: 3, offset: 0 }
      const plansOf = (capacity?: number): StatementTemplates =>
        new StatementTemplates((result) => dialectOf(ctx.knex).rawRows(result), capacity)

      it('compiles a key once and keeps at most its capacity of keys', async () => {
        checkCaches(false)
        try {
          const plans = plansOf(2)
          const compile = jest.fn(() => ctx.knex('articles').select('id').orderBy('id'))
          const run = (kind: string): Promise<Row[]> => plans.select(ctx.knex, new QueryKey(kind), page, compile)
          expect(await run('a')).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }])
          await run('a')
          expect(compile).toHaveBeenCalledTimes(1)
          await run('b')
          await run('c')
          expect(compile).toHaveBeenCalledTimes(3)
          // 'a' was the least recently used of three keys in a cache of two: compiled again.
          await run('a')
          expect(compile).toHaveBeenCalledTimes(4)
        } finally {
          checkCaches(true)
        }
      })

      it('never keeps a statement binding a value outside its comparisons, and still answers it', async () => {
        const plans = plansOf()
        const compile = jest.fn(() => ctx.knex('articles').select('id').where('id', '>', 10).orderBy('id'))
        for (let run = 0; run < 3; run += 1) {
          expect(await plans.select(ctx.knex, new QueryKey('outside'), page, compile)).toEqual([{ id: 11 }, { id: 12 }, { id: 13 }])
        }
        // Recorded once (found unkeepable), then compiled for each run.
        expect(compile).toHaveBeenCalledTimes(4)
      })

      it('throws, with checkCaches on, when a kept plan differs from a fresh compile', async () => {
        const plans = plansOf()
        let column = 'id'
        const compile = (): Knex.QueryBuilder => ctx.knex('articles').select(column).orderBy('id')
        await plans.select(ctx.knex, new QueryKey('drifting'), page, compile)
        column = 'title'
        await expect(plans.select(ctx.knex, new QueryKey('drifting'), page, compile)).rejects.toThrow('differs from a fresh compile')
      })
    })
  })
})
