// GET /items/:collection?version=KEY lists the items that have a version with that key, each as the version shows it, for callers who may manage versions; to others the key names nothing.
import type { Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'

const authorName = (id: number): string => seed.authors.find((author) => author.id === id)!.name
const article = (id: number) => seed.articles.find((row) => row.id === id)!
/** Authors the drafts switch to: different from each article's own, so a preview that ignored them would fail. */
const draftAuthor = (id: number): number => (article(id).author === 5 ? 6 : 5)

forEachDialect((ctx) => {
  let app: Express
  /** Version ids of the `draft` versions of articles 3 and 1 (created in that order), and of `other` of article 2. */
  const ids: Record<string, number> = {}

  beforeAll(async () => {
    await ctx.reset()
    app = createApp(ctx.knex)
    for (const [item, key, delta] of [
      [3, 'draft', { title: 'Draft of three', author: draftAuthor(3) }],
      [1, 'draft', { title: 'Draft of one', author: draftAuthor(1) }],
      [2, 'other', { title: 'Other of two' }],
    ] as const) {
      const created = await request(app).post('/api/versions').send({ key, collection: 'articles', item })
      expect(created.status).toBe(200)
      ids[`${key}-${item}`] = created.body.data.id as number
      expect((await request(app).post(`/api/versions/${created.body.data.id}/save`).send(delta)).status).toBe(200)
    }
  })

  const list = async (query: string, on: Express = app) => {
    const response = await request(on).get(`/api/items/articles?${query}`)
    expect(response.status).toBe(200)
    return response.body as { data: unknown[]; meta?: unknown }
  }

  it('answers only the items with that version, each as it shows them, with $meta.version_id', async () => {
    expect(await list('version=draft&fields=id,title,author.name&meta=*')).toEqual({
      data: [1, 3].map((id) => ({
        id,
        title: id === 1 ? 'Draft of one' : 'Draft of three',
        author: { name: authorName(draftAuthor(id)) },
        $meta: { version_id: ids[`draft-${id}`] },
      })),
      meta: { total_count: seed.articles.length, filter_count: 2 },
    })
  })

  it('filters, sorts and pages among the main items that have the version', async () => {
    expect((await list('version=draft&fields=title&sort=-id')).data).toEqual([
      { title: 'Draft of three', $meta: { version_id: ids['draft-3'] } },
      { title: 'Draft of one', $meta: { version_id: ids['draft-1'] } },
    ])
    // The filter sees the main item: its own title, not the draft's.
    expect((await list(`version=draft&fields=id&filter[title][_eq]=${encodeURIComponent(article(3).title)}`)).data).toEqual([
      { id: 3, $meta: { version_id: ids['draft-3'] } },
    ])
    expect((await list('version=draft&fields=id&limit=1&offset=1')).data).toEqual([{ id: 3, $meta: { version_id: ids['draft-3'] } }])
  })

  it('leaves the main items unchanged; version=main is the plain list', async () => {
    expect(await list('version=main&fields=id,title&limit=2')).toEqual(await list('fields=id,title&limit=2'))
    expect((await list('fields=title&filter[id][_in]=1,3')).data).toEqual([{ title: article(1).title }, { title: article(3).title }])
  })

  it.each([
    ['an unknown key', 'articles?version=nope'],
    ['a key that differs in case', 'articles?version=DRAFT'],
    ['a collection without versioning', 'authors?version=draft'],
  ])('%s lists nothing', async (_label, path) => {
    expect((await request(app).get(`/api/items/${path}&meta=filter_count`)).body).toEqual({ data: [], meta: { filter_count: 0 } })
  })

  it('a caller who may not manage versions gets what an unknown key gets', async () => {
    const reader = createApp(ctx.knex, {
      collections: { ...collections, articles: { ...collections.articles, access: { read: true, update: { fields: ['title'] } } } },
    })
    const probe = await list('version=draft&fields=id&meta=*', reader)
    expect(probe).toEqual(await list('version=nope&fields=id&meta=*', reader))
    expect(probe).toEqual({ data: [], meta: { total_count: seed.articles.length, filter_count: 0 } })
  })

  it('with aggregate or groupBy is a 400', async () => {
    expectError(await request(app).get('/api/items/articles?version=draft&aggregate[count]=*'), 400, 'INVALID_QUERY')
  })

  it('costs a fixed number of statements, however many items have the version', async () => {
    const { count } = await ctx.countQueries(() => request(app).get('/api/items/articles?version=draft&fields=id,author.name,comments.id'))
    // versions, page keys, page, comments, authors, the delta's authors (once for the page)
    expect(count).toBe(6)
  })
})
