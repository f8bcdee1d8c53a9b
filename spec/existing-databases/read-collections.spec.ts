// readCollections over a schema other code made: what it reads, and the router serving it, checked against plain SQL.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createItemsRouter, describeDatabase, readCollections, type Collections, type ReadCollectionsOptions } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'
import { closeLegacyDatabase, openLegacyDatabase } from './legacy-database'
import { ADA, GRACE } from './legacy-schema'

const VIEWS: ReadCollectionsOptions = { viewKeys: { published_posts: 'PostId' } }

function serve(knex: Knex, collections: Collections): Express {
  const app = express()
  app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections, logger: recordingLogger() }))
  return app
}

/** Rows as the API would list them: keys as given, numbers for comparison. */
const ids = (rows: Array<Record<string, unknown>>, key: string): string[] => rows.map((row) => String(row[key]))

forEachDialect((ctx) => {
  describe(`${ctx.name}: readCollections over an existing database`, () => {
    let knex: Knex
    let app: Express
    const warnings: string[] = []

    beforeAll(async () => {
      knex = await openLegacyDatabase(ctx.name, ctx.knex)
      const collections = await readCollections(knex, { ...VIEWS, logger: { warn: (message) => warnings.push(message) } })
      app = serve(knex, collections)
    })
    afterAll(() => closeLegacyDatabase(ctx.name, knex))

    it('reads keys, types, defaults, constraints and relations from the catalog', async () => {
      const { collections, skipped } = await describeDatabase(knex, VIEWS)
      expect(Object.keys(collections).sort()).toEqual(['Author', 'BlogPost', 'categories', 'post_tags', 'published_posts'])
      const post = collections.BlogPost!.fields
      expect(post.PostId).toEqual({ type: ctx.name === 'sqlite' ? 'integer' : 'bigInteger', primaryKey: true, autoIncrement: true })
      expect(post.title).toEqual({ type: 'string', nullable: false, maxLength: 200 })
      expect(post.status).toMatchObject({ nullable: false, default: 'draft', enum: ['draft', 'published', 'archived'] })
      expect(post.price).toEqual({ type: 'decimal', precision: 10, scale: 2 })
      expect(post.word_count).toMatchObject({ type: 'integer', generated: true, readonly: true })
      expect(post.author_id).toMatchObject({ type: 'uuid', nullable: false, references: 'Author', onDelete: 'cascade' })
      expect(post.reviewer_id).toMatchObject({ type: 'uuid', references: 'Author', onDelete: 'setNull' })
      expect(post.category_id).toMatchObject({ references: 'categories' })
      expect(collections.Author!.fields).toMatchObject({
        AuthorId: { type: 'uuid', primaryKey: true },
        email: { unique: true },
        // A computed default (now(), CURRENT_TIMESTAMP): the column need not be sent.
        created_at: { nullable: false, default: null },
        BlogPost_by_author_id: { type: 'o2m', collection: 'BlogPost', foreignKey: 'author_id' },
        BlogPost_by_reviewer_id: { type: 'o2m', collection: 'BlogPost', foreignKey: 'reviewer_id' },
      })
      expect(collections.categories!.fields).toMatchObject({
        parent_id: { references: 'categories', onDelete: 'setNull' },
        categories: { type: 'o2m', collection: 'categories', foreignKey: 'parent_id' },
        BlogPost: { type: 'o2m', collection: 'BlogPost', foreignKey: 'category_id' },
      })
      expect(collections.published_posts).toMatchObject({
        access: { read: true },
        fields: { PostId: { primaryKey: true, readonly: true } },
      })
      expect(skipped).toEqual([{ table: 'audit_log', reason: 'no primary key' }])
      expect(warnings).toEqual(expect.arrayContaining([expect.stringContaining('audit_log: no primary key')]))
      // A composite key is served (composite-keys.spec.ts).
      expect(collections.post_tags!.fields).toMatchObject({ post_id: { primaryKey: true }, tag: { primaryKey: true } })
      if (ctx.name === 'postgres') {
        expect(post.tags).toEqual({ type: 'array', elementType: 'text', nullable: false, default: [] })
        expect(collections.categories!.fields.id).toMatchObject({ autoIncrement: true, generated: true })
        // The same, named explicitly rather than through the connection's search_path.
        expect((await describeDatabase(ctx.knex, { ...VIEWS, schema: 'legacy' })).collections).toEqual(collections)
      } else expect(post.tags).toMatchObject({ type: 'json' })
      if (ctx.name === 'sqlite') {
        // knex wrote JS Dates as epoch milliseconds; CURRENT_TIMESTAMP writes SQL text.
        expect(post.published_at).toMatchObject({ type: 'timestamp', storage: 'epochMs' })
        expect(collections.Author!.fields.created_at).toMatchObject({ type: 'dateTime', storage: 'sqlText' })
      }
    })

    it('lists with many-to-one relations as the SQL join answers', async () => {
      const res = await request(app).get(
        '/api/items/BlogPost?fields=PostId,title,price,author_id.DisplayName,reviewer_id.DisplayName&sort=PostId',
      )
      expect(res.status).toBe(200)
      const rows = (await knex('BlogPost as p')
        .join('Author as a', 'a.AuthorId', 'p.author_id')
        .leftJoin('Author as r', 'r.AuthorId', 'p.reviewer_id')
        .orderBy('p.PostId')
        .select('p.PostId', 'p.title', 'p.price', 'a.DisplayName as author', 'r.DisplayName as reviewer')) as Array<Record<string, unknown>>
      expect(res.body.data).toEqual(
        rows.map((row) => ({
          PostId: ctx.name === 'sqlite' ? row.PostId : String(row.PostId),
          title: row.title,
          price: row.price === null ? null : Number(row.price).toFixed(2),
          author_id: { DisplayName: row.author },
          reviewer_id: row.reviewer === null ? null : { DisplayName: row.reviewer },
        })),
      )
    })

    it('lists one-to-many aliases, self references included, as SQL answers them', async () => {
      const authors = await request(app).get(
        '/api/items/Author?fields=AuthorId,BlogPost_by_author_id.title,BlogPost_by_reviewer_id.title&sort=AuthorId',
      )
      expect(authors.status).toBe(200)
      for (const author of authors.body.data as Array<{
        AuthorId: string
        BlogPost_by_author_id: { title: string }[]
        BlogPost_by_reviewer_id: { title: string }[]
      }>) {
        const written = await knex('BlogPost').where('author_id', author.AuthorId).orderBy('PostId').pluck('title')
        const reviewed = await knex('BlogPost').where('reviewer_id', author.AuthorId).orderBy('PostId').pluck('title')
        expect(author.BlogPost_by_author_id.map((post) => post.title)).toEqual(written)
        expect(author.BlogPost_by_reviewer_id.map((post) => post.title)).toEqual(reviewed)
      }
      const tree = await request(app).get('/api/items/categories?fields=name,parent_id.name,categories.name&sort=id')
      expect(tree.status).toBe(200)
      expect(tree.body.data).toEqual([
        { name: 'Science', parent_id: null, categories: [{ name: 'Physics' }, { name: 'Biology' }] },
        { name: 'Physics', parent_id: { name: 'Science' }, categories: [] },
        { name: 'Biology', parent_id: { name: 'Science' }, categories: [] },
      ])
      expect(await knex('categories').where('parent_id', 1).orderBy('id').pluck('name')).toEqual(['Physics', 'Biology'])
    })

    it('filters as SQL does: decimals, enums, relations and instants', async () => {
      const cases: Array<[string, Knex.QueryBuilder]> = [
        ['filter[price][_gte]=10', knex('BlogPost').where('price', '>=', 10)],
        ['filter[status][_eq]=published', knex('BlogPost').where('status', 'published')],
        ['filter[author_id][DisplayName][_starts_with]=Grace', knex('BlogPost').where('author_id', GRACE)],
        ['filter[reviewer_id][_null]=true', knex('BlogPost').whereNull('reviewer_id')],
        [
          'filter[category_id][parent_id][name][_eq]=Science',
          knex('BlogPost').whereIn('category_id', knex('categories').where('parent_id', 1).select('id')),
        ],
      ]
      for (const [query, sql] of cases) {
        const res = await request(app).get(`/api/items/BlogPost?fields=PostId&sort=PostId&${query}`)
        expect({ query, status: res.status, ids: ids(res.body.data ?? [], 'PostId') }).toEqual({
          query,
          status: 200,
          ids: ids((await sql.orderBy('PostId').select('PostId')) as Array<Record<string, unknown>>, 'PostId'),
        })
      }
      // The seed's instants: 2025-06-01T08:00Z (post 1) and 2025-07-15T12:30Z (post 2), stored as each database does.
      const after = await request(app).get('/api/items/BlogPost?fields=PostId,published_at&filter[published_at][_gte]=2025-07-01T00:00:00Z')
      expect(after.body.data).toEqual([{ PostId: ctx.name === 'sqlite' ? 2 : '2', published_at: '2025-07-15T12:30:00.000Z' }])
    })

    it('creates, updates and deletes, and the rows in the database say the same', async () => {
      const created = await request(app)
        .post('/api/items/BlogPost?fields=PostId,title,price,status,word_count,tags')
        .send({ title: 'Relays', price: '3.10', author_id: GRACE, tags: ['hardware'] })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ title: 'Relays', price: '3.10', status: 'draft', word_count: 6, tags: ['hardware'] })
      const id = created.body.data.PostId as string | number
      const row = (await knex('BlogPost').where('PostId', id).first()) as Record<string, unknown>
      expect({ title: row.title, price: Number(row.price), status: row.status, word_count: Number(row.word_count) }).toEqual({
        title: 'Relays',
        price: 3.1,
        status: 'draft',
        word_count: 6,
      })

      const updated = await request(app).patch(`/api/items/BlogPost/${id}?fields=price,status`).send({ price: 4.25, status: 'archived' })
      expect(updated.body.data).toEqual({ price: '4.25', status: 'archived' })
      expect(await knex('BlogPost').where('PostId', id).first('status')).toEqual({ status: 'archived' })

      // A CHECK the router does not know: the database refuses, the client gets a 4xx, nothing is written.
      const checked = await request(app).patch(`/api/items/BlogPost/${id}`).send({ rating: 9 })
      expect(checked.status).toBeGreaterThanOrEqual(400)
      expect(checked.status).toBeLessThan(500)
      expect(await knex('BlogPost').where('PostId', id).first('rating')).toEqual({ rating: null })

      // The router knows the generated column and the enum, so neither reaches the database.
      const generated = await request(app).patch(`/api/items/BlogPost/${id}`).send({ word_count: 1 })
      expect([generated.status, JSON.stringify(generated.body)]).toEqual([400, expect.stringContaining('word_count')])
      const outside = await request(app).patch(`/api/items/BlogPost/${id}`).send({ status: 'lost' })
      expect([outside.status, JSON.stringify(outside.body)]).toEqual([400, expect.stringContaining('status')])

      expect((await request(app).delete(`/api/items/BlogPost/${id}`)).status).toBe(204)
      expect(await knex('BlogPost').where('PostId', id).first()).toBeUndefined()
    })

    it('reads dates as the database stored them, SQLite text from CURRENT_TIMESTAMP included', async () => {
      const res = await request(app).get(`/api/items/Author/${ADA}?fields=created_at`)
      // The same instant spelled by the database itself: SQLite's text, and UTC renderings elsewhere.
      const expression = {
        sqlite: "replace(created_at, ' ', 'T')",
        postgres: `to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
        mysql: "date_format(created_at, '%Y-%m-%dT%H:%i:%s.000Z')",
      }[ctx.name]
      const stored = (await knex('Author')
        .where('AuthorId', ADA)
        .first(knex.raw(`${expression} as at`))) as { at: string }
      expect(res.body.data.created_at).toBe(stored.at)
    })

    it('creates with keys and defaults the database computes', async () => {
      const author = await request(app).post('/api/items/Author?fields=AuthorId,DisplayName').send({ DisplayName: 'Edsger' })
      expect(author.status).toBe(200)
      const row = (await knex('Author').where('AuthorId', author.body.data.AuthorId).first()) as Record<string, unknown>
      expect(row.DisplayName).toBe('Edsger')
      expect(row.created_at).not.toBeNull()
      const category = await request(app).post('/api/items/categories?fields=id,parent_id.name').send({ name: 'Chemistry', parent_id: 1 })
      expect(category.status).toBe(200)
      expect(category.body.data.parent_id).toEqual({ name: 'Science' })
      await knex('categories').where('name', 'Chemistry').delete()
      await knex('Author').where('AuthorId', author.body.data.AuthorId).delete()
    })

    it('serves a view named in viewKeys for reading only', async () => {
      const res = await request(app).get('/api/items/published_posts?fields=PostId,title&sort=PostId')
      expect(res.status).toBe(200)
      expect(res.body.data.map((post: { title: string }) => post.title)).toEqual(
        await knex('BlogPost').where('status', 'published').orderBy('PostId').pluck('title'),
      )
      expectError(await request(app).post('/api/items/published_posts').send({ title: 'x' }), 403, 'FORBIDDEN')
    })

    // Arrays are PostgreSQL's alone.
    ;(ctx.name === 'postgres' ? it : it.skip)('filters PostgreSQL arrays by element', async () => {
      const res = await request(app).get('/api/items/BlogPost?fields=PostId,tags&sort=PostId&filter[tags][_contains]=math')
      expect(res.body.data).toEqual([{ PostId: '1', tags: ['math', 'history'] }])
      const empty = await request(app).get('/api/items/BlogPost?fields=PostId&filter[tags][_empty]=true')
      expect(ids(empty.body.data, 'PostId')).toEqual(
        ids(await knex('BlogPost').whereRaw('cardinality(tags) = 0').select('PostId'), 'PostId'),
      )
    })

    it('takes table selections and overrides', async () => {
      const { collections, skipped } = await describeDatabase(knex, {
        exclude: (table) => table === 'categories',
        overrides: {
          Author: { fields: { email: { hidden: true } }, defaultLimit: 5 },
          BlogPost: { fields: { rating: false, BlogPost_by_author_id: false } },
        },
      })
      expect(Object.keys(collections).sort()).toEqual(['Author', 'BlogPost', 'post_tags'])
      expect(collections.Author).toMatchObject({
        defaultLimit: 5,
        fields: { email: { type: expect.any(String), hidden: true, unique: true } },
      })
      expect(collections.BlogPost!.fields.rating).toBeUndefined()
      // The key to a table left out stays a plain field, and says why.
      expect(collections.BlogPost!.fields.category_id).not.toHaveProperty('references')
      expect(skipped).toContainEqual({
        table: 'BlogPost',
        column: 'category_id',
        reason: 'foreign key to categories, which is not served: a plain field',
      })
      const app2 = serve(knex, collections)
      const res = await request(app2).get('/api/items/Author?sort=AuthorId')
      expect(res.body.data.map((author: Record<string, unknown>) => Object.keys(author).includes('email'))).toEqual([false, false])
      expect(res.body.data.map((author: { AuthorId: string }) => author.AuthorId)).toEqual([ADA, GRACE])
      await expect(describeDatabase(knex, { overrides: { nothing: {} } })).rejects.toThrow('CONFIG_BAD_OVERRIDE')
      expect(Object.keys((await describeDatabase(knex, { include: ['Author'] })).collections)).toEqual(['Author'])
    })

    // Last: it deletes seed rows.
    it('deletes as the foreign keys say: refused under NO ACTION, cascaded and set null where declared', async () => {
      const referenced = await request(app).delete('/api/items/categories/2')
      expect(referenced.status).toBe(400)
      expect(await knex('categories').where('id', 2).first('name')).toEqual({ name: 'Physics' })

      expect((await request(app).delete(`/api/items/Author/${GRACE}`)).status).toBe(204)
      expect(Number(((await knex('BlogPost').where('author_id', GRACE).count({ n: '*' })) as Array<{ n: unknown }>)[0]!.n)).toBe(0)
      expect(await knex('BlogPost').whereNotNull('reviewer_id').pluck('title')).toEqual([])
      const posts = await request(app).get('/api/items/BlogPost?fields=title,reviewer_id&sort=PostId')
      expect(posts.body.data).toEqual([
        { title: 'Engines', reviewer_id: null },
        { title: 'Notes', reviewer_id: null },
      ])
    })
  })
})
