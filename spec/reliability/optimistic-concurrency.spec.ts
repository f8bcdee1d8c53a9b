// ETag, If-Match and If-None-Match on one-item and singleton routes, and If-Match on the collection routes, on every
// dialect: a stale If-Match is a 412 that writes nothing, checked inside the write's transaction, so of concurrent
// writers with one tag one wins. On a write of several items every item must have one of the listed tags.
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'

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

  describe('If-Match on the collection routes', () => {
    const tagsOf = async (ids: readonly number[]): Promise<string> =>
      (await Promise.all(ids.map((id) => etagOf(`/api/items/articles/${id}`)))).join(', ')
    const titlesOf = (ids: readonly number[]): Promise<string[]> => Promise.all(ids.map(titleOf))
    /** Articles nothing references, which a DELETE may remove. */
    const fresh = async (count: number): Promise<number[]> => {
      const created = await request(app)
        .post('/api/items/articles?fields=id')
        .send(Array.from({ length: count }, (_, index) => ({ title: `Fresh ${index}` })))
      return (created.body.data as { id: number }[]).map((item) => item.id)
    }

    it.each([
      ['PATCH { keys }', (ids: number[]) => ({ keys: ids, data: { title: 'Changed' } })],
      ['PATCH [items]', (ids: number[]) => ids.map((id) => ({ id, title: 'Changed' }))],
      ['PATCH { query }', (ids: number[]) => ({ query: { filter: { id: { _in: ids } } }, data: { title: 'Changed' } })],
    ])('%s writes when every item has one of the tags, and is a 412 writing nothing when one changed', async (_form, body) => {
      const ids = [3, 4]
      const tags = await tagsOf(ids)
      const titles = await titlesOf(ids)
      await request(app).patch('/api/items/articles/4').send({ rating: 1 }).expect(200)
      expectError(await request(app).patch('/api/items/articles').set('If-Match', tags).send(body(ids)), 412, 'PRECONDITION_FAILED')
      expect(await titlesOf(ids)).toEqual(titles)
      // One item's tag does not stand for the other's.
      const third = await etagOf('/api/items/articles/3')
      expectError(await request(app).patch('/api/items/articles').set('If-Match', third).send(body(ids)), 412, 'PRECONDITION_FAILED')
      expect(await titlesOf(ids)).toEqual(titles)
      const current = await tagsOf(ids)
      expect((await request(app).patch('/api/items/articles').set('If-Match', current).send(body(ids))).status).toBe(200)
      expect(await titlesOf(ids)).toEqual(['Changed', 'Changed'])
      expect((await request(app).patch('/api/items/articles').set('If-Match', '*').send(body(ids))).status).toBe(200)
    })

    it.each([
      ['DELETE [keys]', (ids: number[]) => ids],
      ['DELETE { keys }', (ids: number[]) => ({ keys: ids })],
      ['DELETE { query }', (ids: number[]) => ({ query: { filter: { id: { _in: ids } } } })],
    ])('%s deletes when every item has one of the tags, and is a 412 deleting nothing when one changed', async (_form, body) => {
      const ids = await fresh(2)
      const tags = await tagsOf(ids)
      await request(app).patch(`/api/items/articles/${ids[1]}`).send({ rating: 1 }).expect(200)
      expectError(await request(app).delete('/api/items/articles').set('If-Match', tags).send(body(ids)), 412, 'PRECONDITION_FAILED')
      const stored = async (): Promise<number[]> => (await ctx.knex('articles').whereIn('id', ids).orderBy('id').pluck('id')).map(Number)
      expect(await stored()).toEqual(ids)
      expect(
        (
          await request(app)
            .delete('/api/items/articles')
            .set('If-Match', await tagsOf(ids))
            .send(body(ids))
        ).status,
      ).toBe(204)
      expect(await stored()).toEqual([])
    })

    it('is a 412 on a by-query write that matches no item: the tags name nothing that exists', async () => {
      const tag = await etagOf('/api/items/articles/3')
      const query = { filter: { id: { _eq: 3 }, title: { _eq: 'Not its title' } } }
      for (const header of [tag, '*']) {
        expectError(
          await request(app)
            .patch('/api/items/articles')
            .set('If-Match', header)
            .send({ query, data: { title: 'Changed' } }),
          412,
          'PRECONDITION_FAILED',
        )
        expectError(await request(app).delete('/api/items/articles').set('If-Match', header).send({ query }), 412, 'PRECONDITION_FAILED')
      }
    })

    it('lets exactly one of concurrent PATCH { keys } with the same If-Match win', async () => {
      const ids = [5, 6]
      const tags = await tagsOf(ids)
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          request(app)
            .patch('/api/items/articles')
            .set('If-Match', tags)
            .send({ keys: ids, data: { title: `Writer ${index}` } }),
        ),
      )
      expect(responses.map((response) => response.status).sort()).toEqual([200, ...Array<number>(5).fill(412)])
      const winner = responses.find((response) => response.status === 200)!
      expect(await titlesOf(ids)).toEqual(ids.map(() => winner.body.data[0].title))
    })
  })
})
