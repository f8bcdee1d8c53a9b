// Access rules: the caller's context, defaultAccess, each kind of entry, and what read / create / update / delete rules
// (filters, fields, presets, validation, variables) let a caller see and change, on every database.
import type { Express, Request } from 'express'
import request from 'supertest'
import { collections, type FixtureCollection } from '../../fixtures/schema'
import { seed, settingsRow, type ArticleRow, type CommentRow } from '../../fixtures/seed'
import {
  ConfigError,
  ForbiddenError,
  ItemsError,
  type Access,
  type AccessEntry,
  type CollectionDefinition,
  type ErrorCode,
  type ItemsContext,
  type ItemsRouterOptions,
} from '../../lib'
import { createApp, recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError, getInvalidQuery } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

/** Specs describe the caller in this header; the apps' `context` option reads it back. */
const CONTEXT_HEADER = 'x-items-context'
const contextFromHeader = (req: Request): ItemsContext => JSON.parse(req.get(CONTEXT_HEADER) ?? '{}') as ItemsContext

type Rules = Partial<Record<FixtureCollection, Access>>

/** The fixture collections with these `access` entries added. */
function withAccess(rules: Rules): Record<string, CollectionDefinition> {
  return Object.fromEntries(
    Object.entries(collections).map(([name, definition]) => {
      const access = rules[name as FixtureCollection]
      return [name, access === undefined ? definition : { ...definition, access }]
    }),
  )
}

/** Requests on behalf of one caller. */
function caller(app: Express, context: ItemsContext = {}) {
  const header = JSON.stringify(context)
  return {
    get: (url: string) => request(app).get(url).set(CONTEXT_HEADER, header),
    post: (url: string, body: object) => request(app).post(url).set(CONTEXT_HEADER, header).send(body),
    patch: (url: string, body: object) => request(app).patch(url).set(CONTEXT_HEADER, header).send(body),
    delete: (url: string, body?: object) => {
      const test = request(app).delete(url).set(CONTEXT_HEADER, header)
      return body === undefined ? test : test.send(body)
    },
  }
}

const FORBIDDEN = { errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }] }
const INTERNAL = {
  errors: [{ message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } }],
}

/** The 404 of a write naming a key the caller cannot see (or that does not exist). */
const notFound = (collection: string, key: number) => ({
  errors: [{ message: `Item "${key}" not found in "${collection}".`, extensions: { code: 'NOT_FOUND', collection, keys: [key] } }],
})

/** The error a payload field the caller may not write gets (the same as an unknown field). */
const unwritable = (collection: string, field: string, item?: number) => ({
  message: `Field "${field}" does not exist or cannot be written.`,
  extensions: { code: 'FAILED_VALIDATION', field, type: 'additionalProperties', collection, ...(item === undefined ? {} : { item }) },
})

/** The error one broken validation condition gets. */
const broken = (collection: string, field: string, operator: string, item?: number) => ({
  message: `Field "${field}" does not satisfy the "${operator}" rule.`,
  extensions: { code: 'FAILED_VALIDATION', field, type: operator, collection, ...(item === undefined ? {} : { item }) },
})

/** A response body with every occurrence of one name replaced, to compare a refusal with an unknown name's. */
const renamed = (body: unknown, from: string, to: string): unknown => JSON.parse(JSON.stringify(body).split(from).join(to))

const articleIds = (predicate: (row: ArticleRow) => boolean): number[] => seed.articles.filter(predicate).map((row) => row.id)
const commentIds = (predicate: (row: CommentRow) => boolean): number[] => seed.comments.filter(predicate).map((row) => row.id)
const ALL_ARTICLES = articleIds(() => true)
const PUBLISHED = articleIds((row) => row.status === 'published')
const TOPIC_IDS = seed.topics.map((row) => row.id)

function first(ids: readonly number[], what: string): number {
  if (ids.length === 0) throw new Error(`the seed has no ${what}`)
  return ids[0]!
}

/** The ids a 200 list answers, in order. */
async function idsOf(test: request.Test): Promise<number[]> {
  const response = await test
  expect({ status: response.status, errors: response.body.errors }).toEqual({ status: 200, errors: undefined })
  return (response.body.data as Array<{ id: number }>).map((row) => row.id)
}

const ARTICLE_LIST = '/api/items/articles?fields=id&limit=-1&sort=id'
const TOPIC_LIST = '/api/items/topics?fields=id&limit=-1&sort=id'

