// Pins each assumption lib/knex-adapter.ts makes of knex's private API, on every database: a knex release that
// changes one fails here. The peer range of knex in package.json is the range this spec passes on.
import knexFactory, { type Knex } from 'knex'
import {
  acquireConnection,
  canCancelQuery,
  cancelQuery,
  changeCompiled,
  clientName,
  clientOfBuilder,
  clientQuery,
  disposeConnection,
  emitQueryResponse,
  isTransactionClient,
  postProcessesResponses,
  prepareEachConnection,
  processResponse,
  releaseConnection,
  watchAcquisitions,
  fillConnectionDefaults,
  checkEachConnection,
  withConnection,
  wrapDriverCall,
  type ClientQuery,
} from '../lib/knex-adapter'
import { knexConfig } from './support/databases'
import { forEachDialect } from './support/dialects'

const CLIENT_NAMES = { sqlite: 'better-sqlite3', postgres: 'pg', mysql: 'mysql2' } as const

/** A raw statement as knex's runner hands it to the client. */
const raw = (sql: string, bindings: unknown[] = []): ClientQuery => ({ method: 'raw', sql, bindings, options: {} })

/** A fresh knex on the spec database, for assumptions that change or dispose of its connections. */
function freshKnex(name: keyof typeof CLIENT_NAMES, extra: Partial<Knex.Config> = {}): Knex {
  return knexFactory({ ...knexConfig(name), ...extra })
}

