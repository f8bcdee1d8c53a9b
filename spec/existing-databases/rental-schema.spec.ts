// readCollections over a store's schema ported by hand to each database: enums in mixed case, knex's enums,
// triggers that write columns, a PostgreSQL table split by DO INSTEAD rules and a NOT NULL column the router leaves
// out, served and checked against plain SQL on the same database.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createItemsRouter, describeDatabase, readCollections } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError, expectInvalidQuery } from '../support/expect-error'
import { closeRentalDatabase, openRentalDatabase } from './rental-database'
import { FORMATS, RATINGS } from './rental-schema'

type Row = Record<string, unknown>

forEachDialect((ctx) => {
  describe(`${ctx.name}: a store's schema ported by hand`, () => {
    let knex: Knex
    let app: Express

    beforeAll(async () => {
      knex = await openRentalDatabase(ctx.name, ctx.knex)
      const collections = await readCollections(knex, { logger: { warn: () => undefined } })
      app = express()
      app.use('/api', createItemsRouter({ knex, collections, logger: recordingLogger(), defaultAccess: true }))
    })
    afterAll(() => closeRentalDatabase(ctx.name, knex))

    const filmIds = async (where: (qb: Knex.QueryBuilder) => void): Promise<number[]> =>
      (await knex('film').select('film_id').modify(where).orderBy('film_id')).map((row: Row) => Number(row.film_id))
    const dataOf = (response: request.Response): Row => {
      expect(response.status).toBe(200)
      return (response.body as { data: Row }).data
    }

    describe('enums', () => {
      it('reads enum values as the database stores them, in mixed case, and knex-made enums as enums', async () => {
        const { collections } = await describeDatabase(knex)
        expect(collections.film!.fields.rating).toMatchObject({ enum: [...RATINGS], default: 'G' })
        expect(collections.film_format!.fields.kind).toMatchObject({ enum: [...FORMATS], nullable: false })
      })

      it('filters by a stored value as plain SQL does', async () => {
        const response = await request(app)
          .get('/api/items/film')
          .query({ 'filter[rating][_in]': 'PG-13,NC-17', fields: 'film_id', sort: 'film_id' })
        expect(response.status).toBe(200)
        const expected = await filmIds((qb) => qb.whereIn('rating', ['PG-13', 'NC-17']))
        expect((response.body as { data: Row[] }).data.map((row) => Number(row.film_id))).toEqual(expected)
        expect(expected).toHaveLength(3)
        const refused = await ctx.countQueries(async () => request(app).get('/api/items/film').query({ 'filter[rating][_eq]': 'pg-13' }))
        expectInvalidQuery(refused.result, refused.count, ['pg-13', 'PG-13'])
      })

      it('writes a stored value, and refuses another before SQL', async () => {
        const created = dataOf(await request(app).post('/api/items/film').send({ title: 'Airport Pollock', rating: 'NC-17' }))
        expect(created.rating).toBe('NC-17')
        expect(
          (
            await knex('film')
              .where('film_id', created.film_id as number)
              .first()
          ).rating,
        ).toBe('NC-17')
        const counted = await ctx.countQueries(async () =>
          request(app).post('/api/items/film_format').send({ name: 'tv', kind: 'Documentary' }),
        )
        expect(expectError(counted.result, 400, 'FAILED_VALIDATION').extensions.field).toBe('kind')
        expect(counted.count).toBe(0)
        const made = dataOf(await request(app).post('/api/items/film_format').send({ name: 'tv', kind: 'TV-Movie' }))
        expect(made).toMatchObject({ kind: 'TV-Movie' })
      })
    })

    describe('columns written by triggers', () => {
      const read = async (id: unknown): Promise<Row> => dataOf(await request(app).get(`/api/items/film/${String(id)}`))

      it('a create answers what the triggers wrote, as the next read does', async () => {
        const created = dataOf(
          await request(app).post('/api/items/film').send({ title: 'Alamo Videotape', last_update: '2000-01-01T00:00:00Z' }),
        )
        expect(created.sort_title).toBe('alamo videotape')
        expect(created).toEqual(await read(created.film_id))
        expect(String(created.last_update)).not.toMatch(/^2000/)
        const row = (await knex('film')
          .where('film_id', created.film_id as number)
          .first()) as Row
        expect(row.sort_title).toBe('alamo videotape')
      })

      it('a batch create answers what the triggers wrote for each item', async () => {
        const response = await request(app)
          .post('/api/items/film')
          .send([{ title: 'Alaska Phantom' }, { title: 'Ali Forever' }])
        expect(response.status).toBe(200)
        const created = (response.body as { data: Row[] }).data
        expect(created.map((film) => film.sort_title)).toEqual(['alaska phantom', 'ali forever'])
        for (const film of created) expect(film).toEqual(await read(film.film_id))
      })

      it('an update answers what the triggers wrote, as the next read does', async () => {
        const [id] = await filmIds((qb) => qb.where('title', 'Ace Goldfinger'))
        const updated = dataOf(await request(app).patch(`/api/items/film/${id}`).send({ title: 'Ace Goldfinger II' }))
        expect(updated.sort_title).toBe('ace goldfinger ii')
        expect(updated).toEqual(await read(id))
      })
    })

    describe('a table whose INSERT is rewritten by rules (PostgreSQL; a plain table elsewhere)', () => {
      it('creates an item and answers it, read back by its key', async () => {
        const created = dataOf(await request(app).post('/api/items/payment').send({ amount: '4.99', payment_date: '2007-03-01T10:00:00' }))
        expect(created).toMatchObject({ amount: '4.99', payment_date: '2007-03-01T10:00:00' })
        const row = (await knex('payment')
          .where('payment_id', created.payment_id as number)
          .first()) as Row
        expect(String(row.amount)).toBe('4.99')
        if (ctx.name === 'postgres') {
          // The rule sent the row to its child: the parent itself holds none of 2007.
          const [{ count }] = (await knex.raw("select count(*)::int as count from only payment where payment_date >= '2007-01-01'"))
            .rows as [{ count: number }]
          expect(count).toBe(0)
        }
      })

      it('creates several items at once, each answered under its own key', async () => {
        const response = await request(app)
          .post('/api/items/payment')
          .send([
            { amount: '1.99', payment_date: '2007-04-01T10:00:00' },
            { amount: '5.99', payment_date: '2006-04-01T10:00:00' },
          ])
        expect(response.status).toBe(200)
        const created = (response.body as { data: Row[] }).data
        expect(created.map((payment) => payment.amount)).toEqual(['1.99', '5.99'])
        const rows = (await knex('payment')
          .whereIn(
            'payment_id',
            created.map((payment) => payment.payment_id as number),
          )
          .orderBy('payment_id')) as Row[]
        expect(rows.map((row) => String(row.amount))).toEqual(['1.99', '5.99'])
      })
    })

    describe('column types', () => {
      it('reads YEAR (on PostgreSQL a domain over integer) as an integer, filtered and written as plain SQL stores it', async () => {
        const { collections } = await describeDatabase(knex)
        expect(collections.film!.fields.release_year).toEqual({ type: 'integer' })
        const response = await request(app)
          .get('/api/items/film')
          .query({ 'filter[release_year][_gte]': '2006', fields: 'film_id,release_year', sort: 'film_id' })
        expect(response.status).toBe(200)
        const expected = (await knex('film')
          .select('film_id', 'release_year')
          .where('release_year', '>=', 2006)
          .orderBy('film_id')) as Row[]
        expect((response.body as { data: Row[] }).data).toEqual(
          expected.map((row) => ({ film_id: Number(row.film_id), release_year: Number(row.release_year) })),
        )
        const created = dataOf(await request(app).post('/api/items/film').send({ title: 'Alley Evolution', release_year: 2011 }))
        expect(created.release_year).toBe(2011)
        expect(
          Number(
            (
              await knex('film')
                .where('film_id', created.film_id as number)
                .first()
            ).release_year,
          ),
        ).toBe(2011)
      })

      it('leaves out the types it does not serve, each with a reason that says what to do', async () => {
        const { skipped } = await describeDatabase(knex, { viewKeys: { film_list: 'film_id' } })
        const reasonOf = (table: string, column: string): string | undefined =>
          skipped.find((entry) => entry.table === table && entry.column === column)?.reason
        // Bytes are served now, as base64 (binary-columns.spec.ts).
        expect(reasonOf('film', 'picture')).toBeUndefined()
        const { collections } = await describeDatabase(knex)
        expect(collections.film!.fields.picture).toMatchObject({ type: 'binary' })
        if (ctx.name === 'postgres') {
          expect(reasonOf('film', 'fulltext')).toMatch(
            /^type tsvector has no field type: .*full-text.*search the text columns .*`<column>::text`.*every create on film fails unless a trigger fills it/,
          )
        }
        // A SET is served now, as an array of its values (set-columns.spec.ts).
        if (ctx.name === 'mysql') expect(reasonOf('film', 'special_features')).toBeUndefined()
        if (ctx.name === 'sqlite')
          expect(reasonOf('film_list', 'shout')).toMatch(/declared without a type .*give the field its type in `overrides`/)
        expect(reasonOf('staff', 'shift')).toMatch(/has no field type: leave it out .*or serve a view that casts it/)
      })
    })

    describe('a NOT NULL column the router leaves out', () => {
      it('is reported at start: every create on its table would fail', async () => {
        const warnings: string[] = []
        await readCollections(knex, { logger: { warn: (message) => warnings.push(message) } })
        const { skipped } = await describeDatabase(knex)
        const shift = skipped.find((entry) => entry.table === 'staff' && entry.column === 'shift')
        expect(shift?.reason).toMatch(
          /has no field type.*NOT NULL without a default: every create on staff fails unless a trigger fills it/,
        )
        expect(warnings).toEqual(
          expect.arrayContaining([expect.stringMatching(/^readCollections: staff\.shift: .*every create on staff fails/)]),
        )
      })

      it('left out by overrides is reported too', async () => {
        const { skipped } = await describeDatabase(knex, { overrides: { film: { fields: { title: false, sort_title: false } } } })
        expect(skipped.filter((entry) => entry.table === 'film' && !/has no field type/.test(entry.reason))).toEqual([
          {
            table: 'film',
            column: 'title',
            reason: expect.stringMatching(/^left out by overrides, but NOT NULL without a default: every create on film fails/) as string,
          },
        ])
      })
    })
  })
})
