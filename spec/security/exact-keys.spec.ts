// String primary keys compare exactly on every database, whatever the key column's collation: with only "a"
// stored, "A", "a " and "á" name no item for reads, updates, deletes and If-Match alike, and nothing is written.
// MySQL's usual collations fold case and accents, and its PAD SPACE ones ignore trailing spaces.
import type { Express } from 'express'
import request from 'supertest'
import type { DialectName } from '../../lib/dialects'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'

const TABLE = 'skeys'
const STORED = 'a'
/** Keys that equal "a" under some collation, never exactly. */
const OTHERS = ['A', 'a ', 'á', 'Á ']

/** The key column's collations to try: the database's default (null), and on MySQL a PAD SPACE binary one too. */
const COLLATIONS: Readonly<Record<DialectName, readonly (string | null)[]>> = {
  sqlite: [null],
  postgres: [null],
  mysql: ['utf8mb4_general_ci', 'utf8mb4_unicode_ci', 'utf8mb4_bin'],
}

const collections = {
  skeys: {
    fields: {
      code: { type: 'string', primaryKey: true, maxLength: 20 },
      label: { type: 'string', maxLength: 50 },
    },
  },
} as const

forEachDialect((ctx) => {
  describe.each(COLLATIONS[ctx.name].map((collation) => [collation ?? 'default'] as const))('a key column of %s collation', (collation) => {
    let app: Express
    beforeAll(async () => {
      await ctx.knex.schema.dropTableIfExists(TABLE)
      await ctx.knex.schema.createTable(TABLE, (table) => {
        const code = table.string('code', 20).primary()
        if (collation !== 'default') code.collate(collation)
        table.string('label', 50)
      })
      app = createApp(ctx.knex, { collections })
    })
    beforeEach(async () => {
      await ctx.knex(TABLE).delete()
      await ctx.knex(TABLE).insert({ code: STORED, label: 'original' })
    })
    afterAll(() => ctx.knex.schema.dropTableIfExists(TABLE))

    const rows = (): Promise<unknown[]> => ctx.knex(TABLE).select('code', 'label')
    const path = (key: string): string => `/api/items/${TABLE}/${encodeURIComponent(key)}`

    it('finds, updates and deletes "a" by its own key', async () => {
      expect((await request(app).get(path(STORED))).body).toEqual({ data: { code: STORED, label: 'original' } })
      expect((await request(app).patch(path(STORED)).send({ label: 'changed' })).body).toEqual({ data: { code: STORED, label: 'changed' } })
      expect((await request(app).delete(path(STORED))).status).toBe(204)
      expect(await rows()).toEqual([])
    })

    describe.each(OTHERS.map((key) => [JSON.stringify(key), key]))('with only "a" stored, the key %s', (_label, key) => {
      afterEach(async () => {
        expect(await rows()).toEqual([{ code: STORED, label: 'original' }])
      })

      it('names no item to read', async () => {
        expectError(await request(app).get(path(key)), 404, 'NOT_FOUND')
        const filter = encodeURIComponent(JSON.stringify({ code: { _eq: key } }))
        expect((await request(app).get(`/api/items/${TABLE}?filter=${filter}`)).body).toEqual({ data: [] })
      })

      it.each([
        ['PATCH /items/:c/:id', () => request(app).patch(path(key)).send({ label: 'changed' })],
        ['PATCH /items/:c/:id with If-Match: *', () => request(app).patch(path(key)).set('If-Match', '*').send({ label: 'changed' })],
        [
          'PATCH { keys }',
          () =>
            request(app)
              .patch(`/api/items/${TABLE}`)
              .send({ keys: [key], data: { label: 'changed' } }),
        ],
        [
          'PATCH [items]',
          () =>
            request(app)
              .patch(`/api/items/${TABLE}`)
              .send([{ code: key, label: 'changed' }]),
        ],
        ['DELETE /items/:c/:id', () => request(app).delete(path(key))],
        [
          'DELETE { keys }',
          () =>
            request(app)
              .delete(`/api/items/${TABLE}`)
              .send({ keys: [key] }),
        ],
      ])('names no item to write: %s is a 404 and changes nothing', async (_route, send) => {
        expectError(await send(), 404, 'NOT_FOUND')
      })
    })
  })
})
