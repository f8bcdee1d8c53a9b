// POST /items/:collection creates one or many items atomically, validates payloads and maps constraint errors alike on every database.
import express, { type Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createItemsRouter } from '../../lib'
import { createApp, recordingLogger } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'
import { expectCounts, rowCount } from '../support/write-checks'

const AUTHOR_FIELDS = 'id,name,email,bio'
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  /** Row counts taken before each refused request: a refusal test only has to prove that its own request wrote nothing. */
  let before: Record<string, number> = {}
  const snapshotCounts = async (): Promise<void> => {
    const tables = ['authors', 'articles', 'comments', 'topics', 'samples', 'settings']
    before = Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await rowCount(ctx, table)] as const)))
  }
  const expectUnchanged = (collection: string): Promise<void> => expectCounts(app, ctx, collection, before[collection]!)
  const refusalsOnly = (): void => {
    beforeAll(() => ctx.reset())
    beforeEach(snapshotCounts)
  }

  describe('one object', () => {
    beforeEach(async () => {
      await ctx.reset()
    })

    it('answers 200 with the created item read back through ?fields=', async () => {
      const response = await request(app)
        .post(`/api/items/authors?fields=${AUTHOR_FIELDS},articles`)
        .send({ name: 'Ada Lovelace', email: 'ada@example.com' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: { id: seed.authors.length + 1, name: 'Ada Lovelace', email: 'ada@example.com', bio: null, articles: [] },
      })
      expect(Object.keys(response.body.data as object)).toEqual(['id', 'name', 'email', 'bio', 'articles'])
    })

    it('answers every readable field (o2m as child keys) when no fields are asked', async () => {
      const response = await request(app)
        .post('/api/items/articles')
        .send({ title: 'Fresh', rating: 4, tags: ['a'] })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: {
          id: seed.articles.length + 1,
          title: 'Fresh',
          status: 'draft',
          rating: 4,
          published_at: null,
          tags: ['a'],
          author: null,
          parent: null,
          comments: [],
          topics: [],
        },
      })
    })

    it('applies the database defaults for omitted fields', async () => {
      const article = await request(app).post('/api/items/articles?fields=id,status').send({ title: 'Defaults' })
      expect(article.body).toEqual({ data: { id: seed.articles.length + 1, status: 'draft' } })
      const comment = await request(app).post('/api/items/comments?fields=id,article,votes,body').send({ article: 1 })
      expect(comment.body).toEqual({ data: { id: seed.comments.length + 1, article: 1, votes: 0, body: null } })
    })

    it('generates a lower-case uuid primary key when it is omitted', async () => {
      const response = await request(app).post('/api/items/samples?fields=id,label').send({ label: 'generated' })
      expect(response.status).toBe(200)
      const id = (response.body as { data: { id: string } }).data.id
      expect(id).toMatch(UUID_V4)
      expect(response.body).toEqual({ data: { id, label: 'generated' } })
      const read = await request(app).get(`/api/items/samples/${id}?fields=id,label`)
      expect(read.body).toEqual({ data: { id, label: 'generated' } })
    })

    it('honours an explicit primary key and continues auto-increment after it', async () => {
      const explicit = await request(app).post('/api/items/articles?fields=id,title').send({ id: 500, title: 'Explicit' })
      expect(explicit.status).toBe(200)
      expect(explicit.body).toEqual({ data: { id: 500, title: 'Explicit' } })
      const next = await request(app).post('/api/items/articles?fields=id,title').send({ title: 'After' })
      expect(next.status).toBe(200)
      expect(next.body).toEqual({ data: { id: 501, title: 'After' } })
    })

    it('does not collide when an explicit key takes the next auto-increment value', async () => {
      const nextId = seed.articles.length + 1
      const explicit = await request(app).post('/api/items/articles?fields=id').send({ id: nextId, title: 'Takes the next id' })
      expect(explicit.body).toEqual({ data: { id: nextId } })
      const auto = await request(app).post('/api/items/articles?fields=id').send({ title: 'Auto' })
      expect(auto.status).toBe(200)
      expect(auto.body).toEqual({ data: { id: nextId + 1 } })
    })

    it('writes the hidden password_hash but never returns it', async () => {
      const response = await request(app).post('/api/items/authors').send({ name: 'Secretive', password_hash: '$hash$new' })
      expect(response.status).toBe(200)
      const id = seed.authors.length + 1
      expect(response.body).toEqual({ data: { id, name: 'Secretive', email: null, bio: null, articles: [] } })
      const row = await ctx.knex('authors').where({ id }).first('password_hash')
      expect(row).toEqual({ password_hash: '$hash$new' })
    })

    it('counts maxLength in characters, not bytes', async () => {
      const response = await request(app)
        .post('/api/items/articles?fields=title')
        .send({ title: '🚀'.repeat(200) })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { title: '🚀'.repeat(200) } })
    })

    it('refuses a readonly field with 400 and accepts the item without it', async () => {
      const readonlyApp = express()
      readonlyApp.use(
        '/api',
        createItemsRouter({
          knex: ctx.knex,
          defaultAccess: true,
          logger: recordingLogger(),
          collections: {
            ...collections,
            authors: { ...collections.authors, fields: { ...collections.authors.fields, bio: { type: 'text', readonly: true } } },
          },
        }),
      )
      const refused = await request(readonlyApp).post('/api/items/authors').send({ name: 'R', bio: 'not allowed' })
      expect(refused.status).toBe(400)
      expect(refused.body.errors).toEqual([
        { message: expect.any(String), extensions: { code: 'FAILED_VALIDATION', collection: 'authors', field: 'bio', type: 'readonly' } },
      ])
      await expectCounts(app, ctx, 'authors', seed.authors.length)
      const accepted = await request(readonlyApp).post(`/api/items/authors?fields=${AUTHOR_FIELDS}`).send({ name: 'R' })
      expect(accepted.status).toBe(200)
      expect(accepted.body).toEqual({ data: { id: seed.authors.length + 1, name: 'R', email: null, bio: null } })
    })
  })

  describe('an array', () => {
    beforeEach(async () => {
      await ctx.reset()
    })

    it('answers the created items in input order, not key order', async () => {
      const response = await request(app)
        .post('/api/items/authors?fields=id,name')
        .send([{ name: 'Auto' }, { id: 50, name: 'Fifty' }, { id: 40, name: 'Forty' }])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: seed.authors.length + 1, name: 'Auto' },
          { id: 50, name: 'Fifty' },
          { id: 40, name: 'Forty' },
        ],
      })
      await expectCounts(app, ctx, 'authors', seed.authors.length + 3)
    })

    it('creates several auto-increment items with consecutive keys', async () => {
      const names = ['Uno', 'Dos', 'Tres']
      const response = await request(app)
        .post('/api/items/authors?fields=id,name')
        .send(names.map((name) => ({ name })))
      expect(response.body).toEqual({ data: names.map((name, i) => ({ id: seed.authors.length + 1 + i, name })) })
    })

    it('pairs each item of a long batch with its key, through runs of different fields, keys and defaults', async () => {
      // Runs of one INSERT each: 600 alike (past SQLite's 500-row statement), then items with other fields,
      // an explicit key, only the required field, and the first shape again.
      const alike = Array.from({ length: 600 }, (_, i) => ({ title: `Alike ${i}`, rating: i % 5 }))
      const others = [
        { title: 'Status given', status: 'published' },
        { title: 'Keyed', id: 5000 },
        { title: 'Bare' },
        { title: 'Again', rating: 1 },
      ]
      const response = await request(app)
        .post('/api/items/articles?fields=id,title,status,rating')
        .send([...alike, ...others])
      expect(response.status).toBe(200)
      const data = (response.body as { data: { id: number; title: string; status: string; rating: number | null }[] }).data
      expect(data.map((item) => item.title)).toEqual([...alike.map((item) => item.title), 'Status given', 'Keyed', 'Bare', 'Again'])
      expect(data.slice(0, 600).map((item) => item.id)).toEqual(alike.map((_, i) => seed.articles.length + 1 + i))
      expect(data[601]!.id).toBe(5000)
      // Omitted fields take the column's default in every run, not another row's value or NULL.
      expect(data.filter((item) => item.title !== 'Status given').every((item) => item.status === 'draft')).toBe(true)
      expect(data[0]!.rating).toBe(0)
      expect(data[602]!.rating).toBeNull()
      // The database agrees on every key's row.
      const stored = await ctx
        .knex('articles')
        .whereIn(
          'id',
          data.map((item) => item.id),
        )
        .select('id', 'title')
      expect(new Map(stored.map((row: { id: number; title: string }) => [Number(row.id), row.title]))).toEqual(
        new Map(data.map((item) => [item.id, item.title])),
      )
    })

    it('answers { data: [] } for an empty array and writes nothing', async () => {
      const response = await request(app).post('/api/items/authors').send([])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [] })
      await expectCounts(app, ctx, 'authors', seed.authors.length)
    })

    it('accepts a self-reference to an item created earlier in the same batch with an explicit key', async () => {
      const response = await request(app)
        .post('/api/items/articles?fields=id,title,parent')
        .send([
          { id: 1000, title: 'Parent' },
          { id: 1001, title: 'Child', parent: 1000 },
        ])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: 1000, title: 'Parent', parent: null },
          { id: 1001, title: 'Child', parent: 1000 },
        ],
      })
    })

    it('accepts up to maxBatchSize items', async () => {
      const small = createApp(ctx.knex, { maxBatchSize: 3 })
      const response = await request(small)
        .post('/api/items/topics?fields=name')
        .send([{ name: 'a' }, { name: 'b' }, { name: 'c' }])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] })
    })

    it('refuses more than maxBatchSize items with 400 and writes nothing', async () => {
      const small = createApp(ctx.knex, { maxBatchSize: 3 })
      const response = await request(small)
        .post('/api/items/topics')
        .send([{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'd' }])
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD')
      await expectCounts(app, ctx, 'topics', seed.topics.length)
    })
  })

  describe('payload validation', () => {
    refusalsOnly()

    it.each([
      ['an unknown field', { title: 'x', nope: 1 }, 'nope', 'additionalProperties'],
      ['a wrong type', { title: 'x', rating: 'abc' }, 'rating', 'type'],
      ['a fraction for an integer', { title: 'x', rating: 2.5 }, 'rating', 'type'],
      ['an invalid date', { title: 'x', published_at: '2024-02-30T10:00:00' }, 'published_at', 'format'],
      ['a date that is not a date at all', { title: 'x', published_at: 'yesterday' }, 'published_at', 'format'],
      ['a missing required field', { rating: 3 }, 'title', 'required'],
      ['null for a not-nullable field', { title: null }, 'title', 'type'],
      ['a string over maxLength', { title: 'x'.repeat(201) }, 'title', 'maxLength'],
      ['an integer above int32', { title: 'x', rating: 2147483648 }, 'rating', 'maximum'],
      ['an integer below int32', { title: 'x', rating: -2147483649 }, 'rating', 'minimum'],
      ['a wrongly typed foreign key', { title: 'x', author: 'one' }, 'author', 'type'],
    ])('refuses %s with 400 FAILED_VALIDATION naming the field', async (_label, body, field, type) => {
      const response = await request(app).post('/api/items/articles').send(body)
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0]).toEqual({
        message: expect.any(String),
        extensions: { code: 'FAILED_VALIDATION', collection: 'articles', field, type },
      })
      expect(response.body.errors[0].message).toContain(field)
      await expectUnchanged('articles')
    })

    it('reports one error per failing field', async () => {
      const response = await request(app).post('/api/items/articles').send({ rating: 'abc', nope: true, published_at: 'no' })
      expect(response.status).toBe(400)
      const errors = response.body.errors as Array<{ extensions: { code: string; field: string } }>
      expect(errors.map((error) => error.extensions.code)).toEqual(Array(4).fill('FAILED_VALIDATION'))
      expect(errors.map((error) => error.extensions.field).sort()).toEqual(['nope', 'published_at', 'rating', 'title'])
    })

    it('adds the item index to the errors of an array body', async () => {
      const response = await request(app)
        .post('/api/items/articles')
        .send([{ title: 'fine' }, { title: 'bad', rating: 'abc' }])
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        {
          message: expect.any(String),
          extensions: { code: 'FAILED_VALIDATION', collection: 'articles', field: 'rating', type: 'type', item: 1 },
        },
      ])
      await expectUnchanged('articles')
    })

    it('reports the errors of several items together', async () => {
      const response = await request(app)
        .post('/api/items/articles')
        .send([{ rating: 1 }, { title: 'fine' }, { title: 'bad', rating: 'abc' }, { title: 'x'.repeat(300) }])
      expect(response.status).toBe(400)
      const errors = response.body.errors as Array<{ extensions: { code: string; field: string; item: number } }>
      expect(errors.map(({ extensions: { code, field, item } }) => ({ code, field, item }))).toEqual([
        { code: 'FAILED_VALIDATION', field: 'title', item: 0 },
        { code: 'FAILED_VALIDATION', field: 'rating', item: 2 },
        { code: 'FAILED_VALIDATION', field: 'title', item: 3 },
      ])
      await expectUnchanged('articles')
    })
  })

  describe('body shape', () => {
    refusalsOnly()

    it.each([
      ['a number', '42'],
      ['a string', '"text"'],
      ['true', 'true'],
      ['null', 'null'],
      ['an array holding a number', '[1]'],
      ['an array holding a string', '["x"]'],
      ['an array holding null', '[null]'],
      ['an array holding an array', '[[]]'],
      ['an array mixing an object and a number', '[{"name":"ok"},7]'],
    ])('refuses %s with 400 INVALID_PAYLOAD', async (_label, raw) => {
      const response = await request(app).post('/api/items/authors').set('Content-Type', 'application/json').send(raw)
      expect(response.status).toBe(400)
      expect(response.body.errors.length).toBeGreaterThan(0)
      for (const error of response.body.errors) expect(error.extensions.code).toBe('INVALID_PAYLOAD')
      await expectUnchanged('authors')
    })

    it('refuses malformed JSON with 400 INVALID_PAYLOAD', async () => {
      const response = await request(app).post('/api/items/authors').set('Content-Type', 'application/json').send('{"name": "x"')
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        errors: [
          { message: expect.stringMatching(/^Invalid payload\. /), extensions: expect.objectContaining({ code: 'INVALID_PAYLOAD' }) },
        ],
      })
    })

    it.each([
      ['a text/plain body', (r: request.Test) => r.set('Content-Type', 'text/plain').send('{"name":"x"}')],
      ['a form body', (r: request.Test) => r.type('form').send('name=x')],
      ['no body at all', (r: request.Test) => r],
    ])('refuses %s (no JSON content type) with 400 INVALID_PAYLOAD', async (_label, send) => {
      const response = await send(request(app).post('/api/items/authors'))
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions.code).toBe('INVALID_PAYLOAD')
      await expectUnchanged('authors')
    })

    it('refuses a body over bodyLimit with 413 PAYLOAD_TOO_LARGE and writes nothing', async () => {
      const small = createApp(ctx.knex, { bodyLimit: 200 })
      const fits = await request(small).post('/api/items/authors?fields=name').send({ name: 'short' })
      expect(fits.status).toBe(200)
      const response = await request(small)
        .post('/api/items/authors')
        .send({ name: 'long', bio: 'x'.repeat(300) })
      expect(response.status).toBe(413)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE')
      await expectCounts(app, ctx, 'authors', before.authors! + 1)
    })

    it('answers 404 ROUTE_NOT_FOUND for a singleton collection and creates nothing', async () => {
      const response = await request(app).post('/api/items/settings').send({ site_name: 'nope' })
      expect(response.status).toBe(404)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions.code).toBe('ROUTE_NOT_FOUND')
      await expectUnchanged('settings')
    })

    it('answers 404 ROUTE_NOT_FOUND for an unknown collection', async () => {
      const response = await request(app).post('/api/items/nothing_here').send({ a: 1 })
      expect(response.status).toBe(404)
      expect(response.body.errors[0].extensions.code).toBe('ROUTE_NOT_FOUND')
    })
  })

  describe('database constraints', () => {
    refusalsOnly()

    it('answers 400 RECORD_NOT_UNIQUE naming email for a duplicate unique value', async () => {
      const response = await request(app).post('/api/items/authors').send({ name: 'Copy', email: seed.authors[0]!.email })
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', collection: 'authors', field: 'email' })
      expect(JSON.stringify(response.body)).not.toMatch(/insert|constraint|SQLITE|duplicate entry/i)
      await expectUnchanged('authors')
    })

    it('answers 400 RECORD_NOT_UNIQUE naming the key for a duplicate primary key', async () => {
      const response = await request(app).post('/api/items/authors').send({ id: 1, name: 'Copy of one' })
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', collection: 'authors', field: 'id' })
      const one = await request(app).get('/api/items/authors/1?fields=name')
      expect(one.body).toEqual({ data: { name: seed.authors[0]!.name } })
    })

    it('answers 400 RECORD_NOT_UNIQUE for a duplicate uuid primary key', async () => {
      const response = await request(app).post('/api/items/samples').send({ id: seed.samples[0]!.id.toUpperCase(), label: 'clash' })
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', collection: 'samples', field: 'id' })
      await expectUnchanged('samples')
    })

    it('answers the same 400 INVALID_FOREIGN_KEY body on every database for a missing author', async () => {
      const response = await request(app).post('/api/items/articles').send({ title: 'Orphan', author: 999 })
      expect(response.status).toBe(400)
      expect(response.body).toEqual({
        errors: [
          {
            message: 'Invalid foreign key (field "author"): "authors" has no item 999.',
            extensions: { code: 'INVALID_FOREIGN_KEY', collection: 'articles', field: 'author', value: 999 },
          },
        ],
      })
      await expectUnchanged('articles')
    })

    it('answers 400 INVALID_FOREIGN_KEY for a self-reference to an item that does not exist', async () => {
      const response = await request(app).post('/api/items/articles').send({ title: 'Lost child', parent: 4242 })
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toEqual({
        code: 'INVALID_FOREIGN_KEY',
        collection: 'articles',
        field: 'parent',
        value: 4242,
      })
    })
  })

  describe('atomicity: one bad item in an array writes nothing', () => {
    refusalsOnly()

    it('a validation error in one item', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .send([{ name: 'First' }, { name: 'Second' }, { name: 'Third', email: 42 }])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'FAILED_VALIDATION', field: 'email', item: 2 })
      await expectUnchanged('authors')
    })

    it('a duplicate email in the middle of the batch', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .send([
          { name: 'Before', email: 'before@example.com' },
          { name: 'Clash', email: seed.authors[1]!.email },
          { name: 'After', email: 'after@example.com' },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', collection: 'authors', field: 'email' })
      await expectUnchanged('authors')
      expect(await ctx.knex('authors').whereIn('email', ['before@example.com', 'after@example.com']).select('id')).toEqual([])
    })

    it('two new items sharing one email', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .send([
          { name: 'Twin A', email: 'twin@example.com' },
          { name: 'Twin B', email: 'twin@example.com' },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', field: 'email' })
      await expectUnchanged('authors')
    })

    it('two items with the same explicit primary key', async () => {
      const response = await request(app)
        .post('/api/items/authors')
        .send([
          { id: 900, name: 'Nine hundred' },
          { id: 900, name: 'Nine hundred again' },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', field: 'id' })
      await expectUnchanged('authors')
    })

    it('a bad foreign key in the last item', async () => {
      const response = await request(app)
        .post('/api/items/articles')
        .send([
          { title: 'One', author: 1 },
          { title: 'Two', author: 2 },
          { title: 'Three', author: 999 },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        {
          message: 'Invalid foreign key (field "author"): "authors" has no item 999.',
          extensions: { code: 'INVALID_FOREIGN_KEY', collection: 'articles', field: 'author', value: 999 },
        },
      ])
      await expectUnchanged('articles')
    })

    it('a bad foreign key after items whose keys the database assigned', async () => {
      const response = await request(app)
        .post('/api/items/comments')
        .send([
          { article: 1, body: 'ok' },
          { article: 2, body: 'ok' },
          { article: 99999, body: 'no such article' },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toEqual({
        code: 'INVALID_FOREIGN_KEY',
        collection: 'comments',
        field: 'article',
        value: 99999,
      })
      await expectUnchanged('comments')
    })
  })

  if (ctx.name === 'mysql') {
    describe('MySQL: a batch as one INSERT, its keys counted from the first', () => {
      // A session whose keys step by 3, as on a 3-node Galera cluster or with auto_increment_increment set.
      let stepped: Knex
      beforeAll(() => {
        const config = knexConfig('mysql')
        stepped = knexFactory({
          ...config,
          pool: {
            min: 0,
            max: 1,
            afterCreate: (
              connection: { query(sql: string, done: (error: Error | null) => void): void },
              done: (error: Error | null, c: unknown) => void,
            ) => connection.query('set session auto_increment_increment = 3', (error) => done(error, connection)),
          },
        })
      })
      afterAll(() => stepped.destroy())
      beforeEach(() => ctx.reset())

      it('pairs each item with its key when keys step by auto_increment_increment, in one INSERT', async () => {
        const served = createApp(stepped)
        const titles = Array.from({ length: 40 }, (_, i) => `Stepped ${i}`)
        const sql: string[] = []
        const seen = (query: { sql: string }): void => void sql.push(query.sql)
        stepped.on('query', seen)
        const response = await request(served)
          .post('/api/items/articles?fields=id,title')
          .send(titles.map((title) => ({ title })))
        stepped.off('query', seen)
        expect(response.status).toBe(200)
        const data = (response.body as { data: { id: number; title: string }[] }).data
        expect(data.map((item) => item.title)).toEqual(titles)
        const ids = data.map((item) => item.id)
        expect(ids.slice(1).map((id, i) => id - ids[i]!)).toEqual(titles.slice(1).map(() => 3))
        expect(sql.filter((statement) => /\binsert into\b/i.test(statement))).toHaveLength(1)
        const stored = (await ctx.knex('articles').whereIn('id', ids).select('id', 'title')) as { id: number; title: string }[]
        expect(new Map(stored.map((row) => [Number(row.id), row.title]))).toEqual(new Map(data.map((item) => [item.id, item.title])))
      })
    })
  }
})
