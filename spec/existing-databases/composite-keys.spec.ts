// readCollections over tables keyed by several columns (keyed-schema.ts): a junction keyed by its two foreign keys
// served as a many-to-many like any other, a table keyed by two text columns, and a composite foreign key left out
// and reported; every answer checked against plain SQL on the same database.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createItemsRouter, describeDatabase } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'
import { startRealtimeHost, TestClient } from '../support/realtime'
import { closeKeyedDatabase, CREDITS, openKeyedDatabase } from './keyed-schema'

type Row = Record<string, unknown>

const numbers = (row: Row): Row =>
  Object.fromEntries(Object.entries(row).map(([name, value]) => [name, /_id$/.test(name) ? Number(value) : value]))

forEachDialect((ctx) => {
  describe(`${ctx.name}: composite primary keys`, () => {
    let knex: Knex
    let app: Express

    beforeAll(async () => {
      knex = await openKeyedDatabase(ctx.name, ctx.knex)
      const { collections } = await describeDatabase(knex, { overrides: { film_actor: { versioning: true }, film: { versioning: true } } })
      app = express()
      app.use('/api', createItemsRouter({ knex, collections, logger: recordingLogger(), defaultAccess: true, createVersionsTable: true }))
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
        expect(response.body.meta).toEqual({ total_count: CREDITS.length, filter_count: Number(count) })
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
    describe('items by key', () => {
      const credit = async (actor: number, film: number): Promise<Row | undefined> => {
        const row = (await knex('film_actor').where({ actor_id: actor, film_id: film }).first()) as Row | undefined
        return row && numbers(row)
      }
      const dataOf = (response: request.Response, status = 200): Row => {
        expect(response.body).toHaveProperty('data')
        expect(response.status).toBe(status)
        return (response.body as { data: Row }).data
      }

      it('reads one item by its components joined by commas, each percent-encoded', async () => {
        expect(dataOf(await request(app).get('/api/items/film_actor/1,3'))).toEqual(await credit(1, 3))
        expect(dataOf(await request(app).get('/api/items/page/en,news%2C2024'))).toEqual({
          lang: 'en',
          slug: 'news,2024',
          title: 'News of 2024',
        })
        expect(dataOf(await request(app).get('/api/items/page/fr,100%25?fields=title'))).toEqual({ title: 'Cent pour cent' })
      })

      it('answers 404 for a key no item has, compared exactly, and 400 for a key of the wrong shape', async () => {
        expectError(await request(app).get('/api/items/film_actor/1,2'), 404, 'NOT_FOUND')
        expectError(await request(app).get('/api/items/film_actor/1,abc'), 404, 'NOT_FOUND')
        // MySQL's usual collations take "EN" for "en": the key still names no item.
        expectError(await request(app).get('/api/items/page/EN,about'), 404, 'NOT_FOUND')
        expectError(await request(app).get('/api/items/page/en,news,2024'), 400, 'INVALID_QUERY')
        const error = expectError(await request(app).get('/api/items/film_actor/1'), 400, 'INVALID_QUERY')
        expect(error.message).toContain('"actor_id,film_id"')
      })

      it('creates an item named by every component, and answers it with its key', async () => {
        const created = dataOf(await request(app).post('/api/items/film_actor').send({ actor_id: 4, film_id: 4, credited_as: 'Extra' }))
        expect(created).toEqual({ actor_id: 4, film_id: 4, credited_as: 'Extra' })
        expect(await credit(4, 4)).toEqual(created)
        const missing = expectError(await request(app).post('/api/items/film_actor').send({ actor_id: 4 }), 400, 'FAILED_VALIDATION')
        expect(missing.extensions.field).toBe('film_id')
        expectError(await request(app).post('/api/items/film_actor').send({ actor_id: 4, film_id: 4 }), 400, 'RECORD_NOT_UNIQUE')
        const page = dataOf(await request(app).post('/api/items/page').send({ lang: 'en', slug: 'a,b%c', title: 'Odd' }))
        expect(page).toEqual({ lang: 'en', slug: 'a,b%c', title: 'Odd' })
        expect(dataOf(await request(app).get(`/api/items/page/en,${encodeURIComponent('a,b%c')}`))).toEqual(page)
      })

      it('updates and deletes one item by its path key, and nothing else', async () => {
        await knex('film_actor').insert([
          { actor_id: 3, film_id: 4, credited_as: null },
          { actor_id: 4, film_id: 2, credited_as: null },
        ])
        // The body's key fields say nothing new and change nothing.
        const updated = dataOf(await request(app).patch('/api/items/film_actor/3,4').send({ credited_as: 'Star', film_id: 1 }))
        expect(updated).toEqual({ actor_id: 3, film_id: 4, credited_as: 'Star' })
        expect(await credit(3, 4)).toEqual(updated)
        expect(await credit(3, 1)).toMatchObject({ credited_as: 'Lead' })
        expect((await request(app).delete('/api/items/film_actor/4,2')).status).toBe(204)
        expect(await credit(4, 2)).toBeUndefined()
        expect(await credit(4, 3)).toBeDefined()
        expectError(await request(app).patch('/api/items/page/EN,about').send({ title: 'Shout' }), 404, 'NOT_FOUND')
        expectError(await request(app).delete('/api/items/page/EN,about'), 404, 'NOT_FOUND')
        expect(await knex('page').where({ lang: 'en', slug: 'about' }).first()).toMatchObject({ title: 'About us' })
      })

      it('takes key lists of objects, or of path keys, in PATCH and DELETE bodies', async () => {
        await knex('film_actor').insert([
          { actor_id: 2, film_id: 2, credited_as: null },
          { actor_id: 2, film_id: 4, credited_as: null },
          { actor_id: 3, film_id: 3, credited_as: null },
        ])
        const many = await request(app)
          .patch('/api/items/film_actor')
          .send({ keys: [{ actor_id: 2, film_id: 2 }, '2,4'], data: { credited_as: 'Twin' } })
        expect(many.body.data).toEqual([
          { actor_id: 2, film_id: 2, credited_as: 'Twin' },
          { actor_id: 2, film_id: 4, credited_as: 'Twin' },
        ])
        const each = await request(app)
          .patch('/api/items/film_actor')
          .send([{ actor_id: 3, film_id: 3, credited_as: 'Solo' }])
        expect(each.body.data).toEqual([{ actor_id: 3, film_id: 3, credited_as: 'Solo' }])
        expect(
          (
            await request(app)
              .delete('/api/items/film_actor')
              .send([{ actor_id: 2, film_id: 2 }])
          ).status,
        ).toBe(204)
        expect(
          (
            await request(app)
              .delete('/api/items/film_actor')
              .send({ keys: ['2,4', '3,3'] })
          ).status,
        ).toBe(204)
        expect([await credit(2, 2), await credit(2, 4), await credit(3, 3)]).toEqual([undefined, undefined, undefined])
        expect(await credit(2, 1)).toBeDefined()
      })

      it('refuses a key list entry that misses or mistypes a component, naming it, before any write', async () => {
        const before = await credits((qb) => qb.orderBy(['actor_id', 'film_id']))
        const missing = expectError(
          await request(app)
            .delete('/api/items/film_actor')
            .send([{ actor_id: 1 }]),
          400,
          'INVALID_PAYLOAD',
        )
        expect(missing.message).toContain('"film_id" is missing')
        const mistyped = expectError(
          await request(app)
            .patch('/api/items/film_actor')
            .send({ keys: [{ actor_id: 'one', film_id: 1 }], data: { credited_as: 'x' } }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(mistyped.message).toContain('actor_id (integer)')
        const short = expectError(await request(app).delete('/api/items/film_actor').send(['1']), 400, 'INVALID_PAYLOAD')
        expect(short.message).toContain('"actor_id,film_id"')
        expectError(await request(app).delete('/api/items/film_actor').send([1]), 400, 'INVALID_PAYLOAD')
        expect(await credits((qb) => qb.orderBy(['actor_id', 'film_id']))).toEqual(before)
      })

      it('tags an item with an ETag, and writes it only If-Match holds', async () => {
        await knex('film_actor').insert({ actor_id: 4, film_id: 1, credited_as: null })
        const read = await request(app).get('/api/items/film_actor/4,1')
        const etag = read.headers.etag as string
        expect(etag).toMatch(/^"/)
        expect((await request(app).get('/api/items/film_actor/4,1').set('If-None-Match', etag)).status).toBe(304)
        expectError(
          await request(app).patch('/api/items/film_actor/4,1').set('If-Match', '"stale"').send({ credited_as: 'No' }),
          412,
          'PRECONDITION_FAILED',
        )
        expect(await credit(4, 1)).toMatchObject({ credited_as: null })
        dataOf(await request(app).patch('/api/items/film_actor/4,1').set('If-Match', etag).send({ credited_as: 'Yes' }))
        expect(await credit(4, 1)).toMatchObject({ credited_as: 'Yes' })
        expectError(await request(app).delete('/api/items/film_actor/4,1').set('If-Match', etag), 412, 'PRECONDITION_FAILED')
      })

      it("writes a film's junction rows through the many-to-many: creates pairs, keeps listed keys, detaches the rest", async () => {
        const film = dataOf(
          await request(app)
            .post('/api/items/film')
            .send({ title: 'Alien Center', film_actor: [{ actor_id: 1 }, { actor_id: 2 }] }),
        )
        const id = Number(film.film_id)
        const pairs = async (): Promise<Row[]> =>
          ((await knex('film_actor').select('actor_id', 'film_id').where('film_id', id).orderBy('actor_id')) as Row[]).map(numbers)
        expect(await pairs()).toEqual([
          { actor_id: 1, film_id: id },
          { actor_id: 2, film_id: id },
        ])
        // The list is the film's whole cast: a key object keeps its pair, a new object creates one, the rest go.
        const patched = dataOf(
          await request(app)
            .patch(`/api/items/film/${id}`)
            .query({ fields: 'film_actor' })
            .send({ film_actor: [{ actor_id: 2, film_id: id }, { actor_id: 3 }] }),
        )
        expect(patched.film_actor).toEqual([
          { actor_id: 2, film_id: id },
          { actor_id: 3, film_id: id },
        ])
        expect(await pairs()).toEqual(patched.film_actor)
        dataOf(
          await request(app)
            .patch(`/api/items/film/${id}`)
            .send({ film_actor: { delete: [`3,${id}`], create: [{ actor_id: 4 }] } }),
        )
        expect(await pairs()).toEqual([
          { actor_id: 2, film_id: id },
          { actor_id: 4, film_id: id },
        ])
        dataOf(
          await request(app)
            .patch(`/api/items/film/${id}`)
            .send({ film_actor: { update: [{ actor_id: 4, film_id: id, credited_as: 'Cameo' }] } }),
        )
        expect(await credit(4, id)).toEqual({ actor_id: 4, film_id: id, credited_as: 'Cameo' })
        expect(await credit(2, id)).toEqual({ actor_id: 2, film_id: id, credited_as: null })
      })

      it('updates and deletes the items a query matches', async () => {
        await knex('film_actor').insert([
          { actor_id: 1, film_id: 2, credited_as: 'Temp' },
          { actor_id: 4, film_id: 2, credited_as: 'Temp' },
        ])
        const byQuery = { filter: { credited_as: { _eq: 'Temp' } } }
        const updated = await request(app)
          .patch('/api/items/film_actor')
          .send({ query: byQuery, data: { credited_as: 'Kept' } })
        expect(updated.body.data).toEqual([
          { actor_id: 1, film_id: 2, credited_as: 'Kept' },
          { actor_id: 4, film_id: 2, credited_as: 'Kept' },
        ])
        expect(
          (
            await request(app)
              .delete('/api/items/film_actor')
              .send({ query: { filter: { credited_as: { _eq: 'Kept' } } } })
          ).status,
        ).toBe(204)
        expect([await credit(1, 2), await credit(4, 2)]).toEqual([undefined, undefined])
        expect(await credit(3, 2)).toBeDefined()
      })

      it('keeps versions of an item under its composite key, and promotes them', async () => {
        await knex('film_actor').insert({ actor_id: 3, film_id: 3, credited_as: 'Before' })
        const created = dataOf(
          await request(app)
            .post('/api/versions')
            .send({ key: 'draft', collection: 'film_actor', item: { actor_id: 3, film_id: 3 } }),
        )
        expect(created).toMatchObject({ collection: 'film_actor', item: '3,3' })
        dataOf(
          await request(app)
            .post(`/api/versions/${String(created.id)}/save`)
            .send({ credited_as: 'After' }),
        )
        expect(dataOf(await request(app).get('/api/items/film_actor/3,3?version=draft'))).toMatchObject({ credited_as: 'After' })
        expect(await list('film_actor', { version: 'draft' })).toEqual([
          { actor_id: 3, film_id: 3, credited_as: 'After', $meta: { version_id: created.id } },
        ])
        const compared = dataOf(await request(app).get(`/api/versions/${String(created.id)}/compare`))
        dataOf(
          await request(app)
            .post(`/api/versions/${String(created.id)}/promote`)
            .send({ mainHash: compared.mainHash }),
        )
        expect(await credit(3, 3)).toMatchObject({ credited_as: 'After' })
      })
      it("previews and promotes a film's draft that changes its junction rows", async () => {
        await knex('film_actor').where('film_id', 2).delete()
        await knex('film_actor').insert([
          { actor_id: 1, film_id: 2, credited_as: null },
          { actor_id: 3, film_id: 2, credited_as: null },
        ])
        const created = dataOf(await request(app).post('/api/versions').send({ key: 'recast', collection: 'film', item: 2 }))
        const id = String(created.id)
        dataOf(
          await request(app)
            .post(`/api/versions/${id}/save`)
            .send({ film_actor: [{ actor_id: 3, film_id: 2, credited_as: 'Lead' }, { actor_id: 4 }] }),
        )
        const keys = dataOf(await request(app).get('/api/items/film/2').query({ version: 'recast', fields: 'film_actor' }))
        expect(keys.film_actor).toEqual([{ actor_id: 3, film_id: 2 }, { actor_id: 4 }])
        const shown = dataOf(
          await request(app).get('/api/items/film/2').query({ version: 'recast', fields: 'film_actor.actor_id,film_actor.credited_as' }),
        )
        expect(shown.film_actor).toEqual([
          { actor_id: 3, credited_as: 'Lead' },
          { actor_id: 4, credited_as: null },
        ])
        // The main item is untouched until the promote.
        expect(await credits((qb) => qb.where('film_id', 2).orderBy('actor_id'))).toEqual([
          { actor_id: 1, film_id: 2, credited_as: null },
          { actor_id: 3, film_id: 2, credited_as: null },
        ])
        const compared = dataOf(await request(app).get(`/api/versions/${id}/compare`))
        dataOf(await request(app).post(`/api/versions/${id}/promote`).send({ mainHash: compared.mainHash }))
        expect(await credits((qb) => qb.where('film_id', 2).orderBy('actor_id'))).toEqual([
          { actor_id: 3, film_id: 2, credited_as: 'Lead' },
          { actor_id: 4, film_id: 2, credited_as: null },
        ])
      })
    })
    describe('realtime', () => {
      it('sends the events of items with a composite key, a delete naming its key as an object', async () => {
        const { collections } = await describeDatabase(knex)
        const host = await startRealtimeHost(knex, {}, { collections })
        const ws = await TestClient.open(host.wsUrl, 'token-admin')
        try {
          await ws.ask({ type: 'subscribe', collection: 'page', uid: 'p', query: { fields: ['lang', 'slug', 'title'] } })
          await request(host.server).post('/api/items/page').send({ lang: 'it', slug: 'chi,siamo', title: 'Chi siamo' }).expect(200)
          expect(await ws.answer('p')).toEqual({
            type: 'subscription',
            event: 'create',
            data: [{ lang: 'it', slug: 'chi,siamo', title: 'Chi siamo' }],
            uid: 'p',
          })
          await request(host.server).patch('/api/items/page/it,chi%2Csiamo').send({ title: 'Noi' }).expect(200)
          expect(await ws.answer('p')).toMatchObject({ event: 'update', data: [{ lang: 'it', slug: 'chi,siamo', title: 'Noi' }] })
          await request(host.server).delete('/api/items/page/it,chi%2Csiamo').expect(204)
          expect(await ws.answer('p')).toEqual({
            type: 'subscription',
            event: 'delete',
            data: [{ lang: 'it', slug: 'chi,siamo' }],
            uid: 'p',
          })
        } finally {
          ws.close()
          await host.close()
        }
      })
    })
  })
})
