// @directus/sdk 18 and 26, unchanged, against a real HTTP server running the router: every SDK function aimed at /items or /versions, on every database.
import * as sdk18 from '@directus/sdk'
import * as sdk26 from 'directus-sdk-26'
import express from 'express'
import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { collections } from '../../fixtures/schema'
import { seed, settingsRow, type ArticleRow, type CommentRow } from '../../fixtures/seed'
import { createItemsRouter } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { createPageTables, dropPageTables, pageCollections, seedPages } from '../support/page-fixtures'

type Body = Record<string, unknown>

const article = (id: number): ArticleRow => seed.articles.find((row) => row.id === id)!
const authorName = (id: number | null): string | null => (id === null ? null : seed.authors.find((row) => row.id === id)!.name)
const commentsOf = (id: number): CommentRow[] => seed.comments.filter((row) => row.article === id)
/** An article as `fields=*` answers it: its columns plus the keys of its one-to-many lists. */
const fullArticle = (id: number): Body => ({
  ...article(id),
  comments: commentsOf(id).map((row) => row.id),
  topics: seed.article_topics.filter((link) => link.article === id).map((link) => link.id),
})
/** The router's order: NULLs first ascending and last descending, the primary key breaking ties. */
const byRatingDesc = (a: ArticleRow, b: ArticleRow): number =>
  (a.rating === null ? 1 : 0) - (b.rating === null ? 1 : 0) || (b.rating ?? 0) - (a.rating ?? 0) || a.id - b.id

/** What the SDK rejects with: our `errors` array, and the fetch Response. */
interface SdkError {
  errors: { message: string; extensions: { code: string } & Body }[]
  response: Response
}
async function rejection(promise: Promise<unknown>): Promise<SdkError> {
  try {
    await promise
  } catch (error) {
    return error as SdkError
  }
  throw new Error('the request did not fail')
}

type Sdk = typeof sdk18
/**
 * The release the project started with and the current one, each as published. 26's function types name the same
 * calls with the same arguments as 18's for everything below; they are compared through 18's so that one body of
 * cases serves both.
 */
const SDKS: ReadonlyArray<[name: string, sdk: Sdk, sendsBacklink: boolean]> = [
  ['@directus/sdk 18', sdk18, true],
  // 26 lists `backlink` among its known query keys but never writes it into the URL (its queryToParams has no
  // branch for it), so the parameter cannot reach any server through it; that one call is left to 18.
  ['@directus/sdk 26', sdk26 as unknown as Sdk, false],
]

