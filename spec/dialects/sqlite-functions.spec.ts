// prepareSqliteConnection: with it, SQLite folds non-ASCII case like the other databases. The router registers it
// on every connection of its knex's pool; the setup check still finds a connection that lacks it.
import { rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { seedTables } from '../../fixtures/seed'
import { createTables } from '../../fixtures/tables'
import { prepareSqliteConnection } from '../../lib'
import type { Logger } from '../../lib'
import { sqlite } from '../../lib/dialects/sqlite/sqlite'
import { isServerProbe } from '../support/server-probes'
import { MISSING_SQLITE_FUNCTIONS } from '../../lib/dialects/sqlite/sqlite-functions'
import { createApp } from '../support/app'
import { knexConfig, selectedDialects } from '../support/databases'

type Done = (error: Error | null, connection: unknown) => void

/** Keeps the messages logged as errors. */
function messageLogger(): Logger & { messages: string[] } {
  const messages: string[] = []
  return { messages, error: (message) => messages.push(message), warn: () => undefined }
}

/** The specs' SQLite configuration, with `afterCreate` replaced: foreign keys on, and the helper only if asked. */
async function sqliteKnex(prepared: boolean): Promise<Knex> {
  const knex = knexFactory({
    ...knexConfig('sqlite'),
    pool: {
      min: 1,
      max: 1,
      afterCreate: (connection: { pragma(source: string): unknown }, done: Done) => {
        connection.pragma('foreign_keys = ON')
        if (prepared) prepareSqliteConnection(connection)
        done(null, connection)
      },
    },
  })
  await createTables(knex)
  await seedTables(knex)
  return knex
}

const ICONTAINS = '/api/items/articles?filter[title][_icontains]=%C3%BCBER&fields=id&sort=id'

const describeSqlite = selectedDialects().includes('sqlite') ? describe : describe.skip

describeSqlite('sqlite: prepareSqliteConnection', () => {
  describe('registered in pool.afterCreate', () => {
    let knex: Knex
    beforeAll(async () => {
      knex = await sqliteKnex(true)
    })
    afterAll(() => knex.destroy())

    it('_icontains folds non-ASCII case ("üBER" finds "Über alles" and "über den Wolken")', async () => {
      const logger = messageLogger()
      const response = await request(createApp(knex, { logger })).get(ICONTAINS)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [{ id: 7 }, { id: 19 }] })
      expect(logger.messages).toEqual([])
    })

    it('the check of a new router sends nothing through knex, so a rejected first request sends no SQL of its own', async () => {
      const sql: string[] = []
      // The ready gate's one question about the server (which tables have triggers) is the router's, not the request's.
      const listener = (query: { sql: string }): void => {
        if (!isServerProbe(query.sql)) sql.push(query.sql)
      }
      knex.on('query', listener)
      try {
        const response = await request(createApp(knex)).get('/api/items/articles?fields=nope')
        expect(response.status).toBe(400)
      } finally {
        knex.off('query', listener)
      }
      expect(sql).toEqual([])
    })
  })

  describe('left to the router', () => {
    let knex: Knex
    beforeAll(async () => {
      knex = await sqliteKnex(false)
    })
    afterAll(() => knex.destroy())

    it('the setup check finds them missing on a connection nobody prepared', async () => {
      expect(await sqlite.checkSetup!(knex)).toBe(MISSING_SQLITE_FUNCTIONS)
    })

    it('registers them on the connections the pool holds already, before the first request', async () => {
      const logger = messageLogger()
      const response = await request(createApp(knex, { logger })).get(ICONTAINS)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [{ id: 7 }, { id: 19 }] })
      expect(logger.messages).toEqual([])
      expect(await sqlite.checkSetup!(knex)).toBeNull()
    })

    it('registers them on each connection the pool creates later', async () => {
      // A file, so that the pool's next connection opens the same database.
      const filename = join(tmpdir(), `items-sqlite-functions-${process.pid}-${Date.now()}.db`)
      const fresh = knexFactory({
        ...knexConfig('sqlite'),
        connection: { filename },
        pool: { min: 0, max: 1, idleTimeoutMillis: 50, reapIntervalMillis: 20 },
      })
      try {
        await createTables(fresh)
        await seedTables(fresh)
        const app = createApp(fresh)
        expect((await request(app).get(ICONTAINS)).body).toEqual({ data: [{ id: 7 }, { id: 19 }] })
        // The idle connection is destroyed; the next request runs on a new one.
        await new Promise((resolve) => setTimeout(resolve, 300))
        expect((fresh.client as { pool: { numFree(): number } }).pool.numFree()).toBe(0)
        expect((await request(app).get(ICONTAINS)).body).toEqual({ data: [{ id: 7 }, { id: 19 }] })
      } finally {
        await fresh.destroy()
        rmSync(filename, { force: true })
      }
    })
  })

  it('refuses anything but a better-sqlite3 connection', () => {
    expect(() => prepareSqliteConnection({ query: () => undefined })).toThrow(/better-sqlite3 Database/)
  })
})

describeSqlite('sqlite: case-insensitive matching of an ASCII term', () => {
  let knex: Knex
  beforeAll(async () => {
    knex = await sqliteKnex(true)
  })
  afterAll(() => knex.destroy())

  // The characters items_fold() turns into ASCII (U+0130, U+212A) or drops after an "i" (U+0307), beside plain text.
  const TEXTS = ['Kelvin', '\u212aelvin', 'D\u0130LEK', 'DI\u0307LEK', 'dilek', 'I\u0307X', 'ix', 'Über', 'plain', null]
  const TERMS = ['kel', 'KELVIN', 'dilek', 'ix', 'i', 'ber', 'x', 'zzz', '']

  it.each(TERMS)('finds the same rows as items_fold() on both sides for %j, negated too', async (term) => {
    const rows = TEXTS.map((text, index) => `select ${index} as id, ${text === null ? 'null' : `'${text}'`} as t`).join(' union all ')
    const ids = async (where: { sql: string; bindings: readonly unknown[] }): Promise<number[]> =>
      (
        (await knex.raw(`select id from (${rows}) where ${where.sql} order by id`, where.bindings as Knex.RawBinding[])) as { id: number }[]
      ).map((row) => row.id)
    for (const negate of [false, true]) {
      const spec = { insensitive: true, negate, anchor: 'contains' } as const
      const fast = sqlite.pattern('t', term, spec)
      const reference = { sql: `items_fold(??) ${negate ? 'NOT ' : ''}LIKE items_fold(?) ESCAPE '\\'`, bindings: ['t', `%${term}%`] }
      expect(await ids(fast)).toEqual(await ids(reference))
    }
  })
})
