// Collection hooks and router events on every dialect: what before hooks receive and may change or veto, that
// their statements share the write's transaction, what after hooks and events see after commit, and in which order.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import {
  createItemsRouter,
  ForbiddenError,
  ItemsError,
  type Access,
  type CollectionDefinition,
  type ErrorCode,
  type HookMeta,
  type Hooks,
  type Item,
  type ItemsContext,
  type ItemsEvent,
  type ItemsRouter,
  type ItemsRouterOptions,
  type PrimaryKey,
} from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError, getInvalidQuery } from '../support/expect-error'
import { rowCount } from '../support/write-checks'

type Name = keyof typeof collections

/** What the `context` option answers for every request of these specs. */
const CONTEXT: ItemsContext = { user: 7, role: 'editor', tenant: 'acme' }

interface Harness {
  app: Express
  router: ItemsRouter
  logger: ReturnType<typeof recordingLogger>
  /** Every event of the router, in emission order, as [name, event]. */
  events: Array<[string, ItemsEvent]>
}

/** Events by name (the documentation does not order the two names of one write). */
function byName(events: Array<[string, ItemsEvent]>): Array<[string, ItemsEvent]> {
  return [...events].sort((a, b) => a[0].localeCompare(b[0]))
}

/** What a before hook was called with: a copy of its value, and its meta with `db` described. */
interface BeforeCall {
  value: unknown
  meta: { collection: string; context: ItemsContext; keys?: PrimaryKey[] }
  metaKeys: string[]
  db: HookMeta['db']
}

const ACTIONS = ['create', 'update', 'delete'] as const
const HOOK_NAMES: ReadonlyArray<keyof Hooks> = [
  'beforeRead',
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'afterCreate',
  'afterUpdate',
  'afterDelete',
]
const EVENT_NAMES = [
  ...ACTIONS.map((action) => `items.${action}`),
  ...Object.keys(collections).flatMap((name) => ACTIONS.map((action) => `${name}.items.${action}`)),
]

/** Records a before hook's call and answers `answer(value)` (undefined keeps the value). */
function recordBefore<T>(calls: BeforeCall[], answer: (value: T) => T | void = () => undefined) {
  return (value: T, meta: HookMeta & { keys?: PrimaryKey[] }): T | void => {
    const { db, signal, ...rest } = meta
    if (!(signal instanceof AbortSignal) || signal.aborted) throw new Error('A before hook needs a live meta.signal')
    calls.push({ value: structuredClone(value), meta: structuredClone(rest), metaKeys: Object.keys(meta).sort(), db })
    return answer(value)
  }
}

/** An after hook's calls without their second argument (`{ signal }`, checked to be a live AbortSignal). */
function eventsOf(hook: jest.Mock): unknown[][] {
  return hook.mock.calls.map(([event, meta]: unknown[]) => {
    if (!((meta as { signal?: unknown }).signal instanceof AbortSignal)) throw new Error('An after hook needs meta.signal')
    return [event]
  })
}

const isTransaction = (db: HookMeta['db']): boolean => (db as Knex.Transaction).isTransaction === true

/** The two events one committed write emits: `items.<action>` and `<collection>.items.<action>`, both with `event`. */
function emitted(event: ItemsEvent): Array<[string, ItemsEvent]> {
  return byName([
    [`${event.collection}.items.${event.action}`, event],
    [`items.${event.action}`, event],
  ])
}

/** Lets pending microtasks, `nextTick`s and immediates run (an async listener's rejection is logged on a later tick). */
async function settle(until: () => boolean): Promise<void> {
  for (let i = 0; i < 20 && !until(); i++) await new Promise((resolve) => setImmediate(resolve))
}

const seedArticle = (id: number) => seed.articles.find((article) => article.id === id)!

/** An author with several articles, and the comments sharing one vote count: rows a by-query write resolves. */
const QUERY_AUTHOR = 6
const AUTHOR_ARTICLES = seed.articles.filter((article) => article.author === QUERY_AUTHOR).map((article) => article.id)
const QUERY_VOTES = seed.comments[8]!.votes
const VOTED_COMMENTS = seed.comments.filter((comment) => comment.votes === QUERY_VOTES).map((comment) => comment.id)
if (AUTHOR_ARTICLES.length < 2 || VOTED_COMMENTS.length < 2) throw new Error('The by-query specs need seed rows that match several items')
const NEXT_ARTICLE = seed.articles.length + 1
const SEEDED_TOPICS = seed.topics.length