forEachDialect((ctx) => {
  describe('knex adapter', () => {
    it('names the client as its configuration does', () => {
      expect(clientName(ctx.knex)).toBe(CLIENT_NAMES[ctx.name])
    })

    it('lends a pooled connection marked with its id, and takes it back', async () => {
      const connection = await acquireConnection(ctx.knex)
      try {
        expect(typeof connection.__knexUid).toBe('string')
      } finally {
        await releaseConnection(ctx.knex, connection)
      }
      const seen = await withConnection(ctx.knex, async (again) => again.__knexUid)
      expect(typeof seen).toBe('string')
    })

    it('runs a statement through the client: knex`s query event fires, and processResponse reads it as knex.raw would', async () => {
      const events: string[] = []
      const listener = (query: { sql: string }): void => void events.push(query.sql)
      ctx.knex.on('query', listener)
      try {
        // A statement's final text: knex.raw would turn `?` into PostgreSQL's `$1` before the client sees it.
        const sql = 'select 1 as one'
        const answered = await withConnection(ctx.knex, async (connection) =>
          processResponse(ctx.knex, await clientQuery(ctx.knex, connection, raw(sql))),
        )
        expect(JSON.stringify(answered)).toBe(JSON.stringify(await ctx.knex.raw(sql)))
        expect(events.filter((statement) => statement === sql)).toHaveLength(2)
      } finally {
        ctx.knex.off('query', listener)
      }
    })

    it('reads a compiled select by its method, as awaiting the builder would', async () => {
      const builder = ctx.knex('articles').select('id').orderBy('id').limit(2)
      const compiled = builder.toSQL() as unknown as ClientQuery
      const rows = await withConnection(ctx.knex, async (connection) =>
        processResponse(ctx.knex, await clientQuery(ctx.knex, connection, { ...compiled, bindings: [...compiled.bindings], options: {} })),
      )
      expect(rows).toEqual(await ctx.knex('articles').select('id').orderBy('id').limit(2))
    })

    it('fires query-response with the connection`s ids', async () => {
      const seen: unknown[] = []
      const listener = (_response: unknown, query: { __knexUid?: unknown; sql: string }): void => void seen.push(query.__knexUid)
      ctx.knex.on('query-response', listener)
      try {
        await withConnection(ctx.knex, async (connection) => {
          emitQueryResponse(ctx.knex, [], connection, raw('select 1'))
          expect(seen).toEqual([connection.__knexUid])
        })
      } finally {
        ctx.knex.off('query-response', listener)
      }
    })

    it('tells a transaction`s client, and a builder`s client, from the instance`s', async () => {
      expect(isTransactionClient(ctx.knex.client)).toBe(false)
      expect(clientOfBuilder(ctx.knex('articles'))).toBe(ctx.knex.client)
      await ctx.knex.transaction(async (trx) => {
        expect(isTransactionClient(trx.client)).toBe(true)
        expect(isTransactionClient(clientOfBuilder(trx('articles')))).toBe(true)
      })
    })

    it('sees the host`s postProcessResponse', async () => {
      expect(postProcessesResponses(ctx.knex)).toBe(false)
      const processed = freshKnex(ctx.name, { postProcessResponse: (result: unknown) => result })
      try {
        expect(postProcessesResponses(processed)).toBe(true)
      } finally {
        await processed.destroy()
      }
    })

    it('runs the statements of the client through a wrapped driver call; a knex transaction`s client is its own', async () => {
      const knex = freshKnex(ctx.name)
      try {
        const seen: string[] = []
        wrapDriverCall(knex, (knexCall) => (connection, query) => {
          seen.push(query.sql)
          return knexCall(connection, query)
        })
        await knex.raw('select 1 as wrapped')
        await knex.transaction((trx) => trx.raw('select 2 as wrapped'))
        expect(seen.filter((sql) => sql.includes('wrapped'))).toEqual(['select 1 as wrapped'])
      } finally {
        await knex.destroy()
      }
    })

    it('prepares the connections the pool holds and each one it creates later, once each', async () => {
      const knex = freshKnex(ctx.name, { pool: { min: 0, max: 2, idleTimeoutMillis: 50, reapIntervalMillis: 20 } })
      try {
        await knex.raw('select 1')
        const prepared: object[] = []
        expect(prepareEachConnection(knex, (connection) => void prepared.push(connection))).toBe(true)
        expect(prepareEachConnection(knex, () => prepared.push({}))).toBe(true)
        expect(prepared).toHaveLength(1)
        const [first] = prepared
        // Two at once need a second connection.
        await Promise.all([knex.raw('select 1'), knex.raw('select 2')].map((query) => query.then()))
        await withConnection(knex, async (a) => withConnection(knex, async (b) => expect([a, b]).toContain(first)))
        expect(prepared.length).toBe(2)
        expect(new Set(prepared).size).toBe(2)
      } finally {
        await knex.destroy()
      }
    })

    it('takes a waiting acquisition out of the pool`s queue, and the connection goes to the next one', async () => {
      const knex = freshKnex(ctx.name, { pool: { min: 0, max: 1 }, log: { warn: () => undefined } })
      try {
        const leaves: ((reason: unknown) => void)[] = []
        expect(watchAcquisitions(knex, (leave) => void leaves.push(leave))).toBe(true)
        expect(watchAcquisitions(knex, () => undefined)).toBe(true)
        const held = await acquireConnection(knex)
        const waiting = acquireConnection(knex)
        const next = acquireConnection(knex)
        expect(leaves).toHaveLength(3)
        // The one holding its connection is left alone; the waiting one leaves with the reason.
        leaves[0]!(new Error('not this one'))
        leaves[1]!(new Error('left the queue'))
        await expect(waiting).rejects.toThrow('left the queue')
        await releaseConnection(knex, held)
        const given = await next
        expect(given).toBe(held)
        await releaseConnection(knex, given)
      } finally {
        await knex.destroy()
      }
    })

    it('adds connection settings the host left out to the connections opened afterwards, keeping its own', async () => {
      if (ctx.name === 'sqlite') return
      const knex = freshKnex(ctx.name)
      try {
        // pg hands keep-alive settings to its socket's Connection; mysql2 keeps its options under `config`. The
        // spec's settings set a connect timeout (3000) themselves, which stays.
        const added =
          ctx.name === 'postgres'
            ? { keepAliveInitialDelayMillis: 1234, connectionTimeoutMillis: 1 }
            : { keepAliveInitialDelay: 1234, connectTimeout: 1 }
        expect(fillConnectionDefaults(knex, added)).toBe(true)
        await withConnection(knex, async (connection) => {
          const read = connection as unknown as {
            _connectionTimeoutMillis?: unknown
            connection?: { _keepAliveInitialDelayMillis?: unknown }
            config?: Record<string, unknown>
          }
          if (ctx.name === 'postgres')
            expect([read.connection?._keepAliveInitialDelayMillis, read._connectionTimeoutMillis]).toEqual([1234, 3000])
          else expect(read.config).toMatchObject({ keepAliveInitialDelay: 1234, connectTimeout: 3000 })
        })
        // knex parses a connection string into settings; a function it calls for each connection has none to add to.
        const provided = freshKnex(ctx.name, { connection: () => knexConfig(ctx.name).connection as Knex.StaticConnectionConfig })
        expect(fillConnectionDefaults(provided, added)).toBe(false)
        await provided.destroy()
      } finally {
        await knex.destroy()
      }
    })

    it('destroys a connection the added check refuses, and lends another', async () => {
      const knex = freshKnex(ctx.name, { pool: { min: 0, max: 1 } })
      try {
        const refused = new Set<object>()
        checkEachConnection(knex, (connection) => !refused.has(connection))
        const first = await acquireConnection(knex)
        await releaseConnection(knex, first)
        refused.add(first)
        const second = await acquireConnection(knex)
        expect(second).not.toBe(first)
        await releaseConnection(knex, second)
      } finally {
        await knex.destroy()
      }
    })

    it('marks a connection for the pool to destroy instead of lending it again', async () => {
      const knex = freshKnex(ctx.name, { pool: { min: 0, max: 1 } })
      try {
        const first = await acquireConnection(knex)
        disposeConnection(first, new Error('disposed by the spec'))
        await releaseConnection(knex, first)
        const second = await acquireConnection(knex)
        expect(second).not.toBe(first)
        await releaseConnection(knex, second)
      } finally {
        await knex.destroy()
      }
    })

    it('changes what a builder compiles to, and knex runs the changed text', async () => {
      const events: string[] = []
      const listener = (query: { sql: string }): void => void events.push(query.sql)
      ctx.knex.on('query', listener)
      try {
        const builder = changeCompiled(ctx.knex('articles').select('id').where('id', 1), (compiled) => {
          compiled.sql = `/* changed */ ${compiled.sql}`
        })
        expect(await builder).toEqual([{ id: 1 }])
        expect(events.some((sql) => sql.startsWith('/* changed */ '))).toBe(true)
      } finally {
        ctx.knex.off('query', listener)
      }
    })

    const sleep = { sqlite: null, postgres: 'select pg_sleep(5)', mysql: 'select sleep(5)' }[ctx.name]
    ;(sleep === null ? it.skip : it)('cancels a running statement from another connection where the client can', async () => {
      expect(canCancelQuery(ctx.knex)).toBe(true)
      const started = Date.now()
      await withConnection(ctx.knex, async (connection) => {
        const running = clientQuery(ctx.knex, connection, raw(sleep!)).then(
          () => 'finished',
          () => 'cancelled',
        )
        await new Promise((resolve) => setTimeout(resolve, 300))
        await cancelQuery(ctx.knex, connection)
        // MySQL's KILL QUERY makes SLEEP() return 1 early instead of failing.
        expect(['finished', 'cancelled']).toContain(await running)
      })
      expect(Date.now() - started).toBeLessThan(4_500)
    })

    ;(ctx.name === 'sqlite' ? it : it.skip)(
      'cannot cancel on better-sqlite3, whose statements run to the end on the calling thread',
      () => {
        expect(canCancelQuery(ctx.knex)).toBe(false)
      },
    )
  })
})
