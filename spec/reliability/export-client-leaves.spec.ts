// A client that leaves while its export is inside a chunk's statement is no failure: nothing is logged, and the
// statement is cancelled with the request, so its connection comes back to the pool. The statement is
// held inside the database by a lock another connection takes on the table (SQLite runs a statement to its end
// before any other work, so there the client leaves between chunks).
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import http from 'node:http'
import { collections } from '../../fixtures/schema'
import { createItemsRouter } from '../../lib'
import { recordingLogger } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'
import { createLargeRows, largeRows, serveOnSocket, stalledClient } from '../support/stalled-export'

const TABLE = 'export_leavers'
const ROWS = 40
/** One row per chunk (maxLoadedRows: 1), so that every chunk is a statement of its own. */
const EXPORT = `/api/items/${TABLE}?fields=id,body&limit=-1&export=csv`

const leavers = { [TABLE]: largeRows } as const

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The status of a plain GET over the socket, or 0 when none came within `ms`. */
function statusOf(path: string, url: string, ms: number): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ socketPath: path, path: url }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.setTimeout(ms, () => {
      req.destroy()
      resolve(0)
    })
    req.on('error', () => resolve(0))
  })
}

/**
 * Holds a lock on the table that stops other connections' reads of it, from a connection of `knex`'s own, until
 * the returned release is called.
 */
async function lockTable(knex: Knex, dialect: string): Promise<() => Promise<void>> {
  let release!: () => void
  const released = new Promise<void>((resolve) => (release = resolve))
  let locked!: () => void
  const held = new Promise<void>((resolve) => (locked = resolve))
  const transaction = knex.transaction(async (trx) => {
    await trx.raw(dialect === 'postgres' ? `lock table ${TABLE} in access exclusive mode` : `lock tables ${TABLE} write`)
    locked()
    await released
    if (dialect === 'mysql') await trx.raw('unlock tables')
  })
  await held
  return async () => {
    release()
    await transaction
  }
}

/** The router's statements on the table the server is running now. */
async function running(knex: Knex, dialect: string): Promise<number> {
  const pattern = `/* items-router%${TABLE}%`
  if (dialect === 'postgres') {
    const { rows } = (await knex.raw("select count(*) as n from pg_stat_activity where state = 'active' and query like ?", [pattern])) as {
      rows: { n: string }[]
    }
    return Number(rows[0]!.n)
  }
  if (dialect === 'mysql') {
    const [rows] = (await knex.raw('select count(*) as n from information_schema.processlist where info like ?', [pattern])) as [
      { n: number }[],
    ]
    return Number(rows[0]!.n)
  }
  return 0
}

/** The router's statements on the table still running once none is, or `ms` have passed. */
async function runningWithin(knex: Knex, dialect: string, ms: number): Promise<number> {
  const until = Date.now() + ms
  let count = await running(knex, dialect)
  while (count > 0 && Date.now() < until) {
    await sleep(50)
    count = await running(knex, dialect)
  }
  return count
}

forEachDialect((ctx) => {
  describe('an export whose client leaves mid-statement', () => {
    /**
     * The router's own pool of two connections (SQLite's has one): one for the export, one for the cancellation
     * of its statement, which runs on a pooled connection.
     */
    let single: Knex
    let own: Knex | undefined

    beforeAll(async () => {
      own = ctx.name === 'sqlite' ? undefined : knexFactory({ ...knexConfig(ctx.name), pool: { min: 0, max: 2 } })
      single = own ?? ctx.knex
      await ctx.reset()
      await createLargeRows(ctx.knex, TABLE, ROWS)
    })

    afterAll(async () => {
      await own?.destroy()
      await ctx.knex.schema.dropTableIfExists(TABLE)
    })

    it('logs nothing and gives the connection back at once', async () => {
      const logger = recordingLogger()
      const app = express()
      app.use(
        '/api',
        createItemsRouter({ knex: single, collections: { ...collections, ...leavers }, logger, defaultAccess: true, maxLoadedRows: 1 }),
      )
      const { path, close } = await serveOnSocket(app)
      let unlock: (() => Promise<void>) | undefined
      try {
        const { socket: client } = await stalledClient(path, EXPORT)
        // The server fills the socket's buffers, then waits for the client to take some.
        await sleep(500)
        if (ctx.name !== 'sqlite') unlock = await lockTable(ctx.knex, ctx.name)
        // The next chunk's statement, once the client takes some bytes: it waits for the lock.
        const nextChunk = new Promise<void>((resolve) => {
          const listener = ({ sql }: { sql: string }): void => {
            if (!sql.includes(TABLE)) return
            single.off('query', listener)
            resolve()
          }
          single.on('query', listener)
        })
        client.resume()
        await nextChunk
        await sleep(100)
        client.destroy()
        // The lock still stands: the export's statement ends only because it is cancelled with its request.
        expect(await runningWithin(ctx.knex, ctx.name, 5000)).toBe(0)
        // Its connection is back: the pool's other one is free again for this read, and so is the first.
        expect(await statusOf(path, '/api/items/authors?limit=1&fields=id', 5000)).toBe(200)
        await sleep(200)
        expect(logger.errors).toEqual([])
      } finally {
        await unlock?.()
        await close()
      }
    }, 30_000)
  })
})
