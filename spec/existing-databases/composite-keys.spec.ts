// readCollections over tables keyed by several columns (keyed-schema.ts): a junction keyed by its two foreign keys
// served as a many-to-many like any other, a table keyed by two text columns, and a composite foreign key left out
// and reported; every answer checked against plain SQL on the same database.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createItemsRouter, describeDatabase } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { closeKeyedDatabase, openKeyedDatabase } from './keyed-schema'

type Row = Record<string, unknown>

const numbers = (row: Row): Row =>
  Object.fromEntries(Object.entries(row).map(([name, value]) => [name, /_id$/.test(name) ? Number(value) : value]))

forEachDialect((ctx) => {
  describe(`${ctx.name}: composite primary keys`, () => {
    let knex: Knex
    let app: Express

    beforeAll(async () => {
      knex = await openKeyedDatabase(ctx.name, ctx.knex)
      const { collections } = await describeDatabase(knex)
      app = express()
      app.use('/api', createItemsRouter({ knex, collections, logger: recordingLogger(), defaultAccess: true }))
    })
    afterAll(() => closeKeyedDatabase(ctx.name, knex))

    const list = async (collection: string, query: Record<string, unknown>): Promise<Row[]> => {
      const response = await request(app).get(`/api/items/${collection}`).query(query)
      expect(response.body).toHaveProperty('data')
      expect(response.status).toBe(200)
      return (response.body as { data: Row[] }).data
    }
    const credits = async (where: (qb: Knex.QueryBuilder) => void = () => undefined): Promise<Row[]> =>
      ((await knex('film_actor').select('actor_id', 'film_id', 'credited_as').modify(where)) as Row[]).map(numbers)

    describe('readCollections', () => {
      it('reads a composite key as several primaryKey fields, in key order, and the junction keeps its relations', async () => {
        const { collections, skipped } = await describeDatabase(knex)
        expect(collections.film_actor!.fields).toMatchObject({
          actor_id: { type: 'integer', primaryKey: true, references: 'actor' },
          film_id: { type: 'integer', primaryKey: true, references: 'film' },
          credited_as: { type: 'string' },
        })
        expect(Object.keys(collections.film_actor!.fields).slice(0, 2)).toEqual(['actor_id', 'film_id'])
        expect(collections.film_actor!.fields.actor_id).not.toHaveProperty('autoIncrement')
        expect(collections.page!.fields).toMatchObject({ lang: { primaryKey: true }, slug: { primaryKey: true } })
        expect(collections.film!.fields.film_actor).toEqual({ type: 'o2m', collection: 'film_actor', foreignKey: 'film_id' })
        expect(collections.actor!.fields.film_actor).toEqual({ type: 'o2m', collection: 'film_actor', foreignKey: 'actor_id' })
        expect(skipped.filter((entry) => entry.table !== 'sqlite_sequence')).toEqual([
          { table: 'film_note', column: 'actor_id, film_id', reason: 'composite foreign key to film_actor: not a relation' },
        ])
      })
    })

    describe('lists', () => {
      it('orders by every key field when the sort names none, as ORDER BY on the key does', async () => {
        expect(await list('film_actor', {})).toEqual(await credits((qb) => qb.orderBy(['actor_id', 'film_id'])))
        expect((await list('page', { fields: 'lang,slug' })).map((row) => `${String(row.lang)}/${String(row.slug)}`)).toEqual(
          ((await knex('page').select('lang', 'slug').orderBy(['lang', 'slug'])) as Row[]).map(
            (row) => `${String(row.lang)}/${String(row.slug)}`,
          ),
        )
      })

      it('filters, sorts and counts as plain SQL does', async () => {
        const data = await list('film_actor', {
          'filter[film_id][_in]': '1,3',
          sort: '-actor_id',
          meta: 'total_count,filter_count',
          fields: 'actor_id,film_id,credited_as',
        })
        expect(data).toEqual(
          await credits((qb) => qb.whereIn('film_id', [1, 3]).orderBy([{ column: 'actor_id', order: 'desc' }, 'film_id'])),
        )
        const response = await request(app).get('/api/items/film_actor').query({ 'filter[film_id][_in]': '1,3', meta: '*' })
        const [{ count }] = (await knex('film_actor').whereIn('film_id', [1, 3]).count({ count: '*' })) as [{ count: unknown }]
        expect(response.body.meta).toEqual({ total_count: 7, filter_count: Number(count) })
      })

      it('pages with cursors on every key field, each row once, in the key order', async () => {
        const seen: Row[] = []
        let cursor: string | null = null
        for (let turn = 0; turn < 10; turn++) {
          const response = await request(app)
            .get('/api/items/film_actor')
            .query({ fields: 'actor_id,film_id', limit: 2, meta: 'next_cursor', ...(cursor === null ? {} : { cursor }) })
          expect(response.status).toBe(200)
          seen.push(...(response.body as { data: Row[] }).data)
          cursor = (response.body.meta as { next_cursor: string | null }).next_cursor
          if (cursor === null) break
        }
        expect(seen).toEqual(
          ((await knex('film_actor').select('actor_id', 'film_id').orderBy(['actor_id', 'film_id'])) as Row[]).map(numbers),
        )
      })

      it('exports every row, in the key order', async () => {
        const response = await request(app).get('/api/items/film_actor').query({ export: 'csv', fields: 'actor_id,film_id', limit: -1 })
        expect(response.status).toBe(200)
        const expected = ((await knex('film_actor').select('actor_id', 'film_id').orderBy(['actor_id', 'film_id'])) as Row[]).map(
          (row) => `${Number(row.actor_id)},${Number(row.film_id)}`,
        )
        expect(response.text.trim().split(/\r?\n/)).toEqual(['actor_id,film_id', ...expected])
      })

      it('groups and aggregates by a key field', async () => {
        const data = await list('film_actor', { 'aggregate[count]': '*', groupBy: 'film_id', sort: 'film_id' })
        const expected = (await knex('film_actor').select('film_id').count({ count: '*' }).groupBy('film_id').orderBy('film_id')) as Row[]
        expect(data.map((row) => [Number(row.film_id), Number(row.count)])).toEqual(
          expected.map((row) => [Number(row.film_id), Number(row.count)]),
        )
      })
    })

    describe('the junction as a many-to-many', () => {
      const castOf = async (film: number): Promise<string[]> =>
        (
          (await knex('film_actor')
            .join('actor', 'actor.actor_id', 'film_actor.actor_id')
            .where('film_id', film)
            .orderBy('film_actor.actor_id')
            .select('name')) as Row[]
        ).map((row) => String(row.name))

      it("expands a film's actors through the junction", async () => {
        const films = await list('film', { fields: 'film_id,film_actor.actor_id.name', sort: 'film_id' })
        for (const film of films) {
          const names = (film.film_actor as Array<{ actor_id: { name: string } }>).map((credit) => credit.actor_id.name)
          expect(names).toEqual(await castOf(Number(film.film_id)))
        }
        expect(films).toHaveLength(4)
      })

      it("lists a film's junction rows by key, each key an object of its fields", async () => {
        const [film] = await list('film', { fields: 'film_id,film_actor', 'filter[film_id][_eq]': 3 })
        const expected = (
          (await knex('film_actor').select('actor_id', 'film_id').where('film_id', 3).orderBy(['actor_id', 'film_id'])) as Row[]
        ).map(numbers)
        expect(film!.film_actor).toEqual(expected)
      })

      it('filters films by actor through the junction, and limits each list with deep', async () => {
        const films = await list('film', {
          fields: 'film_id,film_actor.actor_id.name',
          'filter[film_actor][actor_id][name][_eq]': 'Ed Chase',
          'deep[film_actor][_limit]': 1,
          'deep[film_actor][_sort]': '-actor_id',
          sort: 'film_id',
        })
        const expected = (await knex('film_actor')
          .join('actor', 'actor.actor_id', 'film_actor.actor_id')
          .where('name', 'Ed Chase')
          .orderBy('film_id')
          .select('film_id')) as Row[]
        expect(films.map((film) => Number(film.film_id))).toEqual(expected.map((row) => Number(row.film_id)))
        for (const film of films) {
          const cast = await castOf(Number(film.film_id))
          expect((film.film_actor as Array<{ actor_id: { name: string } }>).map((credit) => credit.actor_id.name)).toEqual([cast.at(-1)])
        }
      })

      it("reads an actor's films the other way, and the junction's own many-to-ones", async () => {
        const data = await list('film_actor', { fields: 'actor_id.name,film_id.title,credited_as', 'filter[credited_as][_eq]': 'Lead' })
        const expected = (await knex('film_actor')
          .join('actor', 'actor.actor_id', 'film_actor.actor_id')
          .join('film', 'film.film_id', 'film_actor.film_id')
          .where('credited_as', 'Lead')
          .orderBy(['film_actor.actor_id', 'film_actor.film_id'])
          .select('name', 'title', 'credited_as')) as Row[]
        expect(data).toEqual(expected.map((row) => ({ actor_id: { name: row.name }, film_id: { title: row.title }, credited_as: 'Lead' })))
      })
    })
  })
})
