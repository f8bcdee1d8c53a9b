// ETag, If-Match and If-None-Match on one-item and singleton routes, on every dialect: a stale If-Match is a
// 412 that writes nothing, checked inside the write's transaction, so of concurrent writers with one tag one wins.
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'

const STRONG_ETAG = /^"[A-Za-z0-9_-]+"$/

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })
  beforeEach(() => ctx.reset())

  const etagOf = async (path: string): Promise<string> => (await request(app).get(path)).headers.etag as string
  const titleOf = async (id: number): Promise<string> => (await ctx.knex('articles').where({ id }).first('title')).title

  it('tags a one-item read with a strong ETag that does not depend on ?fields=, and answers 304 to If-None-Match', async () => {
    const tag = await etagOf('/api/items/articles/3')
    expect(tag).toMatch(STRONG_ETAG)
    expect(await etagOf('/api/items/articles/3?fields=title')).toBe(tag)
    const cached = await request(app).get('/api/items/articles/3').set('If-None-Match', tag)
    expect(cached.status).toBe(304)
    expect(cached.text).toBe('')
    await request(app).patch('/api/items/articles/3').send({ title: 'Changed' })
    const changed = await request(app).get('/api/items/articles/3').set('If-None-Match', tag)
    expect(changed.status).toBe(200)
    expect(changed.headers.etag).not.toBe(tag)
  })

  it('gives the same ETag whether the read answers the tagged fields itself, expands them, or renames them', async () => {
    const tag = await etagOf('/api/items/articles/3')
    // author expanded into an object, title under another name: both ride along for the tag, and leave the item.
    const expanded = await request(app).get('/api/items/articles/3?fields=id,author.name,headline&alias[headline]=title')
    expect(expanded.headers.etag).toBe(tag)
    expect(Object.keys(expanded.body.data).sort()).toEqual(['author', 'headline', 'id'])
    expect(typeof expanded.body.data.author === 'object').toBe(true)
    // The tag a write checks (If-Match, read inside its transaction) is the tag the read gave.
    expect((await request(app).patch('/api/items/articles/3').set('If-Match', tag).send({ rating: 1 })).status).toBe(200)
  })

  it('honours If-Match on PATCH and DELETE: the current tag writes, a stale one is 412 and writes nothing', async () => {
    const stale = await etagOf('/api/items/articles/3')
    const patched = await request(app).patch('/api/items/articles/3').set('If-Match', stale).send({ title: 'First' })
    expect(patched.status).toBe(200)
    const refused = await request(app).patch('/api/items/articles/3').set('If-Match', stale).send({ title: 'Second' })
    expect(refused.status).toBe(412)
    expect(refused.body.errors[0].extensions.code).toBe('PRECONDITION_FAILED')
    expect(await titleOf(3)).toBe('First')
    // A fresh article: the seeded ones are referenced by comments.
    const { id } = (await request(app).post('/api/items/articles').send({ title: 'Doomed' })).body.data
    const before = await etagOf(`/api/items/articles/${id}`)
    await request(app).patch(`/api/items/articles/${id}`).send({ rating: 2 })
    expect((await request(app).delete(`/api/items/articles/${id}`).set('If-Match', before)).status).toBe(412)
    expect(await ctx.knex('articles').where({ id }).first('id')).toEqual({ id })
    const current = await etagOf(`/api/items/articles/${id}`)
    expect((await request(app).delete(`/api/items/articles/${id}`).set('If-Match', current)).status).toBe(204)
  })

  it('lets exactly one of concurrent PATCHes with the same If-Match win', async () => {
    const tag = await etagOf('/api/items/articles/4')
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        request(app)
          .patch('/api/items/articles/4')
          .set('If-Match', tag)
          .send({ title: `Writer ${index}` }),
      ),
    )
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses).toEqual([200, ...Array<number>(7).fill(412)])
    const winner = responses.find((response) => response.status === 200)!
    expect(await titleOf(4)).toBe(winner.body.data.title)
  })

  it('tags the singleton, and refuses a stale If-Match or one on a singleton without its row', async () => {
    await ctx.knex('settings').delete()
    const none = await request(app).patch('/api/items/settings').set('If-Match', '*').send({ site_name: 'X' })
    expect(none.status).toBe(412)
    expect(await ctx.knex('settings').select('id')).toEqual([])
    expect((await request(app).patch('/api/items/settings').send({ site_name: 'Mine' })).status).toBe(200)
    const tag = await etagOf('/api/items/settings')
    expect(tag).toMatch(STRONG_ETAG)
    expect((await request(app).get('/api/items/settings/singleton').set('If-None-Match', tag)).status).toBe(304)
    expect((await request(app).patch('/api/items/settings').set('If-Match', tag).send({ site_name: 'Ours' })).status).toBe(200)
    expect((await request(app).patch('/api/items/settings').set('If-Match', tag).send({ site_name: 'Theirs' })).status).toBe(412)
    expect((await ctx.knex('settings').first('site_name')).site_name).toBe('Ours')
  })
})
