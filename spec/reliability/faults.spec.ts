// Database faults through a TCP proxy the spec controls (PostgreSQL and MySQL): an unreachable database, a
// connection lost mid-transaction or before a lone write's answer, a silent partition and a full pool answer 503
// with Retry-After; a connection lost after commit still answers success; and the pool serves again once the
// database is back.
import type { Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { mysqlConfig, postgresConfig, type Timeouts } from '../../examples/knex-config'
import { createIdempotencyTable } from '../../lib'
import { knexConfig } from '../support/databases'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { serverAddress, TcpProxy } from '../support/tcp-proxy'

/** Short enough for a quick spec; the README gives production values. */
const TIMEOUTS: Timeouts = { connectMs: 500, acquireMs: 1_500, queryMs: 1_500, idleMs: 1_000 }
const POOL_SIZE = 4
/** How soon after the database is back a request must succeed again. */
const RECOVERY_MS = 3_000
/** knex logs each failed connection attempt; the faults here cause them on purpose. */
const QUIET = { log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined } }

function proxiedKnex(ctx: DialectContext, port: number): Knex {
  const direct = knexConfig(ctx.name).connection
  if (ctx.name === 'postgres') {
    const url = new URL((direct as { connectionString: string }).connectionString)
    url.host = `127.0.0.1:${port}`
    return knexFactory({ ...postgresConfig({ connectionString: url.toString() }, TIMEOUTS, POOL_SIZE), ...QUIET })
  }
  return knexFactory({
    ...mysqlConfig({ ...(direct as Knex.MySql2ConnectionConfig), host: '127.0.0.1', port }, TIMEOUTS, POOL_SIZE),
    ...QUIET,
  })
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

forEachDialect((ctx) => {
  if (ctx.name === 'sqlite') {
    it.skip('SQLite runs in-process: there is no connection to lose', () => undefined)
    return
  }
  let proxy: TcpProxy
  let proxied: Knex
  let app: Express

  beforeAll(async () => {
    proxy = await TcpProxy.start(serverAddress(ctx))
    proxied = proxiedKnex(ctx, proxy.port)
    await createIdempotencyTable(ctx.knex)
    app = createApp(proxied)
  })
  afterAll(async () => {
    await proxied.destroy()
    await proxy.close()
  })
  beforeEach(() => ctx.reset())
  afterEach(() => proxy.restore())

  /** Polls until a read succeeds; answers how long that took. */
  async function recovers(): Promise<number> {
    const started = Date.now()
    while (Date.now() - started < RECOVERY_MS * 2) {
      if ((await request(app).get('/api/items/authors?limit=1')).status === 200) return Date.now() - started
      await sleep(100)
    }
    return Infinity
  }

  const authorsNamed = (name: string): Promise<{ id: number }[]> => ctx.knex('authors').where({ name }).select('id')

  function expectUnavailable(response: request.Response): void {
    expect(response.status).toBe(503)
    expect(response.headers['retry-after']).toBe('1')
    expect(response.body.errors[0].extensions.code).toBe('SERVICE_UNAVAILABLE')
  }

  it('answers 503 with Retry-After while the database is unreachable, and serves again once it is back', async () => {
    proxy.cut()
    expectUnavailable(await request(app).get('/api/items/authors'))
    expectUnavailable(await request(app).post('/api/items/authors').send({ name: 'Unreachable' }))
    proxy.restore()
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
    expect(await authorsNamed('Unreachable')).toEqual([])
  })

  /** Runs `act` once, when the proxied knex sends the first statement that matches `sql`. */
  async function onStatement<T>(sql: RegExp, act: () => void, send: () => Promise<T>): Promise<T> {
    let armed = true
    const onQuery = (query: { sql?: string }): void => {
      if (armed && sql.test(query.sql ?? '')) {
        armed = false
        act()
      }
    }
    proxied.on('query', onQuery)
    try {
      return await send()
    } finally {
      proxied.off('query', onQuery)
    }
  }

  it('answers 503 when the connection is lost in the middle of a transaction, and writes nothing', async () => {
    // The author is checked before the INSERT, so the write is a transaction; the cut comes before its COMMIT.
    const response = await onStatement(
      /insert into/i,
      () => setImmediate(() => proxy.cut()),
      () => request(app).post('/api/items/articles').send({ title: 'Interrupted', author: 1 }),
    )
    expectUnavailable(response)
    proxy.restore()
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
    expect(await ctx.knex('articles').where({ title: 'Interrupted' }).select('id')).toEqual([])
  })

  it('answers 503 when the answer to a lone write is lost, although its one statement wrote', async () => {
    // One statement commits as it runs, as a COMMIT would: the database has the item, the router no answer.
    const response = await onStatement(
      /insert into/i,
      () => proxy.loseReplies(),
      async () => {
        // `then` sends it now: supertest sends a request only once it is awaited.
        const pending = request(app)
          .post('/api/items/authors')
          .send({ name: 'Unanswered' })
          .then((response) => response)
        const started = Date.now()
        while ((await authorsNamed('Unanswered')).length === 0 && Date.now() - started < RECOVERY_MS) await sleep(10)
        proxy.cut()
        return pending
      },
    )
    expectUnavailable(response)
    proxy.restore()
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
    expect(await authorsNamed('Unanswered')).toHaveLength(1)
  })

  it('answers 503 when all pooled connections stay busy past the acquire timeout', async () => {
    const held = await Promise.all(Array.from({ length: POOL_SIZE }, () => proxied.transaction()))
    try {
      expectUnavailable(await request(app).get('/api/items/authors'))
    } finally {
      await Promise.all(held.map((trx) => trx.rollback()))
    }
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
  })

  it('answers success with the keys when the connection is lost between commit and read-back', async () => {
    // The proxy cuts as the first statement after the write's is sent (its answer is in by then): the author's
    // key list, read for the answer after the write. The write is one statement, so it commits as it runs.
    let committed = false
    let cut = false
    const onQuery = (query: { sql?: string }): void => {
      if (committed && !cut) {
        cut = true
        proxy.cut()
      }
      committed ||= /insert into/i.test(query.sql ?? '')
    }
    proxied.on('query', onQuery)
    try {
      const response = await request(app).post('/api/items/authors').send({ name: 'Committed' })
      expect(cut).toBe(true)
      expect(response.status).toBe(200)
      const rows = await authorsNamed('Committed')
      expect(rows).toHaveLength(1)
      expect(response.body.data.id).toBe(rows[0]!.id)
    } finally {
      proxied.off('query', onQuery)
    }
    proxy.restore()
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
  })

  it('leaves exactly one item when a write whose COMMIT was cut is retried with its Idempotency-Key', async () => {
    const key = `commit-${ctx.name}-${Date.now()}`
    const post = (): request.Test => request(app).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Ambiguous' })
    const first = await onStatement(/^commit/i, () => setImmediate(() => proxy.cut()), post)
    // Whether the COMMIT landed is unknown to the router: it answers 503, or success if it saw the commit.
    expect([200, 503]).toContain(first.status)
    proxy.restore()
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
    const retry = await post()
    expect(retry.status).toBe(200)
    const rows = await authorsNamed('Ambiguous')
    expect(rows).toEqual([{ id: retry.body.data.id }])
  })

  // PostgreSQL's query_timeout ends a statement sent into a silent partition (503). mysql2 has no such
  // timeout, so on MySQL the router's own statementTimeout ends it.
  it('answers within the statement timeout in a silent partition, and recovers after it', async () => {
    const timed = createApp(proxied, { statementTimeout: TIMEOUTS.queryMs })
    expect((await request(timed).get('/api/items/authors?limit=1')).status).toBe(200)
    proxy.blackhole()
    const started = Date.now()
    const response = await request(timed).get('/api/items/authors')
    if (ctx.name === 'postgres') expectUnavailable(response)
    // The timeout cancels the statement over a second connection, which the partition swallows too: that
    // connection's failure (503) may come first; either answer is explicit and bounded.
    else expect([503, 504]).toContain(response.status)
    expect(Date.now() - started).toBeLessThan(TIMEOUTS.queryMs + TIMEOUTS.connectMs + 1_000)
    proxy.restore()
    expect(await recovers()).toBeLessThan(RECOVERY_MS)
  })
})
