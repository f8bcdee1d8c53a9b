// Every realtime message is what its subscriber may read, on every database: its access rules' fields and rows,
// hidden fields never; an item entering a subscription's filter (or the caller's rows) arrives as a create,
// one leaving it as a delete, and a delete of an item the subscriber never saw is not sent.
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import type { AccessDecision, ItemsContext } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient, type Frame, type RealtimeHost } from '../support/realtime'

const readArticles = (context: ItemsContext): AccessDecision =>
  context.role === 'admin' ? true : { fields: ['id', 'title', 'status'], filter: { status: { _eq: 'published' } } }

const restricted = {
  ...collections,
  articles: { ...collections.articles, access: { read: readArticles, create: true, update: true, delete: true } },
  authors: { ...collections.authors, access: { read: true } },
}

forEachDialect((ctx) => {
  let host: RealtimeHost
  const open: TestClient[] = []
  const client = async (role: string): Promise<TestClient> => {
    const made = await TestClient.open(host.wsUrl, `token-${role}`)
    open.push(made)
    return made
  }
  const patch = (id: number, data: object) => request(host.server).patch(`/api/items/articles/${id}`).send(data).expect(200)
  const statusOf = async (id: number): Promise<string> =>
    (await request(host.server).get(`/api/items/articles/${id}?fields=status`)).body.data.status

  beforeAll(async () => {
    // REST requests act as the admin; socket callers as their token says.
    host = await startRealtimeHost(ctx.knex, {}, { collections: restricted, context: () => ({ role: 'admin' }) })
  })
  afterAll(() => host.close())
  beforeEach(() => ctx.reset())
  afterEach(() => open.splice(0).forEach((each) => each.close()))

  /** A published article and a draft one among the first ten. */
  async function oneOfEach(): Promise<{ published: number; draft: number }> {
    const rows = (await request(host.server).get('/api/items/articles?fields=id,status&filter[id][_lte]=10&sort=id')).body.data as {
      id: number
      status: string
    }[]
    return { published: rows.find((row) => row.status === 'published')!.id, draft: rows.find((row) => row.status === 'draft')!.id }
  }

  it("sends init with the caller's fields and rows only, and never a hidden field", async () => {
    const reader = await client('reader')
    const init = await reader.ask({
      type: 'subscribe',
      collection: 'articles',
      uid: 'a',
      query: { fields: ['*'], filter: { id: { _lte: 10 } } },
    })
    const items = init.data as Record<string, unknown>[]
    expect(items.length).toBeGreaterThan(0)
    for (const item of items) {
      expect(Object.keys(item).sort()).toEqual(['id', 'status', 'title'])
      expect(item.status).toBe('published')
    }
    const authors = await reader.ask({ type: 'subscribe', collection: 'authors', uid: 'b', query: { fields: ['*'], limit: 2 } })
    for (const author of authors.data as Record<string, unknown>[]) expect(author).not.toHaveProperty('password_hash')
    const denied = await reader.ask({ type: 'subscribe', collection: 'articles', uid: 'c', query: { fields: ['rating'] } })
    expect(denied).toMatchObject({ type: 'subscribe', status: 'error', error: { code: 'INVALID_QUERY' }, uid: 'c' })
  })

  it("sends an item leaving the caller's rows as a delete, and one entering them as a create", async () => {
    const { published } = await oneOfEach()
    const reader = await client('reader')
    const admin = await client('admin')
    await reader.ask({
      type: 'subscribe',
      collection: 'articles',
      uid: 'r',
      query: { fields: ['id', 'status'], filter: { id: { _lte: 10 } } },
    })
    await admin.ask({
      type: 'subscribe',
      collection: 'articles',
      uid: 'a',
      query: { fields: ['id', 'status'], filter: { id: { _lte: 10 } } },
    })
    await patch(published, { status: 'draft' })
    expect(await reader.answer('r')).toEqual({ type: 'subscription', event: 'delete', data: [published], uid: 'r' })
    expect(await admin.answer('a')).toEqual({ type: 'subscription', event: 'update', data: [{ id: published, status: 'draft' }], uid: 'a' })
    await patch(published, { status: 'published' })
    expect(await reader.answer('r')).toEqual({
      type: 'subscription',
      event: 'create',
      data: [{ id: published, status: 'published' }],
      uid: 'r',
    })
    expect(await admin.answer('a')).toMatchObject({ event: 'update' })
  })

  it('sends nothing of an item the caller may not read: no update, no delete', async () => {
    const { draft } = await oneOfEach()
    const reader = await client('reader')
    const admin = await client('admin')
    await reader.ask({ type: 'subscribe', collection: 'articles', uid: 'r', query: { filter: { id: { _lte: 10 } } } })
    await admin.ask({ type: 'subscribe', collection: 'articles', uid: 'a', query: { fields: ['id'], filter: { id: { _lte: 10 } } } })
    await patch(draft, { title: 'Still a draft' })
    expect(await admin.answer('a')).toMatchObject({ event: 'update' })
    await request(host.server)
      .delete(`/api/items/comments`)
      .send({ query: { filter: { article: { _eq: draft } }, limit: -1 } })
    await request(host.server)
      .patch(`/api/items/articles`)
      .send({ query: { filter: { parent: { _eq: draft } }, limit: -1 }, data: { parent: null } })
    await request(host.server)
      .delete(`/api/items/article_topics`)
      .send({ query: { filter: { article: { _eq: draft } }, limit: -1 } })
    await request(host.server).delete(`/api/items/articles/${draft}`).expect(204)
    expect(await admin.answer('a')).toEqual({ type: 'subscription', event: 'delete', data: [draft], uid: 'a' })
    expect(await reader.quiet('r')).toEqual([])
  })

  it("sends an item leaving the subscription's own filter as a delete, and one entering it as a create", async () => {
    const admin = await client('admin')
    const init = await admin.ask({
      type: 'subscribe',
      collection: 'articles',
      uid: 'top',
      query: { fields: ['id'], filter: { _and: [{ id: { _lte: 20 } }, { status: { _eq: 'archived' } }] } },
    })
    const inside = (init.data as Frame[]).map((item) => item.id as number)
    expect(inside.length).toBeGreaterThan(0)
    const id = inside[0]!
    await patch(id, { status: 'published' })
    expect(await admin.answer('top')).toEqual({ type: 'subscription', event: 'delete', data: [id], uid: 'top' })
    await patch(id, { status: 'archived' })
    expect(await admin.answer('top')).toEqual({ type: 'subscription', event: 'create', data: [{ id }], uid: 'top' })
    expect(await statusOf(id)).toBe('archived')
  })
})
