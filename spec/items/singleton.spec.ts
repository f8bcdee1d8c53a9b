// A singleton collection reads and writes its one row as a plain object at /items/settings and /items/settings/singleton.
import type { Express } from 'express'
import request from 'supertest'
import { settingsRow } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError } from '../support/expect-error'

/** What a read answers before the row exists: the key as null and the fields with a non-null default. */
const PLACEHOLDER = { id: null, tagline: 'Just another site', items_per_page: 10 }
const PATHS = ['/api/items/settings', '/api/items/settings/singleton']

async function settingsRows(ctx: DialectContext): Promise<unknown[]> {
  return ctx.knex('settings').select('id', 'site_name', 'tagline', 'items_per_page').orderBy('id')
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  describe.each(PATHS)('%s read before the row exists', (path) => {
    beforeAll(async () => {
      await ctx.reset()
    })

    it('reads the primary key as null and the fields that have defaults', async () => {
      const response = await request(app).get(path)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: PLACEHOLDER })
      expect(response.body.data).not.toHaveProperty('site_name')
    })

    it('answers { data: {} } for fields without a default', async () => {
      const response = await request(app).get(`${path}?fields=site_name`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: {} })
    })

    it('answers only the requested fields of the placeholder', async () => {
      const response = await request(app).get(`${path}?fields=items_per_page,id`)
      expect(response.body).toEqual({ data: { items_per_page: 10, id: null } })
    })

    it.each([
      ['total_count', { total_count: 0 }],
      ['*', { total_count: 0, filter_count: 0 }],
    ])('answers meta=%s with zero counts', async (meta, expected) => {
      const response = await request(app).get(`${path}?meta=${meta}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: PLACEHOLDER, meta: expected })
    })

    it('answers ?version=main like the plain read and 404 NOT_FOUND for any other version', async () => {
      const main = await request(app).get(`${path}?version=main`)
      expect(main.status).toBe(200)
      expect(main.body).toEqual({ data: PLACEHOLDER })
      expectError(await request(app).get(`${path}?version=x`), 404, 'NOT_FOUND')
    })
  })

  describe.each(PATHS)('%s written before the row exists', (path) => {
    beforeEach(async () => {
      await ctx.reset()
    })

    it('creates the row on PATCH, with the database defaults for omitted fields', async () => {
      const response = await request(app).patch(path).send({ site_name: 'Mine' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 1, site_name: 'Mine', tagline: 'Just another site', items_per_page: 10 } })
      expect(await settingsRows(ctx)).toEqual([{ id: 1, site_name: 'Mine', tagline: 'Just another site', items_per_page: 10 }])
    })

    it('creates the row on PATCH with an empty object', async () => {
      const response = await request(app).patch(path).send({})
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 1, site_name: null, tagline: 'Just another site', items_per_page: 10 } })
      expect(await settingsRows(ctx)).toHaveLength(1)
    })

    it('updates the same row on a second PATCH instead of creating another', async () => {
      await request(app).patch(path).send({ site_name: 'Mine' }).expect(200)
      const response = await request(app).patch(`${path}?fields=id,site_name,tagline`).send({ tagline: 'Second' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 1, site_name: 'Mine', tagline: 'Second' } })
      expect(await settingsRows(ctx)).toEqual([{ id: 1, site_name: 'Mine', tagline: 'Second', items_per_page: 10 }])
    })

    it('reads the created row back with meta total_count 1', async () => {
      await request(app).patch(path).send({ site_name: 'Mine', items_per_page: 3 }).expect(200)
      for (const readPath of PATHS) {
        const response = await request(app).get(`${readPath}?meta=total_count`)
        expect(response.body).toEqual({
          data: { id: 1, site_name: 'Mine', tagline: 'Just another site', items_per_page: 3 },
          meta: { total_count: 1 },
        })
      }
    })

    it.each([
      ['an array body', [{ site_name: 'x' }]],
      ['an empty array', []],
      ['a scalar body', 3],
    ])('refuses %s with 400 INVALID_PAYLOAD and creates nothing', async (_label, body) => {
      const response = await request(app).patch(path).set('Content-Type', 'application/json').send(JSON.stringify(body))
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect(await settingsRows(ctx)).toEqual([])
    })

    it.each([
      ['a wrong type', { items_per_page: 'ten' }, 'items_per_page'],
      ['an unknown field', { theme: 'dark' }, 'theme'],
    ])('refuses %s with 400 FAILED_VALIDATION and creates nothing', async (_label, body, field) => {
      const response = await request(app).patch(path).send(body)
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        { message: expect.any(String), extensions: expect.objectContaining({ code: 'FAILED_VALIDATION', field }) },
      ])
      expect(await settingsRows(ctx)).toEqual([])
    })

    it('refuses a PATCH without a JSON body with 400 INVALID_PAYLOAD', async () => {
      expectError(await request(app).patch(path), 400, 'INVALID_PAYLOAD')
      expect(await settingsRows(ctx)).toEqual([])
    })
  })

  describe.each(PATHS)('%s read with the seeded row', (path) => {
    beforeAll(async () => {
      await ctx.reset({ settings: true })
    })

    it('reads the row as a plain object', async () => {
      const response = await request(app).get(path)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: settingsRow })
    })

    it('answers meta=total_count 1 and reads through ?fields=', async () => {
      const response = await request(app).get(`${path}?fields=site_name&meta=total_count`)
      expect(response.body).toEqual({ data: { site_name: settingsRow.site_name }, meta: { total_count: 1 } })
    })

    it('answers ?version=main with the row and 404 NOT_FOUND for another version', async () => {
      const main = await request(app).get(`${path}?version=main`)
      expect(main.body).toEqual({ data: settingsRow })
      expectError(await request(app).get(`${path}?version=draft`), 404, 'NOT_FOUND')
    })
  })

  describe.each(PATHS)('%s written with the seeded row', (path) => {
    beforeEach(async () => {
      await ctx.reset({ settings: true })
    })

    it('updates the row on PATCH, ignoring a primary key in the payload', async () => {
      const response = await request(app).patch(path).send({ id: 7, items_per_page: 50 })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { ...settingsRow, items_per_page: 50 } })
      expect(await settingsRows(ctx)).toEqual([{ ...settingsRow, items_per_page: 50 }])
    })

    it('can set a field to null', async () => {
      const response = await request(app).patch(`${path}?fields=site_name`).send({ site_name: null })
      expect(response.body).toEqual({ data: { site_name: null } })
    })

    it('refuses an array body with 400 and leaves the row unchanged', async () => {
      const response = await request(app)
        .patch(path)
        .send([{ id: 1, site_name: 'x' }])
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect(await settingsRows(ctx)).toEqual([settingsRow])
    })
  })

  describe('routes a singleton does not serve', () => {
    beforeAll(async () => {
      await ctx.reset({ settings: true })
    })

    it('answers POST /items/settings with 404 ROUTE_NOT_FOUND', async () => {
      expectError(await request(app).post('/api/items/settings').send({ site_name: 'x' }), 404, 'ROUTE_NOT_FOUND')
      expect(await settingsRows(ctx)).toEqual([settingsRow])
    })

    it('answers DELETE /items/settings with 404 ROUTE_NOT_FOUND', async () => {
      expectError(await request(app).delete('/api/items/settings').send([1]), 404, 'ROUTE_NOT_FOUND')
      expect(await settingsRows(ctx)).toEqual([settingsRow])
    })
  })

  describe('"singleton" on a collection that is not one', () => {
    beforeAll(async () => {
      await ctx.reset()
    })

    it('is read as an id: GET /items/articles/singleton answers 404 NOT_FOUND', async () => {
      expectError(await request(app).get('/api/items/articles/singleton'), 404, 'NOT_FOUND')
    })

    it('is read as an id: PATCH /items/articles/singleton answers 404 NOT_FOUND and writes nothing', async () => {
      expectError(await request(app).patch('/api/items/articles/singleton').send({ title: 'x' }), 404, 'NOT_FOUND')
      const [row] = await ctx.knex('articles').where({ title: 'x' }).count({ n: '*' })
      expect(Number(row!.n)).toBe(0)
    })

    it('answers 404 NOT_FOUND on a uuid-keyed collection too', async () => {
      // samples has a uuid key, so "singleton" is no key at all: still a 404, never the first row.
      expectError(await request(app).get('/api/items/samples/singleton'), 404, 'NOT_FOUND')
    })

    it('lists articles as an array at /items/articles', async () => {
      const response = await request(app).get('/api/items/articles?limit=1&fields=id')
      expect(response.body).toEqual({ data: [{ id: 1 }] })
    })
  })
})