async function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api` }
}

forEachDialect((ctx) => {
  let server: Server
  let url: string

  beforeAll(async () => {
    const app = express()
    app.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections, logger: recordingLogger() }))
    const running = await listen(app)
    server = running.server
    url = running.url
  })
  afterAll(async () => {
    // fetch keeps connections alive; close them, or the server would wait for them.
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  })

  describe.each(SDKS)('%s', (_name, sdk, sendsBacklink) => {
    const {
      aggregate,
      compareContentVersion,
      createContentVersion,
      createContentVersions,
      createDirectus,
      createItem,
      createItems,
      deleteContentVersion,
      deleteContentVersions,
      deleteItem,
      deleteItems,
      promoteContentVersion,
      readContentVersion,
      readContentVersions,
      readItem,
      readItems,
      readSingleton,
      rest,
      saveToContentVersion,
      updateContentVersion,
      updateContentVersions,
      updateContentVersionsBatch,
      updateItem,
      updateItems,
      updateItemsBatch,
      updateSingleton,
      withSearch,
    } = sdk
    let client: ReturnType<typeof connect>
    const connect = (at: string) => createDirectus(at).with(rest())
    // The previous SDK's writes and promotes are undone first.
    beforeAll(async () => {
      client = connect(url)
      await ctx.reset()
    })

    describe('readItems', () => {
      it('fields with relations and wildcards', async () => {
        const data = await client.request(
          readItems('articles', {
            fields: ['id', 'title', { author: ['name'] }, { comments: ['id', 'votes'] }],
            filter: { id: { _lte: 3 } },
          }),
        )
        expect(data).toEqual(
          [1, 2, 3].map((id) => ({
            id,
            title: article(id).title,
            author: article(id).author === null ? null : { name: authorName(article(id).author) },
            comments: commentsOf(id).map(({ id: comment, votes }) => ({ id: comment, votes })),
          })),
        )
        const wildcard = await client.request(readItems('articles', { fields: ['*', { author: ['*'] }], limit: 2 }))
        expect(wildcard).toEqual(
          [1, 2].map((id) => {
            const author = seed.authors.find((row) => row.id === article(id).author)
            return {
              ...fullArticle(id),
              author: author
                ? {
                    id: author.id,
                    name: author.name,
                    email: author.email,
                    bio: author.bio,
                    articles: seed.articles.filter((row) => row.author === author.id).map((row) => row.id),
                  }
                : null,
            }
          }),
        )
      })

      it('filter through relations (many-to-one and one-to-many)', async () => {
        const data = await client.request(
          readItems('articles', {
            fields: ['id'],
            filter: { author: { name: { _eq: 'Bob Stone' } }, comments: { votes: { _gt: 90 } } },
            limit: -1,
          }),
        )
        const expected = seed.articles.filter(
          (row) => authorName(row.author) === 'Bob Stone' && commentsOf(row.id).some((c) => c.votes > 90),
        )
        expect(expected.length).toBeGreaterThan(0)
        expect(data).toEqual(expected.map(({ id }) => ({ id })))
      })

      it('filter _null / _nnull on a one-to-many field', async () => {
        const none = await client.request(readItems('articles', { fields: ['id'], filter: { comments: { _null: true } }, limit: -1 }))
        const some = await client.request(readItems('articles', { fields: ['id'], filter: { comments: { _nnull: true } }, limit: -1 }))
        const without = seed.articles.filter((row) => commentsOf(row.id).length === 0).map(({ id }) => ({ id }))
        expect(without.length).toBeGreaterThan(0)
        expect(none).toEqual(without)
        expect(some).toHaveLength(seed.articles.length - without.length)
      })

      it('search, sort, limit and offset', async () => {
        const found = await client.request(readItems('articles', { search: 'bridge', fields: ['id', 'title'], limit: -1 }))
        const matching = seed.articles.filter((row) => row.title.toLowerCase().includes('bridge'))
        expect(matching.length).toBeGreaterThan(0)
        expect(found).toEqual(matching.map(({ id, title }) => ({ id, title })))

        const page = await client.request(readItems('articles', { fields: ['id', 'rating'], sort: ['-rating', 'id'], limit: 5, offset: 5 }))
        expect(page).toEqual(
          [...seed.articles]
            .sort(byRatingDesc)
            .slice(5, 10)
            .map(({ id, rating }) => ({ id, rating })),
        )
      })

      it('page', async () => {
        const data = await client.request(readItems('articles', { fields: ['id'], limit: 10, page: 3 }))
        expect(data).toEqual(Array.from({ length: 10 }, (_, index) => ({ id: 21 + index })))
      })

      it('deep and alias', async () => {
        const data = await client.request(
          readItems('articles', {
            fields: ['id', { comments: ['id', 'votes'] }, { top: ['id'] }],
            filter: { id: { _lte: 4 } },
            alias: { top: 'comments' },
            deep: { top: { _sort: ['-votes', 'id'], _limit: 1 }, comments: { _filter: { votes: { _gte: 50 } } } },
          }),
        )
        expect(data).toEqual(
          [1, 2, 3, 4].map((id) => {
            const comments = commentsOf(id)
            const top = [...comments].sort((a, b) => b.votes - a.votes || a.id - b.id).slice(0, 1)
            return {
              id,
              comments: comments.filter((c) => c.votes >= 50).map(({ id: key, votes }) => ({ id: key, votes })),
              top: top.map(({ id: key }) => ({ id: key })),
            }
          }),
        )
      })

      it('aggregate and groupBy', async () => {
        const data = await client.request(
          readItems('articles', { aggregate: { count: '*', max: ['rating'] }, groupBy: ['status'] } as never),
        )
        const statuses = [...new Set(seed.articles.map((row) => row.status))].sort()
        expect(data).toEqual(
          statuses.map((status) => {
            const rows = seed.articles.filter((row) => row.status === status)
            return { status, count: rows.length, max: { rating: Math.max(...rows.map((row) => row.rating ?? -1)) } }
          }),
        )
      })

      ;(sendsBacklink ? it : it.skip)('backlink=false keeps the relation back to the parent a key', async () => {
        const data = await client.request(
          readItems('articles', { fields: ['id', 'comments.*.*'], filter: { id: { _eq: 1 } }, backlink: false }),
        )
        const comments = (data[0] as Body).comments as Body[]
        expect(comments.map((comment) => comment.id)).toEqual(commentsOf(1).map((row) => row.id))
        for (const comment of comments) expect(comment.article).toBe(1)
        const withAuthor = comments.find((comment) => comment.author !== null)
        expect(withAuthor?.author).toEqual(expect.objectContaining({ name: expect.any(String) }))
      })

      it('meta', async () => {
        const data = await client.request(readItems('articles', { fields: ['id'], limit: 1, meta: 'total_count' } as never))
        // The SDK returns `data` only; the meta request must not change it.
        expect(data).toEqual([{ id: 1 }])
      })
    })

    it('aggregate()', async () => {
      const total = await client.request(aggregate('articles', { aggregate: { count: '*' } }))
      expect(total).toEqual([{ count: seed.articles.length }])
      const filtered = await client.request(
        aggregate('articles', { aggregate: { avg: ['rating'] }, groupBy: ['status'], query: { filter: { status: { _neq: 'draft' } } } }),
      )
      const statuses = [...new Set(seed.articles.map((row) => row.status))].filter((status) => status !== 'draft').sort()
      expect(filtered).toHaveLength(statuses.length)
      filtered.forEach((group, index) => {
        const rated = seed.articles.filter((row) => row.status === statuses[index] && row.rating !== null)
        expect(group).toEqual({ status: statuses[index], avg: { rating: expect.any(Number) } })
        expect((group as unknown as { avg: { rating: number } }).avg.rating).toBeCloseTo(
          rated.reduce((sum, row) => sum + row.rating!, 0) / rated.length,
          10,
        )
      })
    })

    it('withSearch(readItems()) answers as readItems() does', async () => {
      const query = {
        fields: ['id', 'title', { author: ['name'] }],
        filter: { author: { name: { _starts_with: 'A' } } },
        sort: ['-rating', 'id'],
        limit: 7,
        offset: 2,
      }
      const searched = await client.request(withSearch(readItems('articles', query as never)))
      expect(searched).toEqual(await client.request(readItems('articles', query as never)))
      expect(searched).toHaveLength(7)
    })

    it('readItem', async () => {
      expect(await client.request(readItem('articles', 5))).toEqual(fullArticle(5))
      expect(await client.request(readItem('articles', 5, { fields: ['title', { author: ['name'] }] }))).toEqual({
        title: article(5).title,
        author: article(5).author === null ? null : { name: authorName(article(5).author) },
      })
    })

    describe('errors', () => {
      it('a rejected promise carries the errors array and the response', async () => {
        const missing = await rejection(client.request(readItem('articles', 999999)))
        expect(missing.response.status).toBe(404)
        expect(missing.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })])

        const invalid = await rejection(client.request(readItems('articles', { filter: { nope: { _eq: 1 } } } as never)))
        expect(invalid.response.status).toBe(400)
        expect(invalid.errors[0]!.extensions.code).toBe('INVALID_QUERY')
        expect(invalid.errors[0]!.message).toContain('"nope"')

        const payload = await rejection(client.request(createItem('articles', { rating: 'abc' })))
        expect(payload.response.status).toBe(400)
        expect(payload.errors.map((error) => error.extensions.code)).toContain('FAILED_VALIDATION')
      })
    })

    describe('writes', () => {
      beforeEach(() => ctx.reset())
      const titles = (ids: number[]) =>
        ctx.knex('articles').whereIn('id', ids).orderBy('id').select('id', 'title') as Promise<{ id: number; title: string }[]>

      it('createItem and createItems', async () => {
        const one = await client.request(
          createItem('articles', { title: 'Made by the SDK', author: 2 }, { fields: ['id', 'title', 'status'] }),
        )
        const next = seed.articles.length + 1
        expect(one).toEqual({ id: next, title: 'Made by the SDK', status: 'draft' })
        const many = await client.request(createItems('articles', [{ title: 'Second' }, { title: 'Third' }], { fields: ['id', 'title'] }))
        expect(many).toEqual([
          { id: next + 1, title: 'Second' },
          { id: next + 2, title: 'Third' },
        ])
        expect(await titles([next, next + 1, next + 2])).toEqual([
          { id: next, title: 'Made by the SDK' },
          { id: next + 1, title: 'Second' },
          { id: next + 2, title: 'Third' },
        ])
      })

      it('updateItem, updateItems by keys and by query, updateItemsBatch', async () => {
        expect(await client.request(updateItem('articles', 1, { title: 'One' }, { fields: ['id', 'title'] }))).toEqual({
          id: 1,
          title: 'One',
        })
        expect(await client.request(updateItems('articles', [2, 3], { title: 'Two or three' }, { fields: ['id', 'title'] }))).toEqual([
          { id: 2, title: 'Two or three' },
          { id: 3, title: 'Two or three' },
        ])
        const byQuery = await client.request(
          updateItems('articles', { filter: { author: { _eq: 4 } } }, { rating: 1 }, { fields: ['id', 'rating'] }),
        )
        const ofAuthor = seed.articles.filter((row) => row.author === 4).map(({ id }) => ({ id, rating: 1 }))
        expect(byQuery).toEqual(ofAuthor)
        expect(await ctx.knex('articles').where('author', 4).whereNot('rating', 1).count({ n: '*' })).toEqual([{ n: expect.anything() }])
        expect(Number((await ctx.knex('articles').where('author', 4).whereNot('rating', 1).count({ n: '*' }))[0]!.n)).toBe(0)
        const batch = await client.request(
          updateItemsBatch(
            'articles',
            [
              { id: 4, title: 'Four' },
              { id: 5, title: 'Five' },
            ],
            { fields: ['id', 'title'] },
          ),
        )
        expect(batch).toEqual([
          { id: 4, title: 'Four' },
          { id: 5, title: 'Five' },
        ])
        expect(await titles([1, 2, 3, 4, 5])).toEqual([
          { id: 1, title: 'One' },
          { id: 2, title: 'Two or three' },
          { id: 3, title: 'Two or three' },
          { id: 4, title: 'Four' },
          { id: 5, title: 'Five' },
        ])
      })

      it('nested createItem, updateItem, updateItems and updateItemsBatch', async () => {
        const created = await client.request(
          createItem(
            'articles',
            {
              title: 'Nested',
              author: { name: 'New author' },
              comments: [{ body: 'First!' }],
              topics: [{ topic: { name: 'Brand new' } }, { topic: 1 }],
            },
            { fields: ['id', 'title', 'author.name', 'comments.body', 'topics.topic.name'] },
          ),
        )
        expect(created).toEqual({
          id: expect.any(Number),
          title: 'Nested',
          author: { name: 'New author' },
          comments: [{ body: 'First!' }],
          topics: [{ topic: { name: 'Brand new' } }, { topic: { name: seed.topics[0]!.name } }],
        })
        const id = (created as { id: number }).id
        const [first, ...others] = commentsOf(1)
        const updated = await client.request(
          updateItem(
            'articles',
            1,
            { comments: { create: [{ body: 'Added' }], update: [{ id: first!.id, body: 'Edited' }], delete: others.map((row) => row.id) } },
            { fields: ['comments.body'] },
          ),
        )
        // Comments cannot live without their article (article is NOT NULL): the detached ones are deleted.
        expect(updated).toEqual({ comments: [{ body: 'Edited' }, { body: 'Added' }] })
        expect(
          await ctx.knex('comments').whereIn(
            'id',
            others.map((row) => row.id),
          ),
        ).toEqual([])
        const byKeys = await client.request(updateItems('articles', [2, 3], { topics: [{ topic: 2 }] }, { fields: ['id', 'topics.topic'] }))
        expect(byKeys).toEqual([
          { id: 2, topics: [{ topic: 2 }] },
          { id: 3, topics: [{ topic: 2 }] },
        ])
        const batch = await client.request(
          updateItemsBatch(
            'articles',
            [
              { id, author: { id: 1, name: 'Renamed by a nested write' } },
              { id: 4, comments: [] },
            ],
            { fields: ['id', 'author', 'comments'] },
          ),
        )
        expect(batch).toEqual([
          { id, author: 1, comments: [expect.any(Number)] },
          { id: 4, author: article(4).author, comments: [] },
        ])
        expect(await ctx.knex('authors').where('id', 1).first('name')).toEqual({ name: 'Renamed by a nested write' })
        const refused = await rejection(client.request(createItem('articles', { title: 'Bad', comments: [{ body: 'ok' }, { nosuch: 1 }] })))
        expect(refused.response.status).toBe(400)
        expect(refused.errors[0]!.extensions).toMatchObject({ code: 'FAILED_VALIDATION', field: 'nosuch', path: ['comments', 1] })
      })

      it('deleteItem, deleteItems by keys and by query', async () => {
        await client.request(deleteItem('comments', 1))
        await client.request(deleteItems('comments', [2, 3]))
        await client.request(deleteItems('comments', { filter: { votes: { _lt: 10 } } }))
        const left = (await ctx.knex('comments').select('id').orderBy('id')).map((row: { id: number }) => row.id)
        expect(left).toEqual(seed.comments.filter((row) => row.id > 3 && row.votes >= 10).map((row) => row.id))
      })

      it('readSingleton and updateSingleton', async () => {
        expect(await client.request(readSingleton('settings'))).toEqual({ id: null, tagline: 'Just another site', items_per_page: 10 })
        expect(await client.request(updateSingleton('settings', { site_name: 'Mine' }))).toEqual({
          id: 1,
          site_name: 'Mine',
          tagline: 'Just another site',
          items_per_page: 10,
        })
        await ctx.reset({ settings: true })
        expect(await client.request(readSingleton('settings', { fields: ['site_name'] }))).toEqual({ site_name: settingsRow.site_name })
        await client.request(updateSingleton('settings', { tagline: 'Changed' }))
        expect(await ctx.knex('settings').select('site_name', 'tagline')).toEqual([
          { site_name: settingsRow.site_name, tagline: 'Changed' },
        ])
      })
    })

    describe('content versions', () => {
      beforeAll(() => ctx.reset())
      let id: string
      let mainHash: string

      it('createContentVersion, readContentVersion(s), updateContentVersion', async () => {
        const created = (await client.request(
          createContentVersion({ key: 'draft', name: 'Draft', collection: 'articles', item: '1' }),
        )) as Body
        expect(created).toEqual(expect.objectContaining({ key: 'draft', name: 'Draft', collection: 'articles', item: '1', delta: null }))
        // Directus's version ids are UUID strings, ours integers: the SDK's types take strings, the path is the same.
        id = String(created.id)
        expect(await client.request(readContentVersion(id))).toEqual(created)
        expect(await client.request(readContentVersions({ filter: { collection: { _eq: 'articles' } }, fields: ['id', 'key'] }))).toEqual([
          { id: Number(id), key: 'draft' },
        ])
        expect(await client.request(updateContentVersion(id, { name: 'Renamed' }))).toEqual(
          expect.objectContaining({ id: Number(id), name: 'Renamed' }),
        )
      })

      it('saveToContentVersion, then readItem and readItems with version', async () => {
        const saved = (await client.request(saveToContentVersion(id, { title: 'Drafted', author: 3 }))) as Body
        expect(saved).toEqual({ ...fullArticle(1), title: 'Drafted', author: 3 })
        expect(await client.request(readItem('articles', 1, { version: 'draft', fields: ['id', 'title', { author: ['name'] }] }))).toEqual({
          id: 1,
          title: 'Drafted',
          author: { name: authorName(3) },
          $meta: { version_id: Number(id) },
        })
        expect(await client.request(readItems('articles', { version: 'draft', fields: ['title'] } as never))).toEqual([
          { title: 'Drafted', $meta: { version_id: Number(id) } },
        ])
        expect(await client.request(readItem('articles', 1, { fields: ['title'] }))).toEqual({ title: article(1).title })
      })

      it('compareContentVersion and promoteContentVersion', async () => {
        const compared = (await client.request(compareContentVersion(id))) as Body
        expect(compared).toEqual({
          outdated: false,
          mainHash: expect.any(String),
          current: { title: 'Drafted', author: 3 },
          main: fullArticle(1),
        })
        mainHash = compared.mainHash as string
        expect(await client.request(promoteContentVersion(id, mainHash, ['title']))).toBe(1)
        expect(await ctx.knex('articles').where('id', 1).select('title', 'author')).toEqual([
          { title: 'Drafted', author: article(1).author },
        ])
      })

      it('deleteContentVersion', async () => {
        await client.request(deleteContentVersion(id))
        expect(
          await ctx
            .knex('items_versions')
            .count({ n: '*' })
            .then((rows) => Number(rows[0]!.n)),
        ).toBe(0)
      })

      it('createContentVersions, updateContentVersions, updateContentVersionsBatch and deleteContentVersions', async () => {
        const created = (await client.request(
          createContentVersions([
            { key: 'a', collection: 'articles', item: '2' },
            { key: 'b', collection: 'articles', item: '3' },
          ]),
        )) as Body[]
        expect(created.map((version) => [version.key, version.item])).toEqual([
          ['a', '2'],
          ['b', '3'],
        ])
        const keys = created.map((version) => String(version.id))
        const renamed = (await client.request(updateContentVersions(keys, { name: 'Both' }))) as Body[]
        expect(renamed.map((version) => [String(version.id), version.name])).toEqual(keys.map((key) => [key, 'Both']))
        const batch = (await client.request(
          updateContentVersionsBatch([
            { id: keys[0]!, name: 'First' },
            { id: keys[1]!, key: 'b2' },
          ]),
        )) as Body[]
        expect(batch.map((version) => [version.key, version.name])).toEqual([
          ['a', 'First'],
          ['b2', 'Both'],
        ])
        await client.request(deleteContentVersions(keys))
        expect(
          await ctx
            .knex('items_versions')
            .count({ n: '*' })
            .then((rows) => Number(rows[0]!.n)),
        ).toBe(0)
      })
    })
  })
})

// A page builder (a many-to-any) through the SDK: its object form of `fields` for one collection of the item
// (`{ item: { block_text: [...] } }`, sent as `item:block_text.text`), and nested writes of junction rows.
forEachDialect((ctx) => {
  describe.each(SDKS)('%s: many-to-any', (_name, sdk) => {
    let server: Server
    let client: ReturnType<typeof connect>
    const connect = (at: string) => sdk.createDirectus(at).with(sdk.rest())
    beforeAll(async () => {
      await createPageTables(ctx.knex)
      await seedPages(ctx.knex)
      const app = express()
      app.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: pageCollections, logger: recordingLogger() }))
      const running = await listen(app)
      server = running.server
      client = connect(running.url)
    })
    afterAll(async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
      await dropPageTables(ctx.knex)
    })

    it('reads items of one collection or of each, and writes blocks with createItem, updateItem and updateItems', async () => {
      const fields = ['id', { blocks: ['collection', { item: { block_text: ['text'], block_hero: ['title'] } }] }]
      expect(await client.request(sdk.readItem('pages', 1, { fields } as never))).toEqual({
        id: 1,
        blocks: [
          { collection: 'block_text', item: { text: 'Welcome' } },
          { collection: 'block_hero', item: { title: 'Big' } },
          { collection: 'block_text', item: { text: 'Read on' } },
        ],
      })
      const created = (await client.request(
        sdk.createItem(
          'pages',
          {
            title: 'From the SDK',
            blocks: [
              { collection: 'block_text', item: { text: 'Hello' } },
              { collection: 'block_hero', item: 2 },
            ],
          },
          { fields: ['id', 'blocks.item:block_text.text', 'blocks.item:block_hero.title'] },
        ),
      )) as { id: number; blocks: unknown[] }
      expect(created.blocks).toEqual([{ item: { text: 'Hello' } }, { item: { title: 'Team' } }])
      const updated = await client.request(
        sdk.updateItem(
          'pages',
          created.id,
          { blocks: { create: [{ collection: 'block_hero', item: { title: 'Added' } }], delete: [] } },
          { fields: ['blocks.item.*'] },
        ),
      )
      expect((updated as { blocks: unknown[] }).blocks).toHaveLength(3)
      const byKeys = await client.request(
        sdk.updateItems('pages', [1, 2], { blocks: [{ collection: 'block_text', item: 3 }] }, { fields: ['id', 'blocks.item'] }),
      )
      expect(byKeys).toEqual([
        { id: 1, blocks: [{ item: '3' }] },
        { id: 2, blocks: [{ item: '3' }] },
      ])
      const refused = await rejection(
        client.request(sdk.createItem('pages', { title: 'Bad', blocks: [{ collection: 'block_note', item: 1 }] })),
      )
      expect(refused.response.status).toBe(400)
      expect(refused.errors[0]!.extensions).toMatchObject({ code: 'INVALID_PAYLOAD', path: ['blocks', 0, 'collection'] })
    })
  })
})
