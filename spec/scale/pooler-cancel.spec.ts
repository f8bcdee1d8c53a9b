// Behind a pooler (PgBouncer) the backend pid pg learns at connect is the pooler's, so knex's own cancel of a
// timed-out statement signals the wrong process. Simulated by a driver told a wrong pid, or for real when
// PGBOUNCER_URL names a PgBouncer in transaction mode in front of the test server (with a `*` fallback database,
// since each jest worker has its own): the statement must still be stopped on the server. PostgreSQL only.
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { createApp } from '../support/app'
import { knexConfig, workerDatabase } from '../support/databases'
import { forEachDialect } from '../support/dialects'

/** A pid no backend has: what pg_cancel_backend gets behind the pooler, in effect. */
const POOLERS_PID = 2_147_483_000

forEachDialect((ctx) => {
  if (ctx.name !== 'postgres') {
    it.skip('cancellation behind a pooler is a PostgreSQL matter', () => undefined)
    return
  }

  let pooled: Knex
  beforeAll(() => {
    const config = knexConfig('postgres')
    const bouncer = process.env.PGBOUNCER_URL
    if (bouncer) {
      const url = new URL(bouncer)
      url.pathname = `/${workerDatabase()}`
      pooled = knexFactory({ ...config, connection: { connectionString: url.toString() } })
      return
    }
    pooled = knexFactory({
      ...config,
      pool: {
        min: 0,
        max: 4,
        afterCreate: (connection: { processID: number }, done: (error: Error | null, connection: unknown) => void) => {
          connection.processID = POOLERS_PID
          done(null, connection)
        },
      },
    })
  })
  afterAll(() => pooled.destroy())
  beforeEach(() => ctx.reset())

  const waiting = async (): Promise<number> => {
    const { rows } = (await ctx.knex.raw(
      "select count(*)::int as n from pg_stat_activity where query like '/* items-router %' and state = 'active' and pid <> pg_backend_pid()",
    )) as { rows: { n: number }[] }
    return rows[0]!.n
  }

  it('stops a statement past statementTimeout on the server, not only in the client', async () => {
    const app = createApp(pooled, { statementTimeout: 300 })
    const trx = await ctx.knex.transaction()
    try {
      await trx('articles').where({ id: 1 }).forUpdate().select('id')
      const response = await request(app).patch('/api/items/articles/1').send({ rating: 99 })
      expect(response.status).toBe(504)
      expect(response.body.errors[0].extensions.code).toBe('QUERY_TIMEOUT')
      let left = await waiting()
      for (let tries = 0; left > 0 && tries < 20; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        left = await waiting()
      }
      expect(left).toBe(0)
    } finally {
      await trx.rollback()
    }
    expect((await ctx.knex('articles').where({ id: 1 }).first('rating')).rating).not.toBe(99)
  })
})
