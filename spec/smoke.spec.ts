// The router mounts in a host app and answers on every dialect.
import request from 'supertest'
import { createApp } from './support/app'
import { forEachDialect } from './support/dialects'

forEachDialect((ctx) => {
  it('lists items in the { data } envelope', async () => {
    const response = await request(createApp(ctx.knex)).get('/api/items/authors?limit=2&fields=id')
    expect(response.status).toBe(200)
    expect(response.body).toEqual({ data: [{ id: 1 }, { id: 2 }] })
  })

  it('leaves paths outside /items to the host app', async () => {
    const response = await request(createApp(ctx.knex)).get('/api/health')
    expect(response.body).toEqual({ ok: true })
  })
})