forEachDialect((ctx: DialectContext) => {
  /** A host app with the router under /api; `setup` adds hooks and access rules to fixture collections. */
  function build(setup: Partial<Record<Name, { hooks?: Hooks; access?: Access }>>, options: Partial<ItemsRouterOptions> = {}): Harness {
    const logger = recordingLogger()
    const configured: Record<string, CollectionDefinition> = { ...collections }
    for (const [name, extra] of Object.entries(setup)) configured[name] = { ...collections[name as Name], ...extra }
    const router = createItemsRouter({
      knex: ctx.knex,
      defaultAccess: true,
      collections: configured,
      logger,
      context: () => ({ ...CONTEXT }),
      ...options,
    })
    const app = express()
    app.use('/api', router)
    const events: Array<[string, ItemsEvent]> = []
    for (const name of EVENT_NAMES) router.events.on(name, (event: ItemsEvent) => events.push([name, event]))
    return { app, router, logger, events }
  }

  /**
   * Building a router costs tens of milliseconds, so most tests share one whose every hook calls the current
   * test's hook of that name (none: keeps the value). `use` selects the hooks and answers the shared harness.
   */
  let hooksInUse: Partial<Record<Name, { hooks?: Hooks }>> = {}
  let shared: Harness
  const added: Array<[ItemsRouter, string, (event: ItemsEvent) => unknown]> = []
  beforeAll(() => {
    const forward = (name: Name): Hooks =>
      Object.fromEntries(
        HOOK_NAMES.map((hook) => [
          hook,
          (...args: unknown[]) => (hooksInUse[name]?.hooks?.[hook] as ((...args: unknown[]) => unknown) | undefined)?.(...args),
        ]),
      )
    shared = build(Object.fromEntries(Object.keys(collections).map((name) => [name, { hooks: forward(name as Name) }])))
  })
  beforeEach(() => {
    hooksInUse = {}
    shared.events.length = 0
    shared.logger.errors.length = 0
  })
  afterEach(() => {
    for (const [router, name, listener] of added.splice(0)) router.events.off(name, listener)
  })
  const use = (setup: Partial<Record<Name, { hooks?: Hooks }>>): Harness => {
    hooksInUse = setup
    return shared
  }
  /** Adds a listener for this test only. */
  const listen = (router: ItemsRouter, name: string, listener: (event: ItemsEvent) => unknown): void => {
    router.events.on(name, listener)
    added.push([router, name, listener])
  }

  const articleRow = async (id: number): Promise<Record<string, unknown> | undefined> =>
    (await ctx.knex('articles').where({ id }).first('id', 'title', 'status', 'rating')) as Record<string, unknown> | undefined
  const titleCount = (title: string): Promise<number> => rowCount(ctx, 'articles', { title })

  describe('beforeCreate', () => {
    beforeEach(() => ctx.reset())

    it('is called once per item of an array body, in order, with the payload as sent and meta { collection, context, db }', async () => {
      const calls: BeforeCall[] = []
      const { app, logger } = use({ articles: { hooks: { beforeCreate: recordBefore(calls) } } })
      const body = [
        { title: 'First', rating: 1 },
        { title: 'Second', tags: ['a', 'b'] },
        { title: 'Third', author: 2, status: 'published' },
      ]
      const response = await request(app).post('/api/items/articles?fields=id,title').send(body)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: NEXT_ARTICLE, title: 'First' },
          { id: NEXT_ARTICLE + 1, title: 'Second' },
          { id: NEXT_ARTICLE + 2, title: 'Third' },
        ],
      })
      expect(calls.map(({ value, meta, metaKeys }) => ({ value, meta, metaKeys }))).toEqual(
        body.map((value) => ({
          value,
          meta: { collection: 'articles', context: CONTEXT },
          metaKeys: ['collection', 'context', 'db', 'signal'],
        })),
      )
      for (const call of calls) {
        expect(isTransaction(call.db)).toBe(true)
        expect(call.db).not.toBe(ctx.knex)
      }
      expect(logger.errors).toEqual([])
    })

    it('is called once for a single object body', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ authors: { hooks: { beforeCreate: recordBefore(calls) } } })
      const response = await request(app).post('/api/items/authors?fields=id,name').send({ name: 'Solo', email: null })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: seed.authors.length + 1, name: 'Solo' } })
      expect(calls.map(({ value, meta }) => ({ value, meta }))).toEqual([
        { value: { name: 'Solo', email: null }, meta: { collection: 'authors', context: CONTEXT } },
      ])
    })

    it('writes the item a hook returns, keeps the one sent when it returns undefined, and after hooks and events see what was written', async () => {
      const afterEvents: ItemsEvent[] = []
      const { app, events } = use({
        articles: {
          hooks: {
            beforeCreate: (item) => (item.title === 'Change me' ? { ...item, title: 'Changed', rating: 5 } : undefined),
            afterCreate: (event) => {
              afterEvents.push(event)
            },
          },
        },
      })
      const response = await request(app)
        .post('/api/items/articles?fields=id,title,rating,status')
        .send([{ title: 'Change me' }, { title: 'Keep me', rating: 2 }])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: NEXT_ARTICLE, title: 'Changed', rating: 5, status: 'draft' },
          { id: NEXT_ARTICLE + 1, title: 'Keep me', rating: 2, status: 'draft' },
        ],
      })
      expect(await articleRow(NEXT_ARTICLE)).toEqual({ id: NEXT_ARTICLE, title: 'Changed', status: 'draft', rating: 5 })
      expect(await articleRow(NEXT_ARTICLE + 1)).toEqual({ id: NEXT_ARTICLE + 1, title: 'Keep me', status: 'draft', rating: 2 })
      expect(await titleCount('Change me')).toBe(0)
      const expected: ItemsEvent = {
        action: 'create',
        collection: 'articles',
        keys: [NEXT_ARTICLE, NEXT_ARTICLE + 1],
        payloads: [
          { title: 'Changed', rating: 5 },
          { title: 'Keep me', rating: 2 },
        ],
        context: CONTEXT,
      }
      expect(afterEvents).toEqual([expected])
      expect(byName(events)).toEqual(emitted(expected))
    })

    it.each<[string, (item: Item) => Item, unknown]>([
      ['a value of the wrong type', (item) => ({ ...item, rating: 'high' }), { field: 'rating', type: 'type', collection: 'articles' }],
      [
        'a field that does not exist',
        (item) => ({ ...item, nope: 1 }),
        { field: 'nope', type: 'additionalProperties', collection: 'articles' },
      ],
      ['a required field removed', ({ title: _title, ...rest }) => rest, { field: 'title', type: 'required', collection: 'articles' }],
    ])(
      'validates the changed payload: a hook producing %s is a 400 FAILED_VALIDATION and nothing is written',
      async (_label, change, extensions) => {
        const afterCreate = jest.fn()
        const { app, events } = use({ articles: { hooks: { beforeCreate: change, afterCreate } } })
        const response = await request(app).post('/api/items/articles').send({ title: 'Valid as sent', rating: 3 })
        expectError(response, 400, 'FAILED_VALIDATION')
        expect(response.body.errors[0].extensions).toEqual({ ...(extensions as object), code: 'FAILED_VALIDATION' })
        expect(await rowCount(ctx, 'articles')).toBe(seed.articles.length)
        expect(afterCreate).not.toHaveBeenCalled()
        expect(events).toEqual([])
      },
    )

    it('names the item of an array body whose changed payload is invalid', async () => {
      const { app } = use({ articles: { hooks: { beforeCreate: (item) => (item.title === 'B' ? { ...item, rating: 'x' } : undefined) } } })
      const response = await request(app)
        .post('/api/items/articles')
        .send([{ title: 'A' }, { title: 'B' }])
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        errors: [
          {
            message: expect.any(String),
            extensions: { code: 'FAILED_VALIDATION', field: 'rating', type: 'type', collection: 'articles', item: 1 },
          },
        ],
      })
      expect(await rowCount(ctx, 'articles')).toBe(seed.articles.length)
    })

    it('answers 403 FORBIDDEN when the hook throws a ForbiddenError, logs nothing and writes nothing', async () => {
      const afterCreate = jest.fn()
      const { app, logger, events } = use({
        articles: {
          hooks: {
            beforeCreate: (item) => {
              if (item.title === 'Forbidden') throw new ForbiddenError()
            },
            afterCreate,
          },
        },
      })
      const response = await request(app)
        .post('/api/items/articles')
        .send([{ title: 'Allowed' }, { title: 'Forbidden' }])
      expect(response.status).toBe(403)
      expect(response.body).toEqual({
        errors: [{ message: "You don't have permission to access this.", extensions: { code: 'FORBIDDEN' } }],
      })
      expect(await rowCount(ctx, 'articles')).toBe(seed.articles.length)
      expect(await titleCount('Allowed')).toBe(0)
      expect(logger.errors).toEqual([])
      expect(afterCreate).not.toHaveBeenCalled()
      expect(events).toEqual([])
    })

    it('answers 500 INTERNAL_SERVER_ERROR when the hook throws a plain Error, logs it and writes nothing', async () => {
      const boom = new Error('hook exploded')
      const { app, logger, events } = use({
        articles: {
          hooks: {
            beforeCreate: async () => {
              throw boom
            },
          },
        },
      })
      const response = await request(app).post('/api/items/articles').send({ title: 'Never' })
      expect(response.status).toBe(500)
      expect(response.body).toEqual({
        errors: [
          { message: 'An unexpected error occurred.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } },
        ],
      })
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(boom)
      expect(await titleCount('Never')).toBe(0)
      expect(events).toEqual([])
    })

    /** A hook that records a topic named after each created item, in the write's transaction. */
    const topicPerItem: Hooks['beforeCreate'] = async (item, meta) => {
      await meta.db('topics').insert({ name: `Topic of ${String(item.title ?? item.name)}` })
    }

    it('commits a statement the hook runs on meta.db together with the write', async () => {
      const { app } = use({ articles: { hooks: { beforeCreate: topicPerItem } } })
      const response = await request(app)
        .post('/api/items/articles?fields=id,title')
        .send([{ title: 'Hooked one' }, { title: 'Hooked two' }])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: NEXT_ARTICLE, title: 'Hooked one' },
          { id: NEXT_ARTICLE + 1, title: 'Hooked two' },
        ],
      })
      const topics = await ctx.knex('topics').where('id', '>', SEEDED_TOPICS).orderBy('id').select('name')
      expect(topics).toEqual([{ name: 'Topic of Hooked one' }, { name: 'Topic of Hooked two' }])
    })

    it('rolls the hook statement back when a later item of the batch breaks a unique constraint', async () => {
      const { app, events } = use({ authors: { hooks: { beforeCreate: topicPerItem } } })
      const response = await request(app)
        .post('/api/items/authors')
        .send([
          { name: 'Fresh author', email: 'fresh@example.com' },
          { name: 'Duplicate author', email: seed.authors[0]!.email },
        ])
      expectError(response, 400, 'RECORD_NOT_UNIQUE')
      expect(await rowCount(ctx, 'topics')).toBe(SEEDED_TOPICS)
      expect(await rowCount(ctx, 'authors')).toBe(seed.authors.length)
      expect(await rowCount(ctx, 'authors', { email: 'fresh@example.com' })).toBe(0)
      expect(events).toEqual([])
    })

    it('rolls the hook statement back when a later item of the batch names a missing foreign key', async () => {
      const { app, events } = use({ articles: { hooks: { beforeCreate: topicPerItem } } })
      const response = await request(app)
        .post('/api/items/articles')
        .send([{ title: 'Fine' }, { title: 'Orphan', author: 9999 }])
      expectError(response, 400, 'INVALID_FOREIGN_KEY')
      expect(await rowCount(ctx, 'topics')).toBe(SEEDED_TOPICS)
      expect(await rowCount(ctx, 'articles')).toBe(seed.articles.length)
      expect(await titleCount('Fine')).toBe(0)
      expect(events).toEqual([])
    })

    it('rolls the hook statement back when a later hook call throws', async () => {
      const { app } = use({
        articles: {
          hooks: {
            beforeCreate: async (item, meta) => {
              if (item.title === 'Stop') throw new ItemsError('UNPROCESSABLE_CONTENT', 'Stop here.')
              await topicPerItem!(item, meta)
            },
          },
        },
      })
      const response = await request(app)
        .post('/api/items/articles')
        .send([{ title: 'Go' }, { title: 'Stop' }])
      expect(response.status).toBe(422)
      expect(response.body).toEqual({ errors: [{ message: 'Stop here.', extensions: { code: 'UNPROCESSABLE_CONTENT' } }] })
      expect(await rowCount(ctx, 'topics')).toBe(SEEDED_TOPICS)
      expect(await rowCount(ctx, 'articles')).toBe(seed.articles.length)
    })
  })

  describe('beforeUpdate', () => {
    beforeEach(() => ctx.reset())

    const metaFor = (keys: PrimaryKey[]) => ({ collection: 'articles', context: CONTEXT, keys })

    it('is called once for PATCH /:id with the data as sent and meta { collection, context, db, keys }', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ articles: { hooks: { beforeUpdate: recordBefore(calls) } } })
      const response = await request(app).patch('/api/items/articles/5?fields=id,rating').send({ rating: 1 })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 5, rating: 1 } })
      expect(calls.map(({ value, meta, metaKeys }) => ({ value, meta, metaKeys }))).toEqual([
        { value: { rating: 1 }, meta: metaFor([5]), metaKeys: ['collection', 'context', 'db', 'keys', 'signal'] },
      ])
      expect(isTransaction(calls[0]!.db)).toBe(true)
    })

    it('is called once for { keys, data } with every key', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ articles: { hooks: { beforeUpdate: recordBefore(calls) } } })
      const response = await request(app)
        .patch('/api/items/articles?fields=id,status')
        .send({ keys: [3, 4, 9], data: { status: 'archived' } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [3, 4, 9].map((id) => ({ id, status: 'archived' })) })
      expect(calls.map(({ value, meta }) => ({ value, meta }))).toEqual([{ value: { status: 'archived' }, meta: metaFor([3, 4, 9]) }])
    })

    it('is called once for { query, data } with the keys the query resolved to', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ articles: { hooks: { beforeUpdate: recordBefore(calls) } } })
      const response = await request(app)
        .patch('/api/items/articles?fields=id')
        .send({ query: { filter: { author: { _eq: QUERY_AUTHOR } } }, data: { rating: 4 } })
      expect(response.status).toBe(200)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.value).toEqual({ rating: 4 })
      const { keys, ...meta } = calls[0]!.meta
      expect(meta).toEqual({ collection: 'articles', context: CONTEXT })
      expect([...keys!].sort((a, b) => Number(a) - Number(b))).toEqual(AUTHOR_ARTICLES)
      expect(await rowCount(ctx, 'articles', { rating: 4, author: QUERY_AUTHOR })).toBe(AUTHOR_ARTICLES.length)
    })

    it('is called once per item of an array body, in order, each with its own key', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ articles: { hooks: { beforeUpdate: recordBefore(calls) } } })
      const response = await request(app)
        .patch('/api/items/articles?fields=id,title,rating')
        .send([
          { id: 1, rating: 2 },
          { id: 2, title: 'Renamed' },
        ])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: 1, title: seedArticle(1).title, rating: 2 },
          { id: 2, title: 'Renamed', rating: seedArticle(2).rating },
        ],
      })
      expect(calls.map(({ value, meta }) => ({ value, meta }))).toEqual([
        { value: { id: 1, rating: 2 }, meta: metaFor([1]) },
        { value: { id: 2, title: 'Renamed' }, meta: metaFor([2]) },
      ])
    })

    it('writes the data a hook returns; after hooks and events see it', async () => {
      const afterUpdate = jest.fn()
      const { app, events } = use({ articles: { hooks: { beforeUpdate: (data) => ({ ...data, status: 'archived' }), afterUpdate } } })
      const response = await request(app).patch('/api/items/articles/5?fields=id,title,status').send({ title: 'Edited' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 5, title: 'Edited', status: 'archived' } })
      expect(await articleRow(5)).toEqual({ id: 5, title: 'Edited', status: 'archived', rating: seedArticle(5).rating })
      const expected: ItemsEvent = {
        action: 'update',
        collection: 'articles',
        keys: [5],
        payloads: [{ title: 'Edited', status: 'archived' }],
        context: CONTEXT,
      }
      expect(eventsOf(afterUpdate)).toEqual([[expected]])
      expect(byName(events)).toEqual(emitted(expected))
    })

    it('validates the changed data: an invalid value is a 400 FAILED_VALIDATION and nothing is written', async () => {
      const { app, events } = use({ articles: { hooks: { beforeUpdate: (data) => ({ ...data, title: null }) } } })
      const response = await request(app).patch('/api/items/articles/5').send({ rating: 1 })
      expectError(response, 400, 'FAILED_VALIDATION')
      expect(response.body.errors[0].extensions).toEqual({
        code: 'FAILED_VALIDATION',
        field: 'title',
        type: 'type',
        collection: 'articles',
      })
      expect(await articleRow(5)).toEqual({
        id: 5,
        title: seedArticle(5).title,
        status: seedArticle(5).status,
        rating: seedArticle(5).rating,
      })
      expect(events).toEqual([])
    })

    it('aborts every change of the request when the hook throws for one of them', async () => {
      const afterUpdate = jest.fn()
      const { app, events } = use({
        articles: {
          hooks: {
            beforeUpdate: (data) => {
              if (data.id === 2) throw new ForbiddenError('Article 2 is frozen.')
            },
            afterUpdate,
          },
        },
      })
      const response = await request(app)
        .patch('/api/items/articles')
        .send([
          { id: 1, rating: 2 },
          { id: 2, rating: 2 },
          { id: 3, rating: 2 },
        ])
      expect(response.status).toBe(403)
      expect(response.body).toEqual({ errors: [{ message: 'Article 2 is frozen.', extensions: { code: 'FORBIDDEN' } }] })
      for (const id of [1, 2, 3]) expect((await articleRow(id))!.rating).toBe(seedArticle(id).rating)
      expect(afterUpdate).not.toHaveBeenCalled()
      expect(events).toEqual([])
    })

    it('answers 500 and logs a plain Error thrown by the hook; nothing is written', async () => {
      const boom = new TypeError('update hook broke')
      const { app, logger } = use({
        articles: {
          hooks: {
            beforeUpdate: () => {
              throw boom
            },
          },
        },
      })
      expectError(
        await request(app)
          .patch('/api/items/articles')
          .send({ keys: [1, 2], data: { rating: 1 } }),
        500,
        'INTERNAL_SERVER_ERROR',
      )
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(boom)
      expect([(await articleRow(1))!.rating, (await articleRow(2))!.rating]).toEqual([seedArticle(1).rating, seedArticle(2).rating])
    })

    it('rolls back a statement the hook ran on meta.db when the update fails afterwards', async () => {
      const { app } = use({
        articles: {
          hooks: {
            beforeUpdate: async (_data, meta) => {
              await meta.db('topics').insert({ name: `Touched ${meta.keys.join(',')}` })
            },
          },
        },
      })
      expectError(
        await request(app)
          .patch('/api/items/articles')
          .send([
            { id: 1, rating: 3 },
            { id: 2, author: 9999 },
          ]),
        400,
        'INVALID_FOREIGN_KEY',
      )
      expect(await rowCount(ctx, 'topics')).toBe(SEEDED_TOPICS)
      expect((await articleRow(1))!.rating).toBe(seedArticle(1).rating)
    })
  })

  describe('beforeDelete', () => {
    beforeEach(() => ctx.reset())

    const metaFor = { collection: 'comments', context: CONTEXT }
    const commentCount = (): Promise<number> => rowCount(ctx, 'comments')
    const remaining = async (ids: number[]): Promise<number[]> =>
      ((await ctx.knex('comments').whereIn('id', ids).orderBy('id').select('id')) as Array<{ id: number }>).map((row) => Number(row.id))

    it('receives [key] for DELETE /:id, with meta { collection, context, db }', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ comments: { hooks: { beforeDelete: recordBefore(calls) } } })
      const response = await request(app).delete('/api/items/comments/5')
      expect(response.status).toBe(204)
      expect(calls.map(({ value, meta, metaKeys }) => ({ value, meta, metaKeys }))).toEqual([
        { value: [5], meta: metaFor, metaKeys: ['collection', 'context', 'db', 'signal'] },
      ])
      expect(isTransaction(calls[0]!.db)).toBe(true)
      expect(await remaining([5])).toEqual([])
    })

    it.each<[string, unknown]>([
      ['an array of keys', [7, 8, 9]],
      ['{ keys }', { keys: [7, 8, 9] }],
    ])('receives the keys of %s', async (_label, body) => {
      const calls: BeforeCall[] = []
      const { app } = use({ comments: { hooks: { beforeDelete: recordBefore(calls) } } })
      const response = await request(app)
        .delete('/api/items/comments')
        .send(body as object)
      expect(response.status).toBe(204)
      expect(calls.map(({ value, meta }) => ({ value, meta }))).toEqual([{ value: [7, 8, 9], meta: metaFor }])
      expect(await commentCount()).toBe(seed.comments.length - 3)
    })

    it('receives the keys a { query } resolved to', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ comments: { hooks: { beforeDelete: recordBefore(calls) } } })
      const response = await request(app)
        .delete('/api/items/comments')
        .send({ query: { filter: { votes: { _eq: QUERY_VOTES } } } })
      expect(response.status).toBe(204)
      expect(calls).toHaveLength(1)
      expect(calls[0]!.meta).toEqual(metaFor)
      expect([...(calls[0]!.value as number[])].sort((a, b) => a - b)).toEqual(VOTED_COMMENTS)
      expect(await remaining(VOTED_COMMENTS)).toEqual([])
    })

    it('deletes only the keys a hook returns; the after hook and events name those', async () => {
      const afterDelete = jest.fn()
      const { app, events } = use({ comments: { hooks: { beforeDelete: (keys) => keys.filter((key) => key !== 8), afterDelete } } })
      const response = await request(app).delete('/api/items/comments').send([7, 8, 9])
      expect(response.status).toBe(204)
      expect(await remaining([7, 8, 9])).toEqual([8])
      expect(await commentCount()).toBe(seed.comments.length - 2)
      const expected: ItemsEvent = { action: 'delete', collection: 'comments', keys: [7, 9], payloads: [], context: CONTEXT }
      expect(eventsOf(afterDelete)).toEqual([[expected]])
      expect(byName(events)).toEqual(emitted(expected))
    })

    it.each<[string, () => Error, number, ErrorCode]>([
      ['an ItemsError', () => new ForbiddenError(), 403, 'FORBIDDEN'],
      ['a plain Error', () => new Error('delete hook broke'), 500, 'INTERNAL_SERVER_ERROR'],
    ])('keeps every row when the hook throws %s', async (_label, makeError, status, code) => {
      const error = makeError()
      const afterDelete = jest.fn()
      const { app, logger, events } = use({
        comments: {
          hooks: {
            beforeDelete: () => {
              throw error
            },
            afterDelete,
          },
        },
      })
      expectError(await request(app).delete('/api/items/comments').send([7, 8, 9]), status, code)
      expectError(await request(app).delete('/api/items/comments/10'), status, code)
      expect(await remaining([7, 8, 9, 10])).toEqual([7, 8, 9, 10])
      expect(logger.errors).toEqual(status === 500 ? [error, error] : [])
      expect(afterDelete).not.toHaveBeenCalled()
      expect(events).toEqual([])
    })

    it('rolls back a statement the hook ran on meta.db when the delete then fails', async () => {
      const { app } = use({
        articles: {
          hooks: {
            beforeDelete: async (keys, meta) => {
              await meta.db('topics').insert({ name: `Deleting ${keys.join(',')}` })
            },
          },
        },
      })
      // Article 1 still has comments pointing at it: the delete itself fails.
      expect(seed.comments.some((comment) => comment.article === 1)).toBe(true)
      expectError(await request(app).delete('/api/items/articles/1'), 400, 'INVALID_FOREIGN_KEY')
      expect(await rowCount(ctx, 'topics')).toBe(SEEDED_TOPICS)
      expect(await rowCount(ctx, 'articles', { id: 1 })).toBe(1)
    })
  })

  describe('beforeRead', () => {
    beforeAll(() => ctx.reset())

    const drafts = seed.articles.filter((article) => article.status === 'draft')

    it('receives the raw query object and meta { collection, context, db: the router knex }', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ articles: { hooks: { beforeRead: recordBefore(calls) } } })
      const response = await request(app).get('/api/items/articles?fields=title&filter[status][_eq]=draft&sort=id&limit=2')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: drafts.slice(0, 2).map(({ title }) => ({ title })) })
      expect(calls.map(({ value, meta, metaKeys }) => ({ value, meta, metaKeys }))).toEqual([
        {
          value: { fields: 'title', filter: { status: { _eq: 'draft' } }, sort: 'id', limit: '2' },
          meta: { collection: 'articles', context: CONTEXT },
          metaKeys: ['collection', 'context', 'db', 'signal'],
        },
      ])
      expect(calls[0]!.db).toBe(ctx.knex)
    })

    it('receives an empty object for a request without a query string', async () => {
      const calls: BeforeCall[] = []
      const { app } = use({ topics: { hooks: { beforeRead: recordBefore(calls) } } })
      const response = await request(app).get('/api/items/topics')
      expect(response.status).toBe(200)
      expect(calls.map(({ value }) => value)).toEqual([{}])
    })

    it('answers the query a hook returns: a forced filter replaces the one sent', async () => {
      const { app } = use({ articles: { hooks: { beforeRead: (query) => ({ ...query, filter: { author: { _eq: QUERY_AUTHOR } } }) } } })
      const response = await request(app).get('/api/items/articles?fields=id&sort=id&limit=-1&filter[status][_eq]=draft')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: AUTHOR_ARTICLES.map((id) => ({ id })) })
    })

    it('answers the query a hook returns: a forced limit and fields', async () => {
      const { app } = use({ articles: { hooks: { beforeRead: (query) => ({ ...query, limit: '3', fields: 'id,title' }) } } })
      const list = await request(app).get('/api/items/articles?fields=id,status&sort=id&limit=50')
      expect(list.status).toBe(200)
      expect(list.body).toEqual({ data: [1, 2, 3].map((id) => ({ id, title: seedArticle(id).title })) })
      const one = await request(app).get('/api/items/articles/5?fields=rating')
      expect(one.status).toBe(200)
      expect(one.body).toEqual({ data: { id: 5, title: seedArticle(5).title } })
    })

    it('keeps the query when the hook returns undefined', async () => {
      const { app } = use({ articles: { hooks: { beforeRead: () => undefined } } })
      const response = await request(app).get('/api/items/articles/7?fields=id,title')
      expect(response.body).toEqual({ data: { id: 7, title: seedArticle(7).title } })
    })

    it('answers 400 INVALID_QUERY for an invalid query the hook returns, before any statement', async () => {
      const { app } = use({ articles: { hooks: { beforeRead: (query) => ({ ...query, fields: 'nope' }) } } })
      await getInvalidQuery(ctx, app, '/api/items/articles?fields=id', ['"nope"', '"articles"'])
      await getInvalidQuery(ctx, app, '/api/items/articles/1', ['"nope"'])
    })

    it('answers the ItemsError a hook throws', async () => {
      const { app, logger } = use({
        articles: {
          hooks: {
            beforeRead: () => {
              throw new ItemsError('UNPROCESSABLE_CONTENT', 'Reads are paused.', { reason: 'maintenance' })
            },
          },
        },
      })
      const response = await request(app).get('/api/items/articles')
      expect(response.status).toBe(422)
      expect(response.body).toEqual({
        errors: [{ message: 'Reads are paused.', extensions: { code: 'UNPROCESSABLE_CONTENT', reason: 'maintenance' } }],
      })
      expectError(await request(app).get('/api/items/articles/1'), 422, 'UNPROCESSABLE_CONTENT')
      expect(logger.errors).toEqual([])
    })

    it('answers 403 for a ForbiddenError and 500 (logged) for a plain Error thrown by the hook', async () => {
      const boom = new Error('read hook broke')
      const { app, logger } = use({
        articles: {
          hooks: {
            beforeRead: () => {
              throw new ForbiddenError()
            },
          },
        },
        topics: {
          hooks: {
            beforeRead: async () => {
              throw boom
            },
          },
        },
      })
      expectError(await request(app).get('/api/items/articles'), 403, 'FORBIDDEN')
      expectError(await request(app).get('/api/items/topics'), 500, 'INTERNAL_SERVER_ERROR')
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(boom)
    })
  })

  describe('after hooks', () => {
    beforeEach(() => ctx.reset())

    /** Presets from access rules, beside the before hooks' changes: both belong in the event's payloads. */
    const access: Access = {
      read: true,
      create: { presets: { status: 'published', rating: 3 } },
      update: { presets: { status: 'archived' } },
      delete: true,
    }

    it('afterCreate receives exactly the ItemsEvent, payloads with presets and hook changes', async () => {
      const afterCreate = jest.fn()
      const { app } = build({ articles: { access, hooks: { beforeCreate: (item) => ({ ...item, tags: ['hooked'] }), afterCreate } } })
      const response = await request(app)
        .post('/api/items/articles?fields=id,title,status,rating,tags')
        .send([{ title: 'One' }, { title: 'Two', rating: 1 }])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: NEXT_ARTICLE, title: 'One', status: 'published', rating: 3, tags: ['hooked'] },
          { id: NEXT_ARTICLE + 1, title: 'Two', status: 'published', rating: 1, tags: ['hooked'] },
        ],
      })
      expect(eventsOf(afterCreate)).toEqual([
        [
          {
            action: 'create',
            collection: 'articles',
            keys: [NEXT_ARTICLE, NEXT_ARTICLE + 1],
            payloads: [
              { title: 'One', status: 'published', rating: 3, tags: ['hooked'] },
              { title: 'Two', status: 'published', rating: 1, tags: ['hooked'] },
            ],
            context: CONTEXT,
          },
        ],
      ])
    })

    it('afterUpdate receives exactly the ItemsEvent, one payload per key', async () => {
      const afterUpdate = jest.fn()
      const { app } = build({ articles: { access, hooks: { beforeUpdate: (data) => ({ ...data, tags: [] }), afterUpdate } } })
      const response = await request(app)
        .patch('/api/items/articles?fields=id,status,rating,tags')
        .send({ keys: [3, 4], data: { rating: 2 } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [3, 4].map((id) => ({ id, status: 'archived', rating: 2, tags: [] })) })
      const payload = { rating: 2, status: 'archived', tags: [] }
      expect(eventsOf(afterUpdate)).toEqual([
        [{ action: 'update', collection: 'articles', keys: [3, 4], payloads: [payload, payload], context: CONTEXT }],
      ])
    })

    it('afterUpdate of an array body lists each item with its own payload (without the key)', async () => {
      const afterUpdate = jest.fn()
      const { app } = use({ articles: { hooks: { afterUpdate } } })
      const response = await request(app)
        .patch('/api/items/articles?fields=id')
        .send([
          { id: 2, rating: 5 },
          { id: 1, title: 'First again' },
        ])
      expect(response.status).toBe(200)
      expect(eventsOf(afterUpdate)).toEqual([
        [{ action: 'update', collection: 'articles', keys: [2, 1], payloads: [{ rating: 5 }, { title: 'First again' }], context: CONTEXT }],
      ])
    })

    it('afterDelete receives exactly the ItemsEvent with empty payloads', async () => {
      const afterDelete = jest.fn()
      const { app } = use({ comments: { hooks: { afterDelete } } })
      expect(
        (
          await request(app)
            .delete('/api/items/comments')
            .send({ keys: [10, 11] })
        ).status,
      ).toBe(204)
      expect(eventsOf(afterDelete)).toEqual([
        [{ action: 'delete', collection: 'comments', keys: [10, 11], payloads: [], context: CONTEXT }],
      ])
    })

    it('run after commit: the write is visible through the host knex inside each after hook', async () => {
      const seen: unknown[] = []
      const { app, logger } = use({
        articles: {
          hooks: {
            afterCreate: async (event) => {
              seen.push(await ctx.knex('articles').where({ id: event.keys[0] }).first('title'))
            },
            afterUpdate: async (event) => {
              seen.push(await ctx.knex('articles').where({ id: event.keys[0] }).first('title'))
            },
          },
        },
        comments: {
          hooks: {
            afterDelete: async (event) => {
              seen.push(await rowCount(ctx, 'comments', { id: event.keys[0] }))
            },
          },
        },
      })
      expect((await request(app).post('/api/items/articles').send({ title: 'Committed' })).status).toBe(200)
      expect((await request(app).patch('/api/items/articles/4').send({ title: 'Updated and committed' })).status).toBe(200)
      expect((await request(app).delete('/api/items/comments/12')).status).toBe(204)
      expect(seen).toEqual([{ title: 'Committed' }, { title: 'Updated and committed' }, 0])
      expect(logger.errors).toEqual([])
    })

    it.each<[string, (error: Error) => Hooks]>([
      [
        'throws',
        (error) => ({
          afterCreate: () => {
            throw error
          },
        }),
      ],
      [
        'rejects',
        (error) => ({
          afterCreate: async () => {
            await Promise.resolve()
            throw error
          },
        }),
      ],
    ])('an afterCreate hook that %s is logged; the response is the normal success and the row stays', async (_label, hooks) => {
      const error = new Error('after hook failed')
      const { app, logger, events } = use({ articles: { hooks: hooks(error) } })
      const response = await request(app).post('/api/items/articles?fields=id,title').send({ title: 'Survives' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: NEXT_ARTICLE, title: 'Survives' } })
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(error)
      expect(await titleCount('Survives')).toBe(1)
      // The events still follow the failed hook.
      expect(byName(events).map(([name]) => name)).toEqual(['articles.items.create', 'items.create'])
    })

    it('throwing afterUpdate and afterDelete hooks are logged; the responses are the normal successes', async () => {
      const updateError = new Error('afterUpdate failed')
      const deleteError = new Error('afterDelete failed')
      const { app, logger } = use({
        articles: {
          hooks: {
            afterUpdate: async () => {
              throw updateError
            },
          },
        },
        comments: {
          hooks: {
            afterDelete: () => {
              throw deleteError
            },
          },
        },
      })
      const updated = await request(app).patch('/api/items/articles/6?fields=id,rating').send({ rating: 4 })
      expect(updated.status).toBe(200)
      expect(updated.body).toEqual({ data: { id: 6, rating: 4 } })
      const deleted = await request(app).delete('/api/items/comments/20')
      expect(deleted.status).toBe(204)
      expect(deleted.text).toBe('')
      expect(logger.errors).toEqual([updateError, deleteError])
      expect((await articleRow(6))!.rating).toBe(4)
      expect(await rowCount(ctx, 'comments', { id: 20 })).toBe(0)
    })

    it.each<[string, string, (app: Express) => request.Test, number, ErrorCode]>([
      [
        'a create failing validation',
        'afterCreate',
        (app) => request(app).post('/api/items/articles').send({ rating: 1 }),
        400,
        'FAILED_VALIDATION',
      ],
      [
        'a create naming a missing author',
        'afterCreate',
        (app) => request(app).post('/api/items/articles').send({ title: 'x', author: 9999 }),
        400,
        'INVALID_FOREIGN_KEY',
      ],
      [
        'an update of a missing item',
        'afterUpdate',
        (app) => request(app).patch('/api/items/articles/99999').send({ rating: 1 }),
        404,
        'NOT_FOUND',
      ],
      [
        'an update failing validation',
        'afterUpdate',
        (app) => request(app).patch('/api/items/articles/1').send({ rating: 'x' }),
        400,
        'FAILED_VALIDATION',
      ],
      ['a delete of a missing item', 'afterDelete', (app) => request(app).delete('/api/items/articles/99999'), 404, 'NOT_FOUND'],
      ['a delete of a referenced item', 'afterDelete', (app) => request(app).delete('/api/items/articles/1'), 400, 'INVALID_FOREIGN_KEY'],
    ])('do not run, and no event fires, for %s', async (_label, hookName, send, status, code) => {
      const hook = jest.fn()
      const { app, events } = use({ articles: { hooks: { [hookName]: hook } } })
      expectError(await send(app), status, code)
      expect(hook).not.toHaveBeenCalled()
      expect(events).toEqual([])
    })
  })

  describe('events', () => {
    beforeEach(() => ctx.reset())

    it.each<[string, (app: Express) => request.Test, number, ItemsEvent]>([
      [
        'POST',
        (app) =>
          request(app)
            .post('/api/items/articles?fields=id')
            .send([{ title: 'E1' }, { title: 'E2', rating: 4 }]),
        200,
        {
          action: 'create',
          collection: 'articles',
          keys: [NEXT_ARTICLE, NEXT_ARTICLE + 1],
          payloads: [{ title: 'E1' }, { title: 'E2', rating: 4 }],
          context: CONTEXT,
        },
      ],
      [
        'PATCH { keys, data }',
        (app) =>
          request(app)
            .patch('/api/items/articles?fields=id')
            .send({ keys: [8, 2], data: { status: 'archived' } }),
        200,
        {
          action: 'update',
          collection: 'articles',
          keys: [8, 2],
          payloads: [{ status: 'archived' }, { status: 'archived' }],
          context: CONTEXT,
        },
      ],
      [
        'PATCH /:id',
        (app) => request(app).patch('/api/items/articles/9?fields=id').send({ rating: null }),
        200,
        { action: 'update', collection: 'articles', keys: [9], payloads: [{ rating: null }], context: CONTEXT },
      ],
      [
        'DELETE',
        (app) => request(app).delete('/api/items/comments').send([30, 31]),
        204,
        { action: 'delete', collection: 'comments', keys: [30, 31], payloads: [], context: CONTEXT },
      ],
      [
        'DELETE /:id',
        (app) => request(app).delete('/api/items/comments/32'),
        204,
        { action: 'delete', collection: 'comments', keys: [32], payloads: [], context: CONTEXT },
      ],
    ])('%s emits items.<action> and <collection>.items.<action> once each with the ItemsEvent', async (_label, send, status, expected) => {
      const { app, events } = use({})
      expect((await send(app)).status).toBe(status)
      expect(byName(events)).toEqual(emitted(expected))
      // Both names carry the very same event object.
      expect(events[0]![1]).toBe(events[1]![1])
    })

    it('emits one event pair per request, also for a by-query update of many rows', async () => {
      const { app, events } = use({})
      const response = await request(app)
        .patch('/api/items/articles?fields=id')
        .send({ query: { filter: { author: { _eq: QUERY_AUTHOR } } }, data: { rating: 1 } })
      expect(response.status).toBe(200)
      expect(byName(events).map(([name]) => name)).toEqual(['articles.items.update', 'items.update'])
      const event = events[0]![1]
      expect([...event.keys].sort((a, b) => Number(a) - Number(b))).toEqual(AUTHOR_ARTICLES)
      expect(event).toEqual({
        action: 'update',
        collection: 'articles',
        keys: event.keys,
        payloads: AUTHOR_ARTICLES.map(() => ({ rating: 1 })),
        context: CONTEXT,
      })
    })

    it('a singleton PATCH runs the create hooks and events while the row is missing, the update ones afterwards', async () => {
      const creates: BeforeCall[] = []
      const updates: BeforeCall[] = []
      const { app, events } = use({ settings: { hooks: { beforeCreate: recordBefore(creates), beforeUpdate: recordBefore(updates) } } })
      expect(await rowCount(ctx, 'settings')).toBe(0)
      expect((await request(app).patch('/api/items/settings?fields=id,site_name').send({ site_name: 'Hooked site' })).body).toEqual({
        data: { id: 1, site_name: 'Hooked site' },
      })
      expect((await request(app).patch('/api/items/settings?fields=id,tagline').send({ tagline: 'Hooked tagline' })).body).toEqual({
        data: { id: 1, tagline: 'Hooked tagline' },
      })
      expect(creates.map(({ value, meta }) => ({ value, meta }))).toEqual([
        { value: { site_name: 'Hooked site' }, meta: { collection: 'settings', context: CONTEXT } },
      ])
      expect(updates.map(({ value, meta }) => ({ value, meta }))).toEqual([
        { value: { tagline: 'Hooked tagline' }, meta: { collection: 'settings', context: CONTEXT, keys: [1] } },
      ])
      expect(byName(events.slice(0, 2))).toEqual(
        emitted({ action: 'create', collection: 'settings', keys: [1], payloads: [{ site_name: 'Hooked site' }], context: CONTEXT }),
      )
      expect(byName(events.slice(2))).toEqual(
        emitted({ action: 'update', collection: 'settings', keys: [1], payloads: [{ tagline: 'Hooked tagline' }], context: CONTEXT }),
      )
    })

    it('does not fire on a failed write', async () => {
      const { app, events } = use({})
      expectError(
        await request(app)
          .post('/api/items/articles')
          .send([{ title: 'ok' }, { title: 'bad', author: 9999 }]),
        400,
        'INVALID_FOREIGN_KEY',
      )
      expectError(
        await request(app)
          .patch('/api/items/articles')
          .send({ keys: [1, 99999], data: { rating: 1 } }),
        404,
        'NOT_FOUND',
      )
      expectError(await request(app).delete('/api/items/articles').send([1]), 400, 'INVALID_FOREIGN_KEY')
      expectError(
        await request(app).post('/api/items/authors').send({ name: 'Dup', email: seed.authors[1]!.email }),
        400,
        'RECORD_NOT_UNIQUE',
      )
      expect(events).toEqual([])
    })

    it('does not fire on reads', async () => {
      const { app, events } = use({})
      expect((await request(app).get('/api/items/articles?limit=1')).status).toBe(200)
      expect((await request(app).get('/api/items/articles/1')).status).toBe(200)
      expect(events).toEqual([])
    })

    it('logs a listener that throws; the response and the other listeners are unaffected', async () => {
      const { app, router, logger, events } = use({})
      const failure = new Error('listener failed')
      listen(router, 'items.create', () => {
        throw failure
      })
      const response = await request(app).post('/api/items/articles?fields=id,title').send({ title: 'Heard' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: NEXT_ARTICLE, title: 'Heard' } })
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(failure)
      expect(byName(events).map(([name]) => name)).toEqual(['articles.items.create', 'items.create'])
      expect(await titleCount('Heard')).toBe(1)
    })

    it('logs an async listener that rejects (the rejection is captured, not left unhandled); the router keeps serving', async () => {
      const { app, router, logger } = use({})
      const failure = new Error('async listener failed')
      listen(router, 'articles.items.update', async () => {
        await Promise.resolve()
        throw failure
      })
      const response = await request(app).patch('/api/items/articles/3?fields=id,rating').send({ rating: 5 })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 3, rating: 5 } })
      // The rejection is logged on a later tick than the response.
      await settle(() => logger.errors.length > 0)
      expect(logger.errors).toHaveLength(1)
      expect(logger.errors[0]).toBe(failure)
      expect((await request(app).get('/api/items/articles/3?fields=rating')).body).toEqual({ data: { rating: 5 } })
    })

    it('listeners of one router do not hear another router', async () => {
      const first = build({})
      const second = build({})
      expect((await request(first.app).delete('/api/items/comments/40')).status).toBe(204)
      expect(first.events.map(([name]) => name).sort()).toEqual(['comments.items.delete', 'items.delete'])
      expect(second.events).toEqual([])
    })
  })

  describe('order', () => {
    beforeEach(() => ctx.reset())

    it('runs a POST as before hook → after hook → items.create event → response', async () => {
      const order: string[] = []
      let headersSentInHook: boolean | undefined
      let headersSentInEvent: boolean | undefined
      const { app, router } = build(
        {
          articles: {
            hooks: {
              beforeCreate: () => {
                order.push('beforeCreate')
              },
              afterCreate: async (event) => {
                // Yield first: the router must wait for the hook before emitting and answering.
                await new Promise((resolve) => setImmediate(resolve))
                headersSentInHook = (event.context.response as express.Response).headersSent
                order.push('afterCreate')
              },
            },
          },
        },
        { context: (req) => ({ response: req.res }) },
      )
      router.events.on('items.create', (event: ItemsEvent) => {
        headersSentInEvent = (event.context.response as express.Response).headersSent
        order.push('items.create')
      })
      const response = await request(app).post('/api/items/articles?fields=id').send({ title: 'In order' })
      order.push('response')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: NEXT_ARTICLE } })
      expect(order).toEqual(['beforeCreate', 'afterCreate', 'items.create', 'response'])
      expect([headersSentInHook, headersSentInEvent]).toEqual([false, false])
    })
  })

  describe('promote through /versions', () => {
    beforeEach(() => ctx.reset())

    it('fires beforeUpdate, afterUpdate and articles.items.update with the promoted change', async () => {
      const calls: BeforeCall[] = []
      const afterUpdate = jest.fn()
      const { app, events } = use({ articles: { hooks: { beforeUpdate: recordBefore(calls), afterUpdate } } })
      const created = await request(app).post('/api/versions').send({ collection: 'articles', item: 1, key: 'draft' })
      expect(created.status).toBe(200)
      const id = (created.body.data as { id: number }).id
      expect((await request(app).post(`/api/versions/${id}/save`).send({ title: 'Draft' })).status).toBe(200)
      const compared = await request(app).get(`/api/versions/${id}/compare`)
      expect(compared.status).toBe(200)
      // Saving a draft is not an update of the item.
      expect(calls).toEqual([])
      expect(afterUpdate).not.toHaveBeenCalled()
      expect(events).toEqual([])

      const promoted = await request(app)
        .post(`/api/versions/${id}/promote`)
        .send({ mainHash: (compared.body.data as { mainHash: string }).mainHash })
      expect(promoted.status).toBe(200)
      expect(promoted.body).toEqual({ data: 1 })
      expect(calls.map(({ value, meta }) => ({ value, meta }))).toEqual([
        { value: { title: 'Draft' }, meta: { collection: 'articles', context: CONTEXT, keys: [1] } },
      ])
      expect(isTransaction(calls[0]!.db)).toBe(true)
      const expected: ItemsEvent = { action: 'update', collection: 'articles', keys: [1], payloads: [{ title: 'Draft' }], context: CONTEXT }
      expect(eventsOf(afterUpdate)).toEqual([[expected]])
      expect(byName(events)).toEqual(emitted(expected))
      expect((await articleRow(1))!.title).toBe('Draft')
    })

    it('writes what the beforeUpdate hook returns, and a throwing hook leaves the item as it was', async () => {
      let refuse = false
      const { app, events } = use({
        articles: {
          hooks: {
            beforeUpdate: (data) => {
              if (refuse) throw new ForbiddenError()
              return { ...data, status: 'archived' }
            },
          },
        },
      })
      const id = (
        (await request(app).post('/api/versions').send({ collection: 'articles', item: 2, key: 'draft' })).body.data as { id: number }
      ).id
      expect((await request(app).post(`/api/versions/${id}/save`).send({ title: 'Draft' })).status).toBe(200)
      const mainHash = () =>
        request(app)
          .get(`/api/versions/${id}/compare`)
          .then((res) => (res.body.data as { mainHash: string }).mainHash)

      refuse = true
      expectError(
        await request(app)
          .post(`/api/versions/${id}/promote`)
          .send({ mainHash: await mainHash() }),
        403,
        'FORBIDDEN',
      )
      expect(await articleRow(2)).toEqual({
        id: 2,
        title: seedArticle(2).title,
        status: seedArticle(2).status,
        rating: seedArticle(2).rating,
      })
      expect(events).toEqual([])

      refuse = false
      expect(
        (
          await request(app)
            .post(`/api/versions/${id}/promote`)
            .send({ mainHash: await mainHash() })
        ).status,
      ).toBe(200)
      expect(await articleRow(2)).toEqual({ id: 2, title: 'Draft', status: 'archived', rating: seedArticle(2).rating })
      expect(byName(events)).toEqual(
        emitted({
          action: 'update',
          collection: 'articles',
          keys: [2],
          payloads: [{ title: 'Draft', status: 'archived' }],
          context: CONTEXT,
        }),
      )
    })
  })
})
