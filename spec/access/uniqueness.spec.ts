// A unique constraint spans every row, readable or not: its error must not tell a caller more than that a
// value is taken, and must read the same on every database.
import request from 'supertest'
import { seed } from '../../fixtures/seed'
import { collections } from '../../fixtures/schema'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'

forEachDialect((ctx) => {
  beforeEach(() => ctx.reset())

  it('answers a duplicate of a row the caller cannot read without echoing its value', async () => {
    const app = createApp(ctx.knex, {
      collections: {
        ...collections,
        authors: { ...collections.authors, access: { read: { filter: { id: { _eq: 1 } } }, create: true, update: true } },
      },
    })
    const hidden = seed.authors[1]!.email!
    expect((await request(app).get('/api/items/authors/2')).status).toBe(404)
    const response = await request(app).post('/api/items/authors').send({ name: 'Prober', email: hidden })
    expect(response.status).toBe(400)
    expect(response.body.errors).toEqual([
      {
        message: 'Value has to be unique (field "email").',
        extensions: { code: 'RECORD_NOT_UNIQUE', collection: 'authors', field: 'email' },
      },
    ])
    expect(JSON.stringify(response.body)).not.toContain(hidden)
  })
})
