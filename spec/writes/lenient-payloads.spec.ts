// lenientPayloads: keys that name no field are dropped and numeric strings stored as numbers, router-wide or per collection; strict by default.
import express, { type Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createItemsRouter, type ItemsRouterOptions } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors } from '../support/expect-error'

/** What Refine's Directus data provider sends from an edit form: its own keys, and numbers as the form holds them. */
const FORM = { title: 'Edited', rating: '4', fields: ['id', 'title', 'rating'], deleteType: 'archive' }

forEachDialect((ctx) => {
  const make = (options: Partial<ItemsRouterOptions> = {}): Express => {
    const app = express()
    app.use('/api', createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger(), defaultAccess: true, ...options }))
    return app
  }
  const article = async (id: number) => ctx.knex('articles').where('id', id).first('title', 'rating')
  beforeEach(() => ctx.reset())

  describe('by default (strict)', () => {
    it('refuses keys that are not fields and numbers sent as strings, and writes nothing', async () => {
      const app = make()
      const response = await request(app).patch('/api/items/articles/1').send(FORM)
      const errors = expectErrors(response, 400, 'FAILED_VALIDATION')
      expect(errors.map((error) => error.extensions.field).sort()).toEqual(['deleteType', 'fields', 'rating'])
      expect(await article(1)).toEqual({ title: seed.articles[0]!.title, rating: seed.articles[0]!.rating })
    })
  })

  describe('lenientPayloads: true', () => {
    let app: Express
    beforeAll(() => {
      app = make({ lenientPayloads: true })
    })

    it('drops the keys that are not fields and stores the numbers (update)', async () => {
      const response = await request(app).patch('/api/items/articles/1?fields=id,title,rating').send(FORM)
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({ id: 1, title: 'Edited', rating: 4 })
      expect(await article(1)).toEqual({ title: 'Edited', rating: 4 })
    })

    it('does the same for creates, batches and by-key updates', async () => {
      const created = await request(app)
        .post('/api/items/articles?fields=title,rating')
        .send([
          { ...FORM, title: 'One' },
          { title: 'Two', rating: '-2', extra: { nested: true } },
        ])
      expect(created.status).toBe(200)
      expect(created.body.data).toEqual([
        { title: 'One', rating: 4 },
        { title: 'Two', rating: -2 },
      ])
      const updated = await request(app)
        .patch('/api/items/articles?fields=id,rating')
        .send({ keys: [2, 3], data: { rating: '5', deleteType: 'archive' } })
      expect(updated.status).toBe(200)
      expect(updated.body.data).toEqual([
        { id: 2, rating: 5 },
        { id: 3, rating: 5 },
      ])
    })

    it('reads a numeric string as its field type does: float, bigInteger and decimal too', async () => {
      const response = await request(app)
        .post('/api/items/samples?fields=ratio,big,price,count')
        .send({ id: 'c0ffee00-0000-4000-8000-0000000001f0', ratio: '2.5', big: '9007199254740993', price: '12.30', count: '-7' })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual({ ratio: 2.5, big: '9007199254740993', price: '12.30', count: -7 })
    })

    it('still refuses a string that is not a number, or not one the field holds', async () => {
      for (const rating of ['four', '4.5', '', ' 4', '0x10']) {
        const response = await request(app).patch('/api/items/articles/1').send({ rating })
        const [error] = expectErrors(response, 400, 'FAILED_VALIDATION')
        expect(error!.extensions.field).toBe('rating')
      }
      expect(await article(1)).toEqual({ title: seed.articles[0]!.title, rating: seed.articles[0]!.rating })
    })

    it('still checks the fields themselves: a bad value, a missing required one', async () => {
      const response = await request(app)
        .post('/api/items/articles')
        .send({ fields: ['title'], rating: '3' })
      const [error] = expectErrors(response, 400, 'FAILED_VALIDATION')
      expect(error!.extensions).toEqual(expect.objectContaining({ field: 'title', type: 'required' }))
    })
  })

  describe('per collection', () => {
    it('collections.<name>.lenientPayloads turns it on for that collection only', async () => {
      const app = make({ collections: { ...collections, articles: { ...collections.articles, lenientPayloads: true } } })
      expect((await request(app).patch('/api/items/articles/1').send(FORM)).status).toBe(200)
      const strict = await request(app).patch('/api/items/comments/1').send({ votes: '3', deleteType: 'archive' })
      expect(
        expectErrors(strict, 400, 'FAILED_VALIDATION')
          .map((error) => error.extensions.field)
          .sort(),
      ).toEqual(['deleteType', 'votes'])
    })

    it('and off for one collection of a lenient router', async () => {
      const app = make({
        lenientPayloads: true,
        collections: { ...collections, comments: { ...collections.comments, lenientPayloads: false } },
      })
      expect((await request(app).patch('/api/items/articles/1').send(FORM)).status).toBe(200)
      expectErrors(await request(app).patch('/api/items/comments/1').send({ votes: '3' }), 400, 'FAILED_VALIDATION')
    })
  })

  describe('with access rules', () => {
    const restricted = {
      ...collections,
      articles: {
        ...collections.articles,
        access: { read: { fields: ['id', 'title', 'status'] }, update: { fields: ['title'] } },
      },
    }

    it('drops a field the caller can neither read nor write, as if it did not exist', async () => {
      const app = make({ lenientPayloads: true, collections: restricted })
      const response = await request(app).patch('/api/items/articles/1?fields=id,title').send({ title: 'Mine', rating: '1' })
      expect(response.status).toBe(200)
      expect(await article(1)).toEqual({ title: 'Mine', rating: seed.articles[0]!.rating })
    })

    it('still refuses one it can read but may not write: the client means to change it', async () => {
      const app = make({ lenientPayloads: true, collections: restricted })
      const response = await request(app).patch('/api/items/articles/1').send({ title: 'Mine', status: 'published' })
      const [error] = expectErrors(response, 400, 'FAILED_VALIDATION')
      expect(error!.extensions.field).toBe('status')
      expect(await article(1)).toEqual({ title: seed.articles[0]!.title, rating: seed.articles[0]!.rating })
    })
  })

  it('refuses a value other than true or false', () => {
    expect(() => make({ lenientPayloads: 'yes' as never })).toThrow(/lenientPayloads must be true or false/)
    expect(() => make({ collections: { ...collections, articles: { ...collections.articles, lenientPayloads: 1 as never } } })).toThrow(
      /collections\.articles\.lenientPayloads must be true or false/,
    )
  })
})
