// A client typed from the generated document (openapi-typescript + openapi-fetch) calls the router: its
// requests and answers type-check against fixture-api.d.ts (`npm run typecheck`) and succeed at run time.
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { expectTypeOf } from 'expect-type'
import createClient from 'openapi-fetch'
import qs from 'qs'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import type { components, paths } from './fixture-api'

type Article = components['schemas']['articles.Item']

forEachDialect((ctx) => {
  let server: Server
  let client: ReturnType<typeof createClient<paths>>

  beforeAll(async () => {
    server = createApp(ctx.knex).listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    client = createClient<paths>({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
      // openapi-fetch writes one level of deepObject; filters nest deeper, so qs writes the bracket form the router reads.
      querySerializer: (query) => qs.stringify(query, { arrayFormat: 'brackets', encodeValuesOnly: true }),
    })
  })
  afterAll(() => new Promise((resolve) => server.close(resolve)))
  beforeEach(() => ctx.reset())

  it('lists with a typed filter, sort and fields', async () => {
    const { data, error, response } = await client.GET('/items/articles', {
      params: { query: { fields: ['id', 'title', 'rating'], filter: { rating: { _gte: 4 } }, sort: '-rating', limit: 3 } },
    })
    expect(error).toBeUndefined()
    expect(response.status).toBe(200)
    expectTypeOf(data!.data).toEqualTypeOf<Article[]>()
    const titles: (string | undefined)[] = data!.data.map((article) => article.title)
    expect(titles).toHaveLength(3)
    expect(data!.data.every((article) => (article.rating ?? 0) >= 4)).toBe(true)
  })

  it('creates with a typed payload and reads the item back', async () => {
    const { data, error } = await client.POST('/items/authors', { body: { name: 'Grace', email: 'grace.typed@example.org' } })
    expect(error).toBeUndefined()
    const created = data!.data as components['schemas']['authors.Item']
    expect(created).toMatchObject({ name: 'Grace' })
    const read = await client.GET('/items/authors/{id}', { params: { path: { id: created.id! }, query: { fields: 'name' } } })
    expect(read.data?.data).toEqual({ name: 'Grace' })
  })

  it('sends nested payloads the generated types describe: a one-to-many list or its detailed form, a many-to-one object', async () => {
    const created = await client.POST('/items/authors', {
      body: { name: 'Nested', email: 'nested.typed@example.org', articles: [{ title: 'First nested' }] },
      params: { query: { fields: ['id', 'articles.title'] } },
    })
    expect(created.error).toBeUndefined()
    const author = created.data!.data as { id: number; articles: { title: string }[] }
    expect(author.articles).toEqual([{ title: 'First nested' }])
    const updated = await client.PATCH('/items/authors/{id}', {
      params: { path: { id: author.id }, query: { fields: ['articles.title'] } },
      body: { articles: { create: [{ title: 'Second nested' }], update: [], delete: [] } },
    })
    expect(updated.data?.data).toEqual({ articles: [{ title: 'First nested' }, { title: 'Second nested' }] })
    const comment = await client.POST('/items/comments', {
      body: { body: 'On a new article', article: { title: 'Commented' } },
      params: { query: { fields: ['article.title'] } },
    })
    expect(comment.error).toBeUndefined()
    expect(comment.data?.data).toEqual({ article: { title: 'Commented' } })
    // A child leaves out the foreign key its relation sets, even where the related create schema requires it.
    const article = await client.POST('/items/articles', {
      body: { title: 'With comments', comments: [{ body: 'First comment' }] },
      params: { query: { fields: ['comments.body'] } },
    })
    expect(article.error).toBeUndefined()
    expect(article.data?.data).toEqual({ comments: [{ body: 'First comment' }] })
  })

  it('answers errors in the typed envelope', async () => {
    // @ts-expect-error: the generated types know `name` is required, so the payload does not compile.
    const { error, response } = await client.POST('/items/authors', { body: { email: 'x@example.com' } })
    expect(response.status).toBe(400)
    expectTypeOf(error!).toEqualTypeOf<components['schemas']['Errors']>()
    expect(error!.errors[0]!.extensions.code).toBe('FAILED_VALIDATION')
  })

  it('reads a singleton and promotes a content version with the hash from compare', async () => {
    const settings = await client.GET('/items/settings')
    // Not seeded here: before its row exists the singleton answers a null key and the defaults.
    expect(settings.data?.data).toMatchObject({ id: null, tagline: 'Just another site' })
    const created = await client.POST('/versions', { body: { key: 'draft', collection: 'articles', item: 1 } })
    const id = created.data!.data.id!
    await client.POST('/versions/{id}/save', { params: { path: { id } }, body: { title: 'Typed title' } })
    const compared = await client.GET('/versions/{id}/compare', { params: { path: { id } } })
    const promoted = await client.POST('/versions/{id}/promote', {
      params: { path: { id } },
      body: { mainHash: compared.data!.data.mainHash },
    })
    expect(promoted.data).toEqual({ data: 1 })
  })
})
