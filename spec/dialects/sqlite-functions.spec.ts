// prepareSqliteConnection: with it, SQLite folds non-ASCII case like the other databases; without it, the router
// answers and logs what the host has to add, instead of a driver's "no such function".
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { seedTables } from '../../fixtures/seed'
import { createTables } from '../../fixtures/tables'
import { prepareSqliteConnection } from '../../lib'
import type { Logger } from '../../lib'
import { sqlite } from '../../lib/dialects/sqlite/sqlite'
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

    it('the check of a new router sends nothing through knex, so a rejected first request sends no SQL', async () => {
      const sql: string[] = []
      const listener = (query: { sql: string }): void => {
        sql.push(query.sql)
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

  describe('forgotten', () => {
    let knex: Knex
    beforeAll(async () => {
      knex = await sqliteKnex(false)
    })
    afterAll(() => knex.destroy())

    it('answers every request with what to add, logs it once, and leaves the host routes alone', async () => {
      const logger = messageLogger()
      const app = createApp(knex, { logger })
      const first = await request(app).get(ICONTAINS)
      const second = await request(app).get('/api/items/authors?fields=id')
      for (const response of [first, second]) {
        expect(response.status).toBe(500)
        expect(response.body.errors).toHaveLength(1)
        const [error] = response.body.errors as Array<{ message: string; extensions: { code: string } }>
        expect(error!.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' })
        expect(error!.message).toContain('prepareSqliteConnection(connection); done(null, connection)')
        expect(error!.message).toContain('pool: { afterCreate:')
        expect(error!.message).not.toMatch(/no such function/i)
      }
      expect(logger.messages).toHaveLength(1)
      expect(logger.messages[0]).toContain('prepareSqliteConnection(connection); done(null, connection)')
      expect((await request(app).get('/api/health')).body).toEqual({ ok: true })
    })

    it('answers the same on /versions', async () => {
      const response = await request(createApp(knex)).get('/api/versions')
      expect(response.status).toBe(500)
      expect(response.body.errors[0].message).toContain('prepareSqliteConnection')
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
