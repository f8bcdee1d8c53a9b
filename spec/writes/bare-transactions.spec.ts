// A write whose transaction no before hook receives runs it bare (lib/execute/bare-transaction.ts): BEGIN, its
// statements and COMMIT on one pooled connection, without knex's Transaction. Over a pool of one connection, a
// statement sent anywhere else would wait for the pool until the acquire timeout (503), and a transaction left
// open after a refusal would fail every later statement on that connection (PostgreSQL).
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { bareTransaction } from '../../lib/execute/bare-transaction'
import { dialectOf } from '../../lib/dialects'
import { createApp } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'

forEachDialect((ctx) => {
  if (ctx.name === 'sqlite') {
    it.skip('SQLite: its one in-memory connection cannot be opened twice, and a lone write runs without BEGIN', () => undefined)
    return
  }
  let single: Knex
  beforeAll(() => {
    single = knexFactory({ ...knexConfig(ctx.name), acquireConnectionTimeout: 2_000, pool: { min: 1, max: 1 } })
  })
  afterAll(() => single.destroy())
  beforeEach(() => ctx.reset())

  const takenEmail = async (): Promise<string> =>
    ((await ctx.knex('authors').whereNotNull('email').first('email')) as { email: string }).email

  it('binds every statement the work builds to its connection, and refuses the members of knex that would leave it', async () => {
    const answers = await bareTransaction(single, async (db) => {
      expect(() => db.transaction).toThrow('knex.transaction cannot run inside a bare transaction')
      expect(() => db.schema).toThrow('knex.schema cannot run inside a bare transaction')
      return [
        await db('authors').where('id', 1).first('id'),
        await db.select('id').from('authors').where('id', 1).first(),
        await db.queryBuilder().from('authors').where('id', 1).first('id'),
        dialectOf(single).rawRows(await db.raw('select ? as id', [1]))[0],
      ]
    })
    expect(answers.map((row) => Number((row as { id: unknown }).id))).toEqual([1, 1, 1, 1])
  })

  it('rolls back what the work wrote when it throws, and rethrows its error', async () => {
    const failing = bareTransaction(single, async (db) => {
      await db('authors').insert({ name: 'Rolled back' })
      throw new Error('The work failed')
    })
    await expect(failing).rejects.toThrow('The work failed')
    expect(await ctx.knex('authors').where('name', 'Rolled back').select('id')).toEqual([])
  })

  it('runs a lone write on one connection, usable again after a refusal', async () => {
    const app = createApp(single)
    expect(
      (
        await request(app)
          .post('/api/items/authors')
          .send({ name: 'Twin', email: await takenEmail() })
      ).status,
    ).toBe(400)
    const created = await request(app).post('/api/items/authors').send({ name: 'After the refusal' })
    expect(created.status).toBe(200)
    const id = created.body.data.id as number
    expect((await request(app).patch(`/api/items/authors/${id}`).send({ name: 'Renamed' })).status).toBe(200)
    expect(await ctx.knex('authors').where('id', id).select('name')).toEqual([{ name: 'Renamed' }])
  })

  it('runs writes of several statements on one connection: references, If-Match, batches, by query, deletes', async () => {
    const app = createApp(single)
    // The author is checked before the INSERT.
    const created = await request(app).post('/api/items/articles?fields=id').send({ title: 'By author', author: 1 })
    expect(created.status).toBe(200)
    const id = created.body.data.id as number
    // The row is locked and its ETag read before the UPDATE.
    const etag = (await request(app).get(`/api/items/articles/${id}`)).headers.etag!
    expect((await request(app).patch(`/api/items/articles/${id}`).set('If-Match', etag).send({ rating: 3 })).status).toBe(200)
    const batch = await request(app)
      .post('/api/items/articles')
      .send([{ title: 'Batch one' }, { title: 'Batch two', author: 2 }])
    expect(batch.status).toBe(200)
    const inBatch = { filter: { title: { _starts_with: 'Batch' } } }
    expect(
      (
        await request(app)
          .patch('/api/items/articles')
          .send({ query: inBatch, data: { rating: 1 } })
      ).status,
    ).toBe(200)
    expect(await ctx.knex('articles').where('title', 'like', 'Batch%').orderBy('title').select('rating')).toEqual([
      { rating: 1 },
      { rating: 1 },
    ])
    expect((await request(app).delete(`/api/items/articles/${id}`)).status).toBe(204)
    expect((await request(app).delete('/api/items/articles').send({ query: inBatch })).status).toBe(204)
    expect(await ctx.knex('articles').whereIn('title', ['By author', 'Batch one', 'Batch two']).select('id')).toEqual([])
  })

  it('rolls back the whole of a write of several statements that the database refuses, and serves on', async () => {
    const app = createApp(single)
    const refused = await request(app)
      .post('/api/items/authors')
      .send([{ name: 'First of two' }, { name: 'Twin', email: await takenEmail() }])
    expect(refused.status).toBe(400)
    expect(await ctx.knex('authors').where('name', 'First of two').select('id')).toEqual([])
    expect(
      (
        await request(app)
          .post('/api/items/authors')
          .send([{ name: 'Next one' }, { name: 'Next two' }])
      ).status,
    ).toBe(200)
  })
})