forEachDialect((ctx) => {
  const appWith = (rules: Rules, options: Partial<ItemsRouterOptions> = {}): Express =>
    createApp(ctx.knex, { collections: withAccess(rules), context: contextFromHeader, ...options })

  /** One article's stored values, read behind the API's back. */
  const storedArticle = async (id: number): Promise<Record<string, unknown> | undefined> =>
    ctx.knex('articles').where({ id }).first('id', 'title', 'status', 'rating', 'author')
  const storedIds = async (table: string, where: Record<string, unknown> = {}): Promise<number[]> =>
    (await ctx.knex(table).where(where).orderBy('id').pluck('id')).map(Number)

  describe('context', () => {
    const ownArticles: Rules = { articles: { read: { filter: { author: { _eq: '$CURRENT_USER' } } } } }

    it('takes the caller from a sync context', async () => {
      const app = appWith(ownArticles, { context: () => ({ user: 3 }) })
      expect(await idsOf(request(app).get(ARTICLE_LIST))).toEqual(articleIds((row) => row.author === 3))
    })

    it('takes the caller from an async context', async () => {
      const app = appWith(ownArticles, {
        context: async () => {
          await new Promise((resolve) => setImmediate(resolve))
          return { user: 5 }
        },
      })
      expect(await idsOf(request(app).get(ARTICLE_LIST))).toEqual(articleIds((row) => row.author === 5))
    })

    it('is called once per request with the request, and its answer reaches the rule functions', async () => {
      const given: ItemsContext = { user: 3, tenant: 'acme' }
      const requests: string[] = []
      const seen: ItemsContext[] = []
      const app = appWith(
        {
          articles: {
            read: (context) => {
              seen.push(context)
              return true
            },
            update: true,
          },
        },
        {
          context: (req) => {
            requests.push(String(req.get('x-probe')))
            return given
          },
        },
      )
      const read = await request(app).get('/api/items/articles/1?fields=id,author.name,comments.id').set('x-probe', 'read')
      expect(read.status).toBe(200)
      expect(requests).toEqual(['read'])
      expect(seen).toHaveLength(1)
      expect(seen[0]).toBe(given)
      expectError(await request(app).patch('/api/items/articles/99999').set('x-probe', 'write').send({ title: 'x' }), 404, 'NOT_FOUND')
      expect(requests).toEqual(['read', 'write'])
    })

    it('callers whose functions answer other plain true/false each read through their own view, in any order', async () => {
      // Read access from booleans alone is built once per pattern and shared: a pattern must never leak to another.
      const app = appWith({
        articles: { read: (context) => context.role !== 'none' },
        authors: { read: (context) => context.role === 'editor' },
      })
      const url = '/api/items/articles/1?fields=id,author.name'
      const editor = caller(app, { role: 'editor' })
      const reader = caller(app, { role: 'reader' })
      const none = caller(app, { role: 'none' })
      for (let round = 0; round < 2; round++) {
        expect((await editor.get(url)).body).toEqual({ data: { id: 1, author: { name: expect.any(String) } } })
        expectError(await reader.get(url), 400, 'INVALID_QUERY')
        expect((await reader.get('/api/items/articles/1?fields=id,author')).body).toEqual({ data: { id: 1, author: expect.any(Number) } })
        expectError(await none.get(url), 403, 'FORBIDDEN')
      }
    })

    it('answers an ItemsError thrown by the context with that error, unlogged, and writes nothing', async () => {
      const logger = recordingLogger()
      const app = appWith(
        {},
        {
          logger,
          context: () => {
            throw new ForbiddenError()
          },
        },
      )
      const read = await request(app).get('/api/items/topics')
      expect(read.status).toBe(403)
      expect(read.body).toEqual(FORBIDDEN)
      const write = await request(app).post('/api/items/topics').send({ name: 'Never' })
      expect(write.status).toBe(403)
      expect(write.body).toEqual(FORBIDDEN)
      expect(await rowCount(ctx, 'topics', { name: 'Never' })).toBe(0)
      expect(logger.errors).toEqual([])
    })

    it('answers an ItemsError rejected by an async context with its message and extensions', async () => {
      const logger = recordingLogger()
      const app = appWith(
        {},
        { logger, context: () => Promise.reject(new ItemsError('FORBIDDEN', 'Token expired.', { reason: 'expired' })) },
      )
      const response = await request(app).get('/api/items/topics/1')
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ errors: [{ message: 'Token expired.', extensions: { code: 'FORBIDDEN', reason: 'expired' } }] })
      expect(logger.errors).toEqual([])
    })

    it('answers any other error thrown by the context with a logged 500', async () => {
      const logger = recordingLogger()
      const boom = new Error('session store down')
      const app = appWith(
        {},
        {
          logger,
          context: () => {
            throw boom
          },
        },
      )
      const response = await request(app).get('/api/items/topics')
      expect(response.status).toBe(500)
      expect(response.body).toEqual(INTERNAL)
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(boom)
    })

    it('gives every variable as absent without a context option', async () => {
      const seen: ItemsContext[] = []
      const app = createApp(ctx.knex, {
        collections: withAccess({
          articles: {
            read: (context) => {
              seen.push(context)
              return { filter: { author: { _eq: '$CURRENT_USER' } } }
            },
          },
        }),
      })
      expect(await idsOf(request(app).get(ARTICLE_LIST))).toEqual([])
      expect(seen).toEqual([{}])
      expect(await idsOf(request(app).get('/api/items/topics?fields=id&filter[name][_eq]=$CURRENT_ROLE'))).toEqual([])
    })
  })

  describe('defaultAccess', () => {
    it.each<[string, Partial<ItemsRouterOptions>]>([
      ['left out', {}],
      ['true', { defaultAccess: true }],
    ])('%s: collections without access allow every action', async (_label, options) => {
      const app = appWith({}, options)
      const as = caller(app)
      expect(await idsOf(as.get('/api/items/authors?fields=id&limit=-1&sort=id'))).toEqual(seed.authors.map((row) => row.id))
      expect((await as.get('/api/items/articles/7?fields=id,title')).body).toEqual({ data: { id: 7, title: 'Über alles' } })
      // Allowed writes get past access: a missing key is a 404, an empty create a validation error.
      expectError(await as.patch('/api/items/topics/999', { name: 'x' }), 404, 'NOT_FOUND')
      expectError(await as.delete('/api/items/topics/999'), 404, 'NOT_FOUND')
      expectError(await as.post('/api/items/topics', {}), 400, 'FAILED_VALIDATION')
    })

    describe('false', () => {
      let app: Express
      beforeAll(async () => {
        await ctx.reset({ settings: true })
        app = appWith({ topics: { read: true, update: true } }, { defaultAccess: false })
      })

      it.each<[string, (as: ReturnType<typeof caller>) => request.Test]>([
        ['GET list', (as) => as.get('/api/items/authors')],
        ['GET by key', (as) => as.get('/api/items/authors/1')],
        ['POST', (as) => as.post('/api/items/authors', { name: 'New' })],
        ['POST array', (as) => as.post('/api/items/authors', [{ name: 'New' }])],
        ['PATCH by key', (as) => as.patch('/api/items/authors/1', { name: 'Renamed' })],
        ['PATCH keys', (as) => as.patch('/api/items/authors', { keys: [1], data: { name: 'Renamed' } })],
        ['PATCH query', (as) => as.patch('/api/items/authors', { query: { limit: -1 }, data: { name: 'Renamed' } })],
        ['DELETE by key', (as) => as.delete('/api/items/authors/18')],
        ['DELETE query', (as) => as.delete('/api/items/authors', { query: { limit: 1 } })],
        ['GET singleton', (as) => as.get('/api/items/settings')],
        ['PATCH singleton', (as) => as.patch('/api/items/settings', { site_name: 'Renamed' })],
      ])('denies %s on a collection without access with 403, writing nothing', async (_label, send) => {
        const response = await send(caller(app))
        expect(response.status).toBe(403)
        expect(response.body).toEqual(FORBIDDEN)
        expect(await storedIds('authors')).toEqual(seed.authors.map((row) => row.id))
        expect(await ctx.knex('authors').where({ id: 1 }).first('name')).toEqual({ name: seed.authors[0]!.name })
        expect(await ctx.knex('settings').select('site_name')).toEqual([{ site_name: settingsRow.site_name }])
      })

      it('lets a collection with its own access work, within it', async () => {
        const as = caller(app)
        expect(await idsOf(as.get(TOPIC_LIST))).toEqual(TOPIC_IDS)
        expectError(await as.patch('/api/items/topics/999', { name: 'x' }), 404, 'NOT_FOUND')
        expect((await as.post('/api/items/topics', { name: 'x' })).body).toEqual(FORBIDDEN)
        expect((await as.delete('/api/items/topics/999')).body).toEqual(FORBIDDEN)
      })
    })

    describe('an Access object', () => {
      let app: Express
      beforeAll(() => {
        app = appWith({ articles: { read: { fields: ['title', 'author'] } } }, { defaultAccess: { read: true, update: true } })
      })

      it('applies to every collection without its own access', async () => {
        const as = caller(app)
        expect(await idsOf(as.get('/api/items/authors?fields=id&limit=-1&sort=id'))).toEqual(seed.authors.map((row) => row.id))
        expect(await idsOf(as.get(TOPIC_LIST))).toEqual(TOPIC_IDS)
        expectError(await as.patch('/api/items/topics/999', { name: 'x' }), 404, 'NOT_FOUND')
        expectError(await as.patch('/api/items/authors/999', { bio: 'x' }), 404, 'NOT_FOUND')
        expect((await as.post('/api/items/authors', { name: 'New' })).body).toEqual(FORBIDDEN)
        expect((await as.delete('/api/items/topics/999')).body).toEqual(FORBIDDEN)
        expect(await rowCount(ctx, 'authors')).toBe(seed.authors.length)
      })

      it('does not apply to a collection with its own access, which reaches the others through relations', async () => {
        const as = caller(app)
        const article = await as.get('/api/items/articles/7?fields=*,author.name,author.email')
        expect(article.body).toEqual({
          data: { id: 7, title: 'Über alles', author: { name: seed.authors[0]!.name, email: seed.authors[0]!.email } },
        })
        expectError(await as.get('/api/items/articles/7?fields=rating'), 400, 'INVALID_QUERY')
        expect((await as.patch('/api/items/articles/99999', { title: 'x' })).body).toEqual(FORBIDDEN)
      })

      it('is checked against every collection it applies to when the router is created', () => {
        expect(() => appWith({}, { defaultAccess: { read: { fields: ['id', 'name'] } } })).toThrow(
          'options.defaultAccess.read.fields names unknown field "name" [CONFIG_BAD_ACCESS]',
        )
      })
    })
  })

  describe('access entries', () => {
    type Action = 'create' | 'update' | 'delete'
    const actions: Action[] = ['create', 'update', 'delete']
    const attempt: Record<Action, (as: ReturnType<typeof caller>) => request.Test> = {
      create: (as) => as.post('/api/items/topics', {}),
      update: (as) => as.patch('/api/items/topics/999', { name: 'x' }),
      delete: (as) => as.delete('/api/items/topics/999'),
    }
    // An allowed write gets past access and fails on its own terms; none of these writes anything.
    const allowedAnswer: Record<Action, [number, ErrorCode]> = {
      create: [400, 'FAILED_VALIDATION'],
      update: [404, 'NOT_FOUND'],
      delete: [404, 'NOT_FOUND'],
    }
    /** The same entry for every action. */
    const everyAction = (entry: AccessEntry): Access => ({ read: entry, create: entry, update: entry, delete: entry })

    it.each<[string, AccessEntry, ItemsContext, number[]]>([
      ['true', true, {}, TOPIC_IDS],
      ['an empty rule', {}, {}, TOPIC_IDS],
      ['a rule', { filter: { id: { _lte: 3 } } }, {}, [1, 2, 3]],
      ['a sync function answering true', (context) => context.role === 'admin', { role: 'admin' }, TOPIC_IDS],
      ['a sync function answering a rule', (context) => ({ filter: { id: { _eq: context.user } } }), { user: 4 }, [4]],
      ['an async function answering true', async (context) => context.role === 'admin', { role: 'admin' }, TOPIC_IDS],
      [
        'an async function answering a rule',
        async () => {
          await new Promise((resolve) => setImmediate(resolve))
          return { filter: { id: { _gt: 6 } } }
        },
        {},
        [7, 8],
      ],
    ])('every action allowed by %s', async (_label, entry, context, readable) => {
      const as = caller(appWith({ topics: everyAction(entry) }), context)
      expect(await idsOf(as.get(TOPIC_LIST))).toEqual(readable)
      const shown = readable[0]!
      expect((await as.get(`/api/items/topics/${shown}?fields=id,name`)).body).toEqual({
        data: { id: shown, name: seed.topics[shown - 1]!.name },
      })
      for (const action of actions) {
        const [status, code] = allowedAnswer[action]
        expectError(await attempt[action](as), status, code)
      }
    })

    it.each<[string, Access, ItemsContext]>([
      ['false', everyAction(false), {}],
      ['a sync function answering false', everyAction((context) => context.role === 'admin'), { role: 'guest' }],
      ['an async function answering false', everyAction(async () => false), {}],
      ['being left out', {}, {}],
    ])('every action denied by %s answers 403', async (_label, access, context) => {
      const as = caller(appWith({ topics: access }), context)
      for (const [what, test] of [
        ['list', as.get(TOPIC_LIST)],
        ['read', as.get('/api/items/topics/1')],
        ...actions.map((action) => [action, attempt[action](as)] as const),
      ] as const) {
        const response = await test
        expect({ what, status: response.status, body: response.body }).toEqual({ what, status: 403, body: FORBIDDEN })
      }
    })

    it('denies the actions a partial access leaves out', async () => {
      const as = caller(appWith({ topics: { read: true, update: true } }))
      expect(await idsOf(as.get(TOPIC_LIST))).toEqual(TOPIC_IDS)
      expectError(await attempt.update(as), 404, 'NOT_FOUND')
      expect((await attempt.create(as)).body).toEqual(FORBIDDEN)
      expect((await attempt.delete(as)).body).toEqual(FORBIDDEN)
    })
  })

  describe('read rules: fields', () => {
    let narrow: Express
    let open: Express
    beforeAll(() => {
      narrow = appWith({ articles: { read: { fields: ['title', 'status'] } } })
      open = appWith({})
    })

    it('answers only the readable fields and the primary key for *, and for no fields at all', async () => {
      const expected = seed.articles.slice(0, 3).map(({ id, title, status }) => ({ id, title, status }))
      expect((await request(narrow).get('/api/items/articles?limit=3&sort=id&fields=*')).body).toEqual({ data: expected })
      expect((await request(narrow).get('/api/items/articles?limit=3&sort=id')).body).toEqual({ data: expected })
      const { title, status } = seed.articles[4]!
      expect((await request(narrow).get('/api/items/articles/5')).body).toEqual({ data: { id: 5, title, status } })
    })

    it('always lets the primary key be read, filtered and sorted', async () => {
      const response = await request(narrow).get('/api/items/articles?fields=id&filter[id][_lte]=3&sort=-id')
      expect(response.body).toEqual({ data: [{ id: 3 }, { id: 2 }, { id: 1 }] })
    })

    it('answers through a relation only the readable fields', async () => {
      const comment = seed.comments[0]!
      const article = seed.articles[comment.article - 1]!
      const response = await request(narrow).get(`/api/items/comments/${comment.id}?fields=id,article.*`)
      expect(response.body).toEqual({ data: { id: comment.id, article: { id: article.id, title: article.title, status: article.status } } })
    })

    it.each<[string, string, string]>([
      ['fields', 'articles', 'fields=id,NAME'],
      ['filter', 'articles', 'filter[NAME][_eq]=1'],
      ['filter through _or', 'articles', 'filter[_or][0][NAME][_eq]=1&filter[_or][1][id][_eq]=1'],
      ['sort', 'articles', 'sort=-NAME'],
      ['aggregate', 'articles', 'aggregate[max]=NAME'],
      ['groupBy', 'articles', 'groupBy=NAME&aggregate[count]=*'],
      ['alias', 'articles', 'fields=id,renamed&alias[renamed]=NAME'],
      ['a relational field path', 'comments', 'fields=id,article.NAME'],
      ['a relational filter', 'comments', 'filter[article][NAME][_eq]=1'],
      ['a relational sort', 'comments', 'sort=article.NAME'],
      ['a deep filter', 'authors', 'fields=id,articles.id&deep[articles][_filter][NAME][_eq]=1'],
      ['an o2m filter', 'authors', 'filter[articles][_some][NAME][_eq]=1'],
    ])('refuses an unreadable field in %s exactly like an unknown field', async (_label, collection, query) => {
      const url = (name: string): string => `/api/items/${collection}?${query.split('NAME').join(name)}`
      const refused = await getInvalidQuery(ctx, narrow, url('rating'), ['"articles"'])
      const unknown = await getInvalidQuery(ctx, open, url('nope'), ['"articles"'])
      // getInvalidQuery checks the whole body around the reason, so equal reasons mean equal responses.
      expect(refused).toBe(unknown.split('nope').join('rating'))
    })

    it.each<[string]>([['fields=rating'], ['filter[rating][_eq]=1']])('names the field as missing: %s', async (query) => {
      const reason = await getInvalidQuery(ctx, narrow, `/api/items/articles?${query}`, [])
      expect(reason).toBe('Field "rating" does not exist in collection "articles"')
    })

    it('still reads the field for a caller whose rule allows it', async () => {
      const response = await request(open).get('/api/items/articles/5?fields=rating')
      expect(response.body).toEqual({ data: { rating: seed.articles[4]!.rating } })
    })
  })

  describe('read rules: filter', () => {
    let app: Express
    beforeAll(() => {
      app = appWith({ articles: { read: { filter: { status: { _eq: 'published' } } } } })
    })

    it('leaves rows outside it out of lists', async () => {
      expect(await idsOf(request(app).get(ARTICLE_LIST))).toEqual(PUBLISHED)
      expect(await idsOf(request(app).get(`${ARTICLE_LIST}&filter[status][_neq]=published`))).toEqual([])
    })

    it('answers 404 for a row outside it, as for a missing one', async () => {
      const draft = first(
        articleIds((row) => row.status === 'draft'),
        'draft',
      )
      const hidden = await request(app).get(`/api/items/articles/${draft}`)
      const missing = await request(app).get('/api/items/articles/99999')
      expectError(hidden, 404, 'NOT_FOUND')
      expect(hidden.body).toEqual(missing.body)
      const shown = first(PUBLISHED, 'published article')
      expect((await request(app).get(`/api/items/articles/${shown}?fields=id,status`)).body).toEqual({
        data: { id: shown, status: 'published' },
      })
    })

    it('counts only rows inside it in meta and aggregates', async () => {
      const response = await request(app).get('/api/items/articles?limit=0&meta=*&filter[rating][_eq]=5')
      const rated5 = seed.articles.filter((row) => row.status === 'published' && row.rating === 5).length
      expect(response.body).toEqual({ data: [], meta: { total_count: PUBLISHED.length, filter_count: rated5 } })
      const count = await request(app).get('/api/items/articles?aggregate[count]=*')
      expect(count.body).toEqual({ data: [{ count: PUBLISHED.length }] })
    })
  })

  describe('variables', () => {
    let byUser: Express
    let byProperty: Express
    let byRole: Express
    let open: Express
    beforeAll(() => {
      byUser = appWith({ articles: { read: { filter: { author: { _eq: '$CURRENT_USER' } } } } })
      byProperty = appWith({ articles: { read: { filter: { author: { _eq: '$CURRENT_USER.buddy' } } } } })
      byRole = appWith({ articles: { read: { filter: { status: { _eq: '$CURRENT_ROLE' } } } } })
      open = appWith({})
    })
    const byAuthor = (author: number): number[] => articleIds((row) => row.author === author)

    it('$CURRENT_USER is a scalar user', async () => {
      expect(await idsOf(caller(byUser, { user: 3 }).get(ARTICLE_LIST))).toEqual(byAuthor(3))
    })

    it('$CURRENT_USER is the id of an object user', async () => {
      expect(await idsOf(caller(byUser, { user: { id: 4, buddy: 2 } }).get(ARTICLE_LIST))).toEqual(byAuthor(4))
    })

    it('$CURRENT_USER.<prop> is a property of an object user', async () => {
      expect(await idsOf(caller(byProperty, { user: { id: 4, buddy: 2 } }).get(ARTICLE_LIST))).toEqual(byAuthor(2))
    })

    it('$CURRENT_ROLE is the role', async () => {
      expect(await idsOf(caller(byRole, { role: 'archived' }).get(ARTICLE_LIST))).toEqual(articleIds((row) => row.status === 'archived'))
    })

    it.each<[string, () => Express, ItemsContext]>([
      ['no user', () => byUser, {}],
      ['a null user', () => byUser, { user: null }],
      ['an object user without id', () => byUser, { user: { buddy: 2 } }],
      ['an object user with a null id', () => byUser, { user: { id: null } }],
      ['a scalar user for $CURRENT_USER.<prop>', () => byProperty, { user: 2 }],
      ['an object user without the property', () => byProperty, { user: { id: 2 } }],
      ['no role', () => byRole, { user: 2 }],
    ])('an absent variable in a rule matches no row: %s', async (_label, app, context) => {
      expect(await idsOf(caller(app(), context).get(ARTICLE_LIST))).toEqual([])
      const counted = await caller(app(), context).get('/api/items/articles?limit=0&meta=total_count')
      expect(counted.body).toEqual({ data: [], meta: { total_count: 0 } })
    })

    it('resolves variables in a ?filter', async () => {
      const as = caller(open, { user: 3, role: 'draft' })
      expect(await idsOf(as.get(`${ARTICLE_LIST}&filter[author][_eq]=$CURRENT_USER`))).toEqual(byAuthor(3))
      expect(await idsOf(as.get(`${ARTICLE_LIST}&filter[status][_eq]=$CURRENT_ROLE`))).toEqual(articleIds((row) => row.status === 'draft'))
      expect(await idsOf(as.get(`${ARTICLE_LIST}&filter[author][_in][]=$CURRENT_USER&filter[author][_in][]=5`))).toEqual(
        articleIds((row) => row.author === 3 || row.author === 5),
      )
      const neq = await idsOf(as.get(`${ARTICLE_LIST}&filter[author][_neq]=$CURRENT_USER`))
      expect(neq).toEqual(await idsOf(as.get(`${ARTICLE_LIST}&filter[author][_neq]=3`)))
      expect(neq).toEqual(articleIds((row) => row.author !== null && row.author !== 3))
    })

    it('resolves a variable inside a comma-separated list, as in the array form', async () => {
      const expected = articleIds((row) => row.author === 3 || row.author === 5)
      expect(await idsOf(caller(open, { user: 3 }).get(`${ARTICLE_LIST}&filter[author][_in]=$CURRENT_USER,5`))).toEqual(expected)
      expect(await idsOf(caller(open, { user: 3 }).get(`${ARTICLE_LIST}&filter[author][_in]=5,$CURRENT_USER`))).toEqual(expected)
      expect(await idsOf(caller(open, {}).get(`${ARTICLE_LIST}&filter[author][_in]=5,$CURRENT_USER`))).toEqual([])
    })

    it.each<[string]>([
      ['filter[author][_eq]=$CURRENT_USER'],
      ['filter[author][_neq]=$CURRENT_USER'],
      ['filter[author][_in][]=$CURRENT_USER&filter[author][_in][]=5'],
      ['filter[author][_nin][]=$CURRENT_USER'],
      ['filter[author][_gt]=$CURRENT_USER.buddy'],
      ['filter[status][_eq]=$CURRENT_ROLE'],
    ])('an absent variable in a ?filter matches no row: %s', async (query) => {
      expect(await idsOf(caller(open, {}).get(`${ARTICLE_LIST}&${query}`))).toEqual([])
    })

    it('refuses an unknown variable in a ?filter with 400 INVALID_QUERY before any SQL', async () => {
      await getInvalidQuery(ctx, open, '/api/items/articles?filter[author][_eq]=$CURRENT_NOPE', ['$CURRENT_NOPE'])
      await getInvalidQuery(ctx, open, '/api/items/articles?filter[title][_contains]=$CURRENT_USERS', ['$CURRENT_USERS'])
    })

    it('answers a logged 500 for an unknown variable in a rule function', async () => {
      const logger = recordingLogger()
      const app = appWith({ articles: { read: () => ({ filter: { author: { _eq: '$CURRENT_NOPE' } } }) } }, { logger })
      const response = await caller(app, { user: 3 }).get(ARTICLE_LIST)
      expect(response.status).toBe(500)
      expect(response.body).toEqual(INTERNAL)
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBeInstanceOf(ConfigError)
      expect((logger.errors[0] as ConfigError).code).toBe('CONFIG_BAD_ACCESS')
      expect((logger.errors[0] as ConfigError).message).toContain('$CURRENT_NOPE')
    })

    it('refuses an unknown variable in a fixed rule when the router is created', () => {
      expect(() => appWith({ articles: { read: { filter: { author: { _eq: '$CURRENT_NOPE' } } } } })).toThrow(ConfigError)
    })
  })

  describe('create rules: fields', () => {
    let narrow: Express
    let open: Express
    beforeAll(async () => {
      await ctx.reset()
      narrow = appWith({ articles: { read: true, create: { fields: ['title', 'status'] } } })
      open = appWith({})
    })

    it('refuses a field outside `fields` exactly like an unknown field, writing nothing', async () => {
      const refused = await request(narrow).post('/api/items/articles').send({ title: 'Refused', rating: 3 })
      expect(refused.status).toBe(400)
      expect(refused.body).toEqual({ errors: [unwritable('articles', 'rating')] })
      const unknown = await request(open).post('/api/items/articles').send({ title: 'Refused', nope: 3 })
      expect(refused.body).toEqual(renamed(unknown.body, 'nope', 'rating'))
      expect(await rowCount(ctx, 'articles', { title: 'Refused' })).toBe(0)
    })

    it('answers one error per refused field', async () => {
      const response = await request(narrow)
        .post('/api/items/articles')
        .send({ title: 'Refused', rating: 3, tags: ['a'], author: 1, nope: true })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        errors: [
          unwritable('articles', 'rating'),
          unwritable('articles', 'tags'),
          unwritable('articles', 'author'),
          unwritable('articles', 'nope'),
        ],
      })
      expect(await rowCount(ctx, 'articles', { title: 'Refused' })).toBe(0)
    })

    it('names the item index of array bodies and writes none of the items', async () => {
      const response = await request(narrow)
        .post('/api/items/articles')
        .send([
          { title: 'Refused' },
          { title: 'Refused', rating: 1 },
          { title: 'Refused', status: 'draft' },
          { title: 'Refused', tags: [], parent: 1 },
        ])
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        errors: [unwritable('articles', 'rating', 1), unwritable('articles', 'tags', 3), unwritable('articles', 'parent', 3)],
      })
      expect(await rowCount(ctx, 'articles', { title: 'Refused' })).toBe(0)
    })

    it('creates a payload within `fields`', async () => {
      const response = await request(narrow)
        .post('/api/items/articles?fields=title,status,rating')
        .send({ title: 'Allowed', status: 'published' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { title: 'Allowed', status: 'published', rating: null } })
      expect(await rowCount(ctx, 'articles', { title: 'Allowed' })).toBe(1)
    })
  })

  describe('create rules: presets', () => {
    let app: Express
    beforeAll(async () => {
      await ctx.reset()
      app = appWith({
        articles: {
          read: true,
          create: {
            fields: ['title', 'status'],
            presets: { status: 'published', rating: 4, author: '$CURRENT_USER', parent: '$CURRENT_USER.parent' },
          },
        },
      })
    })
    const FIELDS = 'fields=id,title,status,rating,author,parent'

    it('writes presets underneath the payload, including fields outside `fields`', async () => {
      const response = await caller(app, { user: 3 }).post(`/api/items/articles?${FIELDS}`, { title: 'Preset one' })
      expect(response.status).toBe(200)
      const { id } = response.body.data as { id: number }
      expect(response.body).toEqual({ data: { id, title: 'Preset one', status: 'published', rating: 4, author: 3, parent: null } })
      expect(await storedArticle(id)).toEqual({ id, title: 'Preset one', status: 'published', rating: 4, author: 3 })
    })

    it('lets the payload win over a preset', async () => {
      const response = await caller(app, { user: 3 }).post(`/api/items/articles?${FIELDS}`, { title: 'Preset two', status: 'draft' })
      expect(response.status).toBe(200)
      const { id } = response.body.data as { id: number }
      expect(await storedArticle(id)).toEqual({ id, title: 'Preset two', status: 'draft', rating: 4, author: 3 })
    })

    it('resolves variables of an object user in presets', async () => {
      const response = await caller(app, { user: { id: 5, parent: 2 } }).post(`/api/items/articles?${FIELDS}`, { title: 'Preset three' })
      expect(response.status).toBe(200)
      const { id } = response.body.data as { id: number }
      expect(response.body).toEqual({ data: { id, title: 'Preset three', status: 'published', rating: 4, author: 5, parent: 2 } })
    })

    it('writes null for a preset variable the context lacks', async () => {
      const response = await caller(app, {}).post(`/api/items/articles?${FIELDS}`, { title: 'Preset four' })
      expect(response.status).toBe(200)
      const { id } = response.body.data as { id: number }
      expect(response.body).toEqual({ data: { id, title: 'Preset four', status: 'published', rating: 4, author: null, parent: null } })
      expect(await storedArticle(id)).toEqual({ id, title: 'Preset four', status: 'published', rating: 4, author: null })
    })

    it('applies presets to every item of an array body', async () => {
      const response = await caller(app, { user: 7 }).post(`/api/items/articles?${FIELDS}`, [
        { title: 'Batch a' },
        { title: 'Batch b', status: 'archived' },
      ])
      expect(response.status).toBe(200)
      const rows = response.body.data as Array<{ id: number }>
      expect(response.body).toEqual({
        data: [
          { id: rows[0]!.id, title: 'Batch a', status: 'published', rating: 4, author: 7, parent: null },
          { id: rows[1]!.id, title: 'Batch b', status: 'archived', rating: 4, author: 7, parent: null },
        ],
      })
    })

    it('writes null, not the configured default, for a preset variable the context lacks', async () => {
      const roleApp = appWith({ articles: { read: true, create: { presets: { status: '$CURRENT_ROLE' } } } })
      const absent = await caller(roleApp, {}).post('/api/items/articles?fields=id,status', { title: 'Role preset' })
      expect(absent.body).toEqual({ data: { id: expect.any(Number), status: null } })
      const present = await caller(roleApp, { role: 'archived' }).post('/api/items/articles?fields=id,status', { title: 'Role preset' })
      expect(present.body).toEqual({ data: { id: expect.any(Number), status: 'archived' } })
    })
  })

  describe('create rules: validation', () => {
    let ranged: Express
    let needsPublished: Express
    let either: Express
    beforeAll(async () => {
      await ctx.reset()
      ranged = appWith({
        articles: { read: true, create: { validation: { rating: { _gte: 1, _lte: 3 }, status: { _in: ['draft', 'review'] } } } },
      })
      needsPublished = appWith({ articles: { read: true, create: { validation: { status: { _eq: 'published' } } } } })
      either = appWith({
        articles: { read: true, create: { validation: { _or: [{ rating: { _eq: 5 } }, { status: { _eq: 'archived' } }] } } },
      })
    })

    it('answers one error per failing condition and writes nothing', async () => {
      const response = await request(ranged).post('/api/items/articles').send({ title: 'Invalid', rating: 5, status: 'published' })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ errors: [broken('articles', 'rating', '_lte'), broken('articles', 'status', '_in')] })
      const low = await request(ranged).post('/api/items/articles').send({ title: 'Invalid', rating: 0 })
      expect(low.body).toEqual({ errors: [broken('articles', 'rating', '_gte')] })
      const nullRating = await request(ranged).post('/api/items/articles').send({ title: 'Invalid', rating: null })
      expect(nullRating.body).toEqual({ errors: [broken('articles', 'rating', '_gte'), broken('articles', 'rating', '_lte')] })
      expect(await rowCount(ctx, 'articles', { title: 'Invalid' })).toBe(0)
    })

    it('creates a payload that satisfies the rule', async () => {
      const response = await request(ranged)
        .post('/api/items/articles?fields=title,rating,status')
        .send({ title: 'Valid', rating: 3, status: 'review' })
      expect(response.body).toEqual({ data: { title: 'Valid', rating: 3, status: 'review' } })
      expect(await rowCount(ctx, 'articles', { title: 'Valid' })).toBe(1)
    })

    it('checks the configured defaults of fields the payload leaves out', async () => {
      const response = await request(needsPublished).post('/api/items/articles').send({ title: 'Defaulted' })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ errors: [broken('articles', 'status', '_eq')] })
      expect(await rowCount(ctx, 'articles', { title: 'Defaulted' })).toBe(0)
      const defaultOk = await request(ranged).post('/api/items/articles?fields=title,status').send({ title: 'Defaulted', rating: 2 })
      expect(defaultOk.body).toEqual({ data: { title: 'Defaulted', status: 'draft' } })
    })

    it('answers a failing _or with one error of type _or', async () => {
      const response = await request(either).post('/api/items/articles').send({ title: 'Neither', rating: 2 })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        errors: [
          {
            message: 'Field "rating" matches none of the allowed alternatives.',
            extensions: { code: 'FAILED_VALIDATION', field: 'rating', type: '_or', collection: 'articles' },
          },
        ],
      })
      expect(await rowCount(ctx, 'articles', { title: 'Neither' })).toBe(0)
      expect((await request(either).post('/api/items/articles?fields=title').send({ title: 'Either', rating: 5 })).body).toEqual({
        data: { title: 'Either' },
      })
      expect((await request(either).post('/api/items/articles?fields=title').send({ title: 'Either', status: 'archived' })).body).toEqual({
        data: { title: 'Either' },
      })
    })

    it('writes no item of a batch when one fails, naming its index', async () => {
      const before = await rowCount(ctx, 'articles')
      const response = await request(ranged)
        .post('/api/items/articles')
        .send([
          { title: 'Batch', rating: 1 },
          { title: 'Batch', rating: 4 },
          { title: 'Batch', rating: 2 },
          { title: 'Batch', status: 'archived' },
        ])
      expect(response.status).toBe(400)
      // Item 3 leaves rating out: the row would hold null, which fails both range checks.
      expect(response.body).toEqual({
        errors: [
          broken('articles', 'rating', '_lte', 1),
          broken('articles', 'rating', '_gte', 3),
          broken('articles', 'rating', '_lte', 3),
          broken('articles', 'status', '_in', 3),
        ],
      })
      expect(await rowCount(ctx, 'articles')).toBe(before)
    })
  })

  describe('update rules: fields, presets and validation', () => {
    let app: Express
    beforeAll(() => {
      app = appWith({
        articles: {
          read: true,
          update: { fields: ['title', 'rating', 'status'], presets: { status: 'archived' }, validation: { rating: { _gte: 3 } } },
        },
      })
    })
    beforeEach(() => ctx.reset())
    const seeded = (id: number): Record<string, unknown> => {
      const { title, status, rating, author } = seed.articles[id - 1]!
      return { id, title, status, rating, author }
    }
    const lowRated = first(
      articleIds((row) => row.rating === 1 && row.status !== 'archived'),
      'article rated 1',
    )

    it('refuses a field outside `fields` like an unknown one, changing nothing', async () => {
      const response = await request(app).patch('/api/items/articles/5').send({ title: 'Changed', tags: [], author: 2 })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ errors: [unwritable('articles', 'tags'), unwritable('articles', 'author')] })
      expect(await storedArticle(5)).toEqual(seeded(5))
    })

    it('names the item index in the array form and changes nothing', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send([
          { id: 5, title: 'Changed' },
          { id: 6, tags: [] },
        ])
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ errors: [unwritable('articles', 'tags', 1)] })
      expect(await storedArticle(5)).toEqual(seeded(5))
    })

    it('writes presets underneath the payload, the payload winning', async () => {
      const response = await request(app).patch('/api/items/articles/5?fields=id,title,status').send({ title: 'Preset' })
      expect(response.body).toEqual({ data: { id: 5, title: 'Preset', status: 'archived' } })
      expect(await storedArticle(5)).toEqual({ ...seeded(5), title: 'Preset', status: 'archived' })
      const wins = await request(app).patch('/api/items/articles/6?fields=id,status').send({ status: 'published' })
      expect(wins.body).toEqual({ data: { id: 6, status: 'published' } })
    })

    it('checks validation only on the fields the payload holds', async () => {
      const untouched = await request(app).patch(`/api/items/articles/${lowRated}?fields=id,title,rating`).send({ title: 'Still rated 1' })
      expect(untouched.body).toEqual({ data: { id: lowRated, title: 'Still rated 1', rating: 1 } })
      const failing = await request(app).patch(`/api/items/articles/${lowRated}`).send({ title: 'Refused', rating: 2 })
      expect(failing.status).toBe(400)
      expect(failing.body).toEqual({ errors: [broken('articles', 'rating', '_gte')] })
      const cleared = await request(app).patch(`/api/items/articles/${lowRated}`).send({ rating: null })
      expect(cleared.body).toEqual({ errors: [broken('articles', 'rating', '_gte')] })
      expect(await storedArticle(lowRated)).toEqual({ ...seeded(lowRated), title: 'Still rated 1', status: 'archived' })
      const passing = await request(app).patch(`/api/items/articles/${lowRated}?fields=rating`).send({ rating: 4 })
      expect(passing.body).toEqual({ data: { rating: 4 } })
    })

    it('fails a batch when one change breaks validation, naming its index, and writes none', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send([
          { id: 5, title: 'Fine' },
          { id: 6, rating: 1 },
        ])
      expect(response.status).toBe(400)
      expect(response.body).toEqual({ errors: [broken('articles', 'rating', '_gte', 1)] })
      expect(await storedArticle(5)).toEqual(seeded(5))
      expect(await storedArticle(6)).toEqual(seeded(6))
    })
  })

  describe('update rules: filter', () => {
    let app: Express
    beforeAll(() => {
      app = appWith({
        articles: { read: { filter: { status: { _eq: 'published' } } }, update: { filter: { author: { _eq: '$CURRENT_USER' } } } },
      })
    })
    beforeEach(() => ctx.reset())
    const isPublished = (row: ArticleRow): boolean => row.status === 'published'
    const OWN_PUBLISHED = articleIds((row) => row.author === 3 && isPublished(row))
    const OWN_HIDDEN = articleIds((row) => row.author === 3 && !isPublished(row))
    const OTHER_PUBLISHED = articleIds((row) => row.author !== 3 && isPublished(row))
    const OTHER_HIDDEN = articleIds((row) => row.author !== 3 && !isPublished(row))
    const titleOf = (id: number): string => seed.articles[id - 1]!.title
    /** The stored titles of `ids`, in that order. */
    const titles = async (ids: number[]): Promise<string[]> => {
      const rows: Array<{ id: number; title: string }> = await ctx.knex('articles').whereIn('id', ids).select('id', 'title')
      return ids.map((id) => rows.find((row) => Number(row.id) === id)?.title ?? 'missing')
    }
    const as = (): ReturnType<typeof caller> => caller(app, { user: 3 })

    it('answers 404 for a key outside both the read and the update scope, as for a missing key', async () => {
      const hidden = first(OTHER_HIDDEN, 'hidden article of another author')
      const response = await as().patch(`/api/items/articles/${hidden}`, { title: 'Changed' })
      expect(response.status).toBe(404)
      expect(response.body).toEqual(notFound('articles', hidden))
      expect((await as().patch('/api/items/articles/99999', { title: 'Changed' })).body).toEqual(notFound('articles', 99999))
      expect(await titles([hidden])).toEqual([titleOf(hidden)])
    })

    it('answers 403 for a readable key outside the update scope', async () => {
      const other = first(OTHER_PUBLISHED, 'published article of another author')
      const response = await as().patch(`/api/items/articles/${other}`, { title: 'Changed' })
      expect(response.status).toBe(403)
      expect(response.body).toEqual(FORBIDDEN)
      expect(await titles([other])).toEqual([titleOf(other)])
    })

    it('updates a key inside both scopes', async () => {
      const own = first(OWN_PUBLISHED, 'own published article')
      const response = await as().patch(`/api/items/articles/${own}?fields=id,title`, { title: 'Mine' })
      expect(response.body).toEqual({ data: { id: own, title: 'Mine' } })
      expect(await titles([own])).toEqual(['Mine'])
    })

    it('refuses { keys, data } with one forbidden key with 403 and writes none', async () => {
      const own = OWN_PUBLISHED.slice(0, 2)
      const other = first(OTHER_PUBLISHED, 'published article of another author')
      const response = await as().patch('/api/items/articles', { keys: [...own, other], data: { title: 'Changed' } })
      expect(response.status).toBe(403)
      expect(response.body).toEqual(FORBIDDEN)
      expect(await titles([...own, other])).toEqual([...own, other].map(titleOf))
      const hidden = first(OTHER_HIDDEN, 'hidden article of another author')
      const withHidden = await as().patch('/api/items/articles', { keys: [own[0], hidden], data: { title: 'Changed' } })
      expect(withHidden.body).toEqual(notFound('articles', hidden))
      expect(await titles(own)).toEqual(own.map(titleOf))
    })

    it('touches only rows in read ∩ update ∩ query for { query, data }', async () => {
      const response = await as().patch('/api/items/articles?fields=id', {
        query: { filter: { rating: { _eq: 5 } } },
        data: { title: 'Bulk' },
      })
      expect(response.status).toBe(200)
      const expected = articleIds((row) => row.author === 3 && isPublished(row) && row.rating === 5)
      expect(expected.length).toBeGreaterThan(1)
      expect((response.body.data as Array<{ id: number }>).map((row) => row.id).sort((a, b) => a - b)).toEqual(expected)
      expect(await storedIds('articles', { title: 'Bulk' })).toEqual(expected)
    })

    it('applies the array form only when every item is in both scopes', async () => {
      const [a, b] = OWN_PUBLISHED
      const other = first(OTHER_PUBLISHED, 'published article of another author')
      const refused = await as().patch('/api/items/articles', [
        { id: a, title: 'A' },
        { id: other, title: 'B' },
      ])
      expect(refused.body).toEqual(FORBIDDEN)
      expect(await titles([a!, other])).toEqual([titleOf(a!), titleOf(other)])
      const response = await as().patch('/api/items/articles?fields=id,title', [
        { id: a, title: 'A' },
        { id: b, title: 'B' },
      ])
      expect(response.body).toEqual({
        data: [
          { id: a, title: 'A' },
          { id: b, title: 'B' },
        ],
      })
    })

    it('lets the caller update an own row it cannot read, answering 204', async () => {
      const ownHidden = first(OWN_HIDDEN, 'own unpublished article')
      const response = await as().patch(`/api/items/articles/${ownHidden}`, { title: 'Unseen' })
      expect(response.status).toBe(204)
      expect(response.text).toBe('')
      expect(await titles([ownHidden])).toEqual(['Unseen'])
    })

    it('matches nothing for a caller without a user', async () => {
      const own = first(OWN_PUBLISHED, 'own published article')
      expect((await caller(app, {}).patch(`/api/items/articles/${own}`, { title: 'x' })).body).toEqual(FORBIDDEN)
      const bulk = await caller(app, {}).patch('/api/items/articles', {
        query: { filter: { rating: { _eq: 5 } } },
        data: { title: 'Bulk' },
      })
      expect(bulk.body).toEqual({ data: [] })
      expect(await rowCount(ctx, 'articles', { title: 'Bulk' })).toBe(0)
    })
  })

  describe('delete rules', () => {
    let app: Express
    beforeAll(() => {
      app = appWith({
        comments: { read: { filter: { votes: { _gte: 50 } } }, delete: { filter: { author: { _eq: '$CURRENT_USER' } } } },
      })
    })
    beforeEach(() => ctx.reset())
    const ALL_COMMENTS = commentIds(() => true)
    const OWN_SHOWN = commentIds((row) => row.author === 3 && row.votes >= 50)
    const OWN_HIDDEN = commentIds((row) => row.author === 3 && row.votes < 50)
    const OTHER_SHOWN = commentIds((row) => row.author !== 3 && row.votes >= 50)
    const OTHER_HIDDEN = commentIds((row) => row.author !== 3 && row.votes < 50)
    const as = (): ReturnType<typeof caller> => caller(app, { user: 3 })
    const without = (gone: number[]): number[] => ALL_COMMENTS.filter((id) => !gone.includes(id))

    it('answers 404 for a key outside both scopes, 403 for a readable one outside the delete scope', async () => {
      const hidden = first(OTHER_HIDDEN, 'hidden comment of another author')
      expect((await as().delete(`/api/items/comments/${hidden}`)).body).toEqual(notFound('comments', hidden))
      const other = first(OTHER_SHOWN, 'readable comment of another author')
      const response = await as().delete(`/api/items/comments/${other}`)
      expect(response.status).toBe(403)
      expect(response.body).toEqual(FORBIDDEN)
      expect(await storedIds('comments')).toEqual(ALL_COMMENTS)
    })

    it('deletes keys inside the delete scope, readable or not', async () => {
      const shown = first(OWN_SHOWN, 'own readable comment')
      const hidden = first(OWN_HIDDEN, 'own hidden comment')
      expect((await as().delete(`/api/items/comments/${shown}`)).status).toBe(204)
      expect((await as().delete('/api/items/comments', [hidden])).status).toBe(204)
      expect(await storedIds('comments')).toEqual(without([shown, hidden]))
    })

    it('refuses { keys } with one forbidden key with 403 and deletes none', async () => {
      const own = OWN_SHOWN.slice(0, 2)
      const other = first(OTHER_SHOWN, 'readable comment of another author')
      const response = await as().delete('/api/items/comments', { keys: [...own, other] })
      expect(response.status).toBe(403)
      expect(response.body).toEqual(FORBIDDEN)
      const hidden = first(OTHER_HIDDEN, 'hidden comment of another author')
      expect((await as().delete('/api/items/comments', [own[0], hidden])).body).toEqual(notFound('comments', hidden))
      expect(await storedIds('comments')).toEqual(ALL_COMMENTS)
    })

    it('deletes only rows in read ∩ delete ∩ query for { query }', async () => {
      const response = await as().delete('/api/items/comments', { query: { filter: { article: { _lte: 20 } } } })
      expect(response.status).toBe(204)
      const gone = commentIds((row) => row.author === 3 && row.votes >= 50 && row.article <= 20)
      expect(gone.length).toBeGreaterThan(1)
      expect(await storedIds('comments')).toEqual(without(gone))
    })

    it('is denied with 403 when the entry is left out', async () => {
      const closed = appWith({ comments: { read: true } })
      expect((await caller(closed, { user: 3 }).delete(`/api/items/comments/${first(OWN_SHOWN, 'own comment')}`)).body).toEqual(FORBIDDEN)
      expect((await caller(closed, { user: 3 }).delete('/api/items/comments', { query: { limit: -1 } })).body).toEqual(FORBIDDEN)
      expect(await storedIds('comments')).toEqual(ALL_COMMENTS)
    })
  })

  describe('read-back after a write', () => {
    let app: Express
    beforeAll(() => {
      app = appWith({ articles: { read: { filter: { status: { _eq: 'published' } } }, create: true, update: true } })
    })
    beforeEach(() => ctx.reset())

    it('answers 204 with no body for a created item the caller cannot read, and writes it', async () => {
      const response = await request(app).post('/api/items/articles').send({ title: 'Unseen draft' })
      expect(response.status).toBe(204)
      expect(response.text).toBe('')
      expect(await ctx.knex('articles').where({ title: 'Unseen draft' }).select('status')).toEqual([{ status: 'draft' }])
    })

    it('answers only the readable items of a created batch, and writes them all', async () => {
      const response = await request(app)
        .post('/api/items/articles?fields=title,status')
        .send([{ title: 'Batch 1', status: 'published' }, { title: 'Batch 2' }, { title: 'Batch 3', status: 'published' }])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { title: 'Batch 1', status: 'published' },
          { title: 'Batch 3', status: 'published' },
        ],
      })
      expect(await rowCount(ctx, 'articles')).toBe(ALL_ARTICLES.length + 3)
      expect(await rowCount(ctx, 'articles', { title: 'Batch 2', status: 'draft' })).toBe(1)
    })

    it('answers 204 for an update that leaves the item unreadable, and writes it', async () => {
      const id = first(PUBLISHED, 'published article')
      const response = await request(app).patch(`/api/items/articles/${id}`).send({ status: 'draft' })
      expect(response.status).toBe(204)
      expect(response.text).toBe('')
      expect(await ctx.knex('articles').where({ id }).first('status')).toEqual({ status: 'draft' })
    })

    it('answers only the readable items of an updated batch', async () => {
      const [a, b] = PUBLISHED
      const response = await request(app)
        .patch('/api/items/articles?fields=id,title')
        .send([
          { id: a, status: 'archived' },
          { id: b, title: 'Kept' },
        ])
      expect(response.body).toEqual({ data: [{ id: b, title: 'Kept' }] })
      expect(await ctx.knex('articles').where({ id: a }).first('status')).toEqual({ status: 'archived' })
    })
  })

  describe('singletons', () => {
    const SEEDED = { ...settingsRow }
    const storedSettings = async (): Promise<unknown[]> => ctx.knex('settings').select('id', 'site_name', 'tagline', 'items_per_page')

    it('answers 403 to a read when read is denied', async () => {
      await ctx.reset({ settings: true })
      const app = appWith({ settings: { update: true } })
      expect((await request(app).get('/api/items/settings')).body).toEqual(FORBIDDEN)
      expect((await request(app).get('/api/items/settings/singleton')).status).toBe(403)
      const update = await request(app).patch('/api/items/settings').send({ site_name: 'Blind' })
      expect(update.status).toBe(204)
      expect(await storedSettings()).toEqual([{ ...SEEDED, site_name: 'Blind' }])
    })

    describe('with the row', () => {
      beforeEach(() => ctx.reset({ settings: true }))

      it('applies the update rule: fields and presets', async () => {
        const app = appWith({
          settings: {
            read: true,
            update: { fields: ['site_name'], presets: { items_per_page: 50 } },
            create: { presets: { tagline: 'Created' } },
          },
        })
        const refused = await request(app).patch('/api/items/settings').send({ tagline: 'No' })
        expect(refused.status).toBe(400)
        expect(refused.body).toEqual({ errors: [unwritable('settings', 'tagline')] })
        expect(await storedSettings()).toEqual([SEEDED])
        const response = await request(app).patch('/api/items/settings').send({ site_name: 'Renamed' })
        expect(response.body).toEqual({ data: { ...SEEDED, site_name: 'Renamed', items_per_page: 50 } })
        expect(await storedSettings()).toEqual([{ ...SEEDED, site_name: 'Renamed', items_per_page: 50 }])
      })

      it('answers 403 when the row is readable but outside the update filter', async () => {
        const app = appWith({ settings: { read: true, update: { filter: { site_name: { _eq: 'Other' } } } } })
        expect((await request(app).patch('/api/items/settings').send({ site_name: 'Renamed' })).body).toEqual(FORBIDDEN)
        expect(await storedSettings()).toEqual([SEEDED])
      })
    })

    describe('without the row', () => {
      beforeEach(() => ctx.reset())

      it('applies the create rule when the update creates the row', async () => {
        const app = appWith({
          settings: {
            read: true,
            update: { fields: ['site_name'], presets: { items_per_page: 50 } },
            create: { presets: { tagline: 'Created' } },
          },
        })
        const response = await request(app).patch('/api/items/settings').send({ site_name: 'Fresh' })
        expect(response.body).toEqual({ data: { id: 1, site_name: 'Fresh', tagline: 'Created', items_per_page: 10 } })
        expect(await storedSettings()).toEqual([{ id: 1, site_name: 'Fresh', tagline: 'Created', items_per_page: 10 }])
      })

      it('answers 403 and creates nothing when create is denied', async () => {
        const app = appWith({ settings: { read: true, update: true } })
        expect((await request(app).patch('/api/items/settings').send({ site_name: 'Fresh' })).body).toEqual(FORBIDDEN)
        expect(await storedSettings()).toEqual([])
      })

      it('refuses fields outside the create rule', async () => {
        const app = appWith({ settings: { read: true, update: true, create: { fields: ['tagline'] } } })
        const response = await request(app).patch('/api/items/settings').send({ site_name: 'Fresh' })
        expect(response.body).toEqual({ errors: [unwritable('settings', 'site_name')] })
        expect(await storedSettings()).toEqual([])
      })
    })
  })

  describe('a rule function answering a malformed rule', () => {
    type Answer = (context: ItemsContext) => unknown
    /** What each action's function answers, by the caller's `case`; well-formed (true) for the other cases. */
    const MALFORMED: Record<string, { action: keyof Access; answer: unknown; send: (as: ReturnType<typeof caller>) => request.Test }> = {
      'create fields naming an unknown field': {
        action: 'create',
        answer: { fields: ['nope'] },
        send: (as) => as.post('/api/items/articles', { title: 'Malformed' }),
      },
      'create presets naming an unknown field': {
        action: 'create',
        answer: { presets: { nope: 1 } },
        send: (as) => as.post('/api/items/articles', [{ title: 'Malformed' }]),
      },
      'an unknown rule key': {
        action: 'update',
        answer: { fields: ['title'], where: {} },
        send: (as) => as.patch('/api/items/articles/5', { title: 'Malformed' }),
      },
      'fields that are not a list': {
        action: 'update',
        answer: { fields: 'title' },
        send: (as) => as.patch('/api/items/articles/5', { title: 'Malformed' }),
      },
      'a filter that is not an object': {
        action: 'update',
        answer: { filter: 'author' },
        send: (as) => as.patch('/api/items/articles', { keys: [5], data: { title: 'Malformed' } }),
      },
      'a filter naming an unknown field': {
        action: 'delete',
        answer: { filter: { nope: { _eq: 1 } } },
        send: (as) => as.delete('/api/items/articles/300'),
      },
      'a validation through a relation': {
        action: 'create',
        answer: { validation: { author: { name: { _eq: 'x' } } } },
        send: (as) => as.post('/api/items/articles', { title: 'Malformed' }),
      },
      nothing: { action: 'create', answer: undefined, send: (as) => as.post('/api/items/articles', { title: 'Malformed' }) },
      'read fields naming an unknown field': {
        action: 'read',
        answer: { fields: ['title', 'nope'] },
        send: (as) => as.get('/api/items/articles/5'),
      },
    }
    const logger = recordingLogger()
    let app: Express
    beforeAll(async () => {
      await ctx.reset()
      const entry =
        (action: keyof Access): Answer =>
        async (context) => {
          const malformed = MALFORMED[String(context.case)]
          return malformed?.action === action ? malformed.answer : true
        }
      app = appWith(
        { articles: { read: entry('read'), create: entry('create'), update: entry('update'), delete: entry('delete') } as Access },
        { logger },
      )
    })
    beforeEach(() => {
      logger.errors.length = 0
    })

    it.each(Object.keys(MALFORMED))('%s: logged 500, nothing written', async (label) => {
      const response = await MALFORMED[label]!.send(caller(app, { case: label }))
      expect(response.status).toBe(500)
      expect(response.body).toEqual(INTERNAL)
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBeInstanceOf(ConfigError)
      expect((logger.errors[0] as ConfigError).code).toBe('CONFIG_BAD_ACCESS')
      expect(await storedIds('articles')).toEqual(ALL_ARTICLES)
      expect(await rowCount(ctx, 'articles', { title: 'Malformed' })).toBe(0)
    })

    it('serves the same requests when the functions answer well-formed rules', async () => {
      const as = caller(app, { case: 'none' })
      expect((await as.get('/api/items/articles/5?fields=id')).body).toEqual({ data: { id: 5 } })
      expectError(await as.delete('/api/items/articles/99999'), 404, 'NOT_FOUND')
      expect(logger.errors).toEqual([])
    })
  })

  describe('many-to-one values naming rows the caller cannot read', () => {
    let app: Express
    beforeAll(async () => {
      await ctx.reset()
      app = appWith({ authors: { read: { filter: { id: { _lte: 5 } } } } })
    })
    const invalidKey = (value: number) => ({
      errors: [
        {
          message: `Invalid foreign key (field "author"): "authors" has no item ${value}.`,
          extensions: { code: 'INVALID_FOREIGN_KEY', collection: 'articles', field: 'author', value },
        },
      ],
    })

    it('refuses a create with 400 INVALID_FOREIGN_KEY, as for a missing row', async () => {
      const hidden = await request(app).post('/api/items/articles').send({ title: 'Linked', author: 7 })
      expect(hidden.status).toBe(400)
      expect(hidden.body).toEqual(invalidKey(7))
      expect((await request(app).post('/api/items/articles').send({ title: 'Linked', author: 9999 })).body).toEqual(invalidKey(9999))
      expect(await rowCount(ctx, 'articles', { title: 'Linked' })).toBe(0)
      const shown = await request(app).post('/api/items/articles?fields=title,author').send({ title: 'Linked', author: 3 })
      expect(shown.body).toEqual({ data: { title: 'Linked', author: 3 } })
    })

    it('refuses an update with 400 INVALID_FOREIGN_KEY and changes nothing', async () => {
      const response = await request(app).patch('/api/items/articles/1').send({ author: 7 })
      expect(response.status).toBe(400)
      expect(response.body).toEqual(invalidKey(7))
      expect(await storedArticle(1)).toEqual({
        id: 1,
        title: seed.articles[0]!.title,
        status: seed.articles[0]!.status,
        rating: seed.articles[0]!.rating,
        author: seed.articles[0]!.author,
      })
      const batch = await request(app)
        .patch('/api/items/articles')
        .send({ keys: [2, 3], data: { author: 6 } })
      expect(batch.body).toEqual(invalidKey(6))
    })
  })
})
