// Idempotency-Key on POST and PATCH, on every dialect: a retry answers the first response and writes nothing,
// a different request with the same key is a 422, concurrent requests with one key write once, keys expire.
import { randomUUID } from 'node:crypto'
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex, { createIdempotencyTable: true })
  })
  beforeEach(() => ctx.reset())

  const authorsNamed = (name: string): Promise<{ id: number }[]> => ctx.knex('authors').where({ name }).select('id')

  it('answers a retried POST with the first response and creates one item', async () => {
    const key = randomUUID()
    const first = await request(app).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Once' })
    const retry = await request(app).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Once' })
    expect(first.status).toBe(200)
    expect(retry.status).toBe(200)
    expect(retry.body).toEqual(first.body)
    expect(retry.headers['idempotent-replayed']).toBe('true')
    expect(await authorsNamed('Once')).toEqual([{ id: first.body.data.id }])
  })

  it('answers a retried PATCH with the first response without writing again', async () => {
    const key = randomUUID()
    const first = await request(app).patch('/api/items/articles/3').set('Idempotency-Key', key).send({ rating: 5 })
    expect(first.status).toBe(200)
    await ctx.knex('articles').where({ id: 3 }).update({ rating: 1 })
    const retry = await request(app).patch('/api/items/articles/3').set('Idempotency-Key', key).send({ rating: 5 })
    expect(retry.body).toEqual(first.body)
    expect((await ctx.knex('articles').where({ id: 3 }).first('rating')).rating).toBe(1)
  })

  it('refuses a different request with a used key with 422 and writes nothing', async () => {
    const key = randomUUID()
    expect((await request(app).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'First' })).status).toBe(200)
    const other = await request(app).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Second' })
    expect(other.status).toBe(422)
    expect(other.body.errors[0].extensions).toMatchObject({ code: 'UNPROCESSABLE_CONTENT', header: 'Idempotency-Key' })
    expect(await authorsNamed('Second')).toEqual([])
  })

  it('writes once for concurrent requests with the same key, and answers all of them alike', async () => {
    for (let round = 0; round < 3; round++) {
      const key = randomUUID()
      const name = `Concurrent ${round}`
      const responses = await Promise.all(
        Array.from({ length: 8 }, () => request(app).post('/api/items/authors').set('Idempotency-Key', key).send({ name })),
      )
      expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200))
      const rows = await authorsNamed(name)
      expect(rows).toHaveLength(1)
      for (const response of responses) expect(response.body.data.id).toBe(rows[0]!.id)
    }
  })

  it('writes once for concurrent singleton PATCHes with the same key', async () => {
    await ctx.knex('settings').delete()
    const key = randomUUID()
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => request(app).patch('/api/items/settings').set('Idempotency-Key', key).send({ site_name: 'Keyed' })),
    )
    expect(new Set(responses.map((response) => response.status))).toEqual(new Set([200]))
    expect(Number((await ctx.knex('settings').count({ count: '*' }))[0]!.count)).toBe(1)
  })

  it('writes again once the key expired', async () => {
    const short = createApp(ctx.knex, { createIdempotencyTable: true, idempotencyTtl: 1 })
    const key = randomUUID()
    await request(short).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Expiring' })
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await request(short).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Expiring' })
    expect(await authorsNamed('Expiring')).toHaveLength(2)
  })

  it('refuses an empty or over-long key with 400', async () => {
    const long = await request(app).post('/api/items/authors').set('Idempotency-Key', 'k'.repeat(256)).send({ name: 'Long' })
    expect(long.status).toBe(400)
    expect(await authorsNamed('Long')).toEqual([])
  })
})
