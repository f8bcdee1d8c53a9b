// Concurrent writes on every dialect: singletons never get a second row, promotes and PATCHes never overwrite
// each other silently, and writes touching rows in opposite orders all succeed.
import type { Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import type { Hooks, ItemsRouterOptions } from '../../lib'
import type { DialectName } from '../../lib/dialects'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'

const ROUNDS = 3
/** Promote races run more rounds: an order that lets both win may come up in few of them. */
const PROMOTE_ROUNDS = 20
/** Twenty rounds of eight HTTP requests come close to jest's default timeout on MySQL when the machine is busy. */
const PROMOTE_TIMEOUT_MS = 120_000

/** An error shaped like each driver's deadlock report, for hooks that simulate one. */
const DEADLOCK: Readonly<Record<DialectName, object>> = {
  sqlite: { code: 'SQLITE_BUSY' },
  postgres: { code: '40P01' },
  mysql: { code: 'ER_LOCK_DEADLOCK', errno: 1213 },
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })
  beforeEach(() => ctx.reset())

  it('creates one singleton row whatever the number of concurrent PATCHes', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await ctx.knex('settings').delete()
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          request(app)
            .patch(index % 2 ? '/api/items/settings' : '/api/items/settings/singleton')
            .send({ site_name: `site ${index}` }),
        ),
      )
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200))
      const rows = await ctx.knex('settings').select('id', 'site_name')
      expect(rows).toHaveLength(1)
      // Every answer names the one row; the last writer's value is what it holds.
      expect(new Set(responses.map((response) => response.body.data.id))).toEqual(new Set([rows[0].id]))
    }
  })

  async function draftOf(id: number, changes: Record<string, unknown>): Promise<{ version: number; mainHash: string }> {
    const created = await request(app)
      .post('/api/versions')
      .send({ key: `draft-${Math.random().toString(36).slice(2)}`, collection: 'articles', item: id })
    expect(created.status).toBe(200)
    const version = created.body.data.id as number
    expect((await request(app).post(`/api/versions/${version}/save`).send(changes)).status).toBe(200)
    const compared = await request(app).get(`/api/versions/${version}/compare`)
    return { version, mainHash: compared.body.data.mainHash as string }
  }

  const promote = ({ version, mainHash }: { version: number; mainHash: string }): request.Test =>
    request(app).post(`/api/versions/${version}/promote`).send({ mainHash })

  it(
    'lets exactly one of two promotes with the same mainHash succeed',
    async () => {
      for (let round = 0; round < PROMOTE_ROUNDS; round++) {
        const a = await draftOf(9, { title: `From A ${round}` })
        const b = await draftOf(9, { title: `From B ${round}` })
        const [first, second] = await Promise.all([promote(a), promote(b)])
        expect([first.status, second.status].sort()).toEqual([200, 422])
        const winner = first.status === 200 ? `From A ${round}` : `From B ${round}`
        expect((await ctx.knex('articles').where({ id: 9 }).first('title')).title).toBe(winner)
      }
    },
    PROMOTE_TIMEOUT_MS,
  )

  it(
    'lets exactly one of two promotes with the same mainHash succeed when one would change nothing',
    async () => {
      for (let round = 0; round < PROMOTE_ROUNDS; round++) {
        const { rating } = (await ctx.knex('articles').where({ id: 9 }).first('rating')) as { rating: number | null }
        const changing = await draftOf(9, { title: `Changed ${round}` })
        const unchanging = await draftOf(9, { rating })
        // Each order in turn: the one that changes nothing used to leave the hash valid for the other.
        const pair = round % 2 === 0 ? [changing, unchanging] : [unchanging, changing]
        const [first, second] = await Promise.all(pair.map(promote))
        expect({ round, statuses: [first!.status, second!.status].sort() }).toEqual({ round, statuses: [200, 422] })
        expect((await ctx.knex('articles').where({ id: 9 }).first('title')).title).toBe(`Changed ${round}`)
      }
    },
    PROMOTE_TIMEOUT_MS,
  )

  it('never lets a promote overwrite a concurrent PATCH', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const draft = await draftOf(9, { title: `Draft ${round}` })
      const [promoted, patched] = await Promise.all([
        request(app).post(`/api/versions/${draft.version}/promote`).send({ mainHash: draft.mainHash }),
        request(app)
          .patch('/api/items/articles/9')
          .send({ title: `Editor ${round}` }),
      ])
      expect(patched.status).toBe(200)
      // Either the promote came first and the PATCH after it, or the PATCH made the promote's hash stale.
      expect([200, 422]).toContain(promoted.status)
      expect((await ctx.knex('articles').where({ id: 9 }).first('title')).title).toBe(`Editor ${round}`)
    }
  })

  it('answers 200 to every array PATCH when concurrent ones touch the same rows in opposite orders', async () => {
    const keys = [1, 2, 3, 4, 5, 6]
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => {
        const order = index % 2 ? [...keys].reverse() : keys
        return request(app)
          .patch('/api/items/articles')
          .send(order.map((id) => ({ id, rating: index % 5 })))
      }),
    )
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200))
    const ratings = await ctx.knex('articles').whereIn('id', keys).pluck('rating')
    // One request's ratings, all alike: no two requests' writes interleaved.
    expect(new Set(ratings).size).toBe(1)
  })

  describe('a transaction the database rolls back for a collision', () => {
    it('runs again from the start, before hooks included, and then succeeds', async () => {
      let calls = 0
      const hooked = createApp(ctx.knex, {
        collections: withHooks({
          beforeUpdate: async (data) => {
            calls += 1
            if (calls === 1) throw Object.assign(new Error('deadlock detected'), DEADLOCK[ctx.name])
            return data
          },
        }),
      })
      const response = await request(hooked).patch('/api/items/articles/2').send({ rating: 4 })
      expect(response.status).toBe(200)
      expect(calls).toBe(2)
    })

    it('answers 409 CONFLICT once the retries are spent, and writes nothing', async () => {
      let calls = 0
      const hooked = createApp(ctx.knex, {
        collections: withHooks({
          beforeUpdate: async (_data, { db }) => {
            calls += 1
            await db('articles').where({ id: 2 }).update({ rating: 1 })
            throw Object.assign(new Error('deadlock detected'), DEADLOCK[ctx.name])
          },
        }),
      })
      const before = await ctx.knex('articles').where({ id: 2 }).first('rating')
      const response = await request(hooked).patch('/api/items/articles/2').send({ rating: 4 })
      expect(response.status).toBe(409)
      expect(response.body.errors[0].extensions.code).toBe('CONFLICT')
      expect(calls).toBe(4)
      expect(await ctx.knex('articles').where({ id: 2 }).first('rating')).toEqual(before)
    })

    it('gives as many attempts as transactionAttempts says', async () => {
      for (const attempts of [1, 7]) {
        let calls = 0
        const hooked = createApp(ctx.knex, {
          transactionAttempts: attempts,
          collections: withHooks({
            beforeUpdate: async () => {
              calls += 1
              throw Object.assign(new Error('deadlock detected'), DEADLOCK[ctx.name])
            },
          }),
        })
        expect((await request(hooked).patch('/api/items/articles/2').send({ rating: 4 })).status).toBe(409)
        expect({ attempts, calls }).toEqual({ attempts, calls: attempts })
      }
    })

    it.each([0, 13, 2.5, '4'])('refuses transactionAttempts %p', (attempts) => {
      expect(() => createApp(ctx.knex, { transactionAttempts: attempts as number })).toThrow(/transactionAttempts/)
    })
  })
})

function withHooks(hooks: Hooks): ItemsRouterOptions['collections'] {
  return { ...collections, articles: { ...collections.articles, hooks } }
}
