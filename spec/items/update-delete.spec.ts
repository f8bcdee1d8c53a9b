// PATCH and DELETE on /items/:collection[/:id] change exactly the named or matching rows, in one transaction, or nothing at all.
import type { Express } from 'express'
import request from 'supertest'
import { seed, type ArticleRow } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'
import { expectCounts, rowCount } from '../support/write-checks'

const ARTICLE_FIELDS = 'id,title,status,rating,published_at,tags,author,parent'

function seedArticle(id: number): ArticleRow {
  const row = seed.articles.find((article) => article.id === id)
  if (!row) throw new Error(`No seeded article ${id}`)
  return row
}

const idsWhere = (predicate: (article: ArticleRow) => boolean): number[] => seed.articles.filter(predicate).map((a) => a.id)

/** The articles table through the API, in seed form, to compare whole tables before and after a refused write. */
async function allArticles(app: Express): Promise<unknown[]> {
  const response = await request(app).get(`/api/items/articles?limit=-1&fields=${ARTICLE_FIELDS}`)
  expect(response.status).toBe(200)
  return response.body.data as unknown[]
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  /** What a refused request must leave as it was: the whole articles table and the row counts of the others. */
  let snapshot: { articles: unknown[]; counts: Record<string, number> } = { articles: [], counts: {} }
  const takeSnapshot = async (): Promise<void> => {
    const tables = ['authors', 'comments', 'topics', 'article_topics']
    const counts = Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await rowCount(ctx, table)] as const)))
    snapshot = { articles: await allArticles(app), counts }
  }
  const expectUnchanged = async (): Promise<void> => {
    expect(await allArticles(app)).toEqual(snapshot.articles)
    for (const [table, count] of Object.entries(snapshot.counts)) {
      expect({ table, count: await rowCount(ctx, table) }).toEqual({ table, count })
    }
  }
  /** Refusal tests share one seed: each proves that its own request wrote nothing. */
  const refusalsOnly = (): void => {
    beforeAll(() => ctx.reset())
    beforeEach(takeSnapshot)
  }
  const freshSeedEach = (): void => {
    beforeEach(() => ctx.reset())
  }

  describe('PATCH /items/:collection/:id', () => {
    freshSeedEach()

    it('changes only the given fields and answers the item read back', async () => {
      const response = await request(app)
        .patch(`/api/items/articles/5?fields=${ARTICLE_FIELDS}`)
        .send({ rating: 1, tags: ['x'] })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { ...seedArticle(5), rating: 1, tags: ['x'] } })
      const read = await request(app).get(`/api/items/articles/5?fields=${ARTICLE_FIELDS}`)
      expect(read.body).toEqual({ data: { ...seedArticle(5), rating: 1, tags: ['x'] } })
      const untouched = await request(app).get(`/api/items/articles/6?fields=${ARTICLE_FIELDS}`)
      expect(untouched.body).toEqual({ data: seedArticle(6) })
    })

    it('reads the response back through ?fields=', async () => {
      const response = await request(app).patch('/api/items/articles/5?fields=rating,id').send({ rating: 2 })
      expect(response.body).toEqual({ data: { rating: 2, id: 5 } })
      expect(Object.keys(response.body.data as object)).toEqual(['rating', 'id'])
    })

    it('answers all readable fields (o2m included) without ?fields=', async () => {
      const response = await request(app).patch('/api/items/authors/18').send({ bio: null })
      expect(response.status).toBe(200)
      const author = seed.authors[17]!
      expect(response.body).toEqual({ data: { id: 18, name: author.name, email: author.email, bio: null, articles: [] } })
    })

    it('can set a field to null and clear a json field', async () => {
      const id = idsWhere((a) => a.rating !== null && a.tags !== null && a.author !== null)[0]!
      const response = await request(app)
        .patch(`/api/items/articles/${id}?fields=rating,tags,author`)
        .send({ rating: null, tags: null, author: null })
      expect(response.body).toEqual({ data: { rating: null, tags: null, author: null } })
    })

    it('ignores the primary key in the payload', async () => {
      const response = await request(app).patch('/api/items/articles/5?fields=id,title').send({ id: 999, title: 'Renamed' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 5, title: 'Renamed' } })
      expectError(await request(app).get('/api/items/articles/999'), 404, 'NOT_FOUND')
      await expectCounts(app, ctx, 'articles', seed.articles.length)
    })

    it('writes the hidden password_hash without returning it', async () => {
      const response = await request(app).patch('/api/items/authors/2?fields=*').send({ password_hash: 'changed' })
      expect(response.status).toBe(200)
      expect(response.body.data).not.toHaveProperty('password_hash')
      expect(await ctx.knex('authors').where({ id: 2 }).first('password_hash')).toEqual({ password_hash: 'changed' })
    })
  })

  describe('PATCH /items/:collection/:id refusals', () => {
    refusalsOnly()

    it.each([['99999'], ['0'], ['abc'], ['1.5']])('answers 404 NOT_FOUND for id %s and creates nothing', async (id) => {
      expectError(await request(app).patch(`/api/items/articles/${id}`).send({ title: 'Ghost' }), 404, 'NOT_FOUND')
      await expectUnchanged()
    })

    it.each([
      ['a wrong type', { rating: 'abc' }, 'rating'],
      ['null for a not-nullable field', { title: null }, 'title'],
      ['an unknown field', { nope: 1 }, 'nope'],
      ['a string over maxLength', { title: 'x'.repeat(201) }, 'title'],
      ['an invalid date', { published_at: '2023-13-01T00:00:00' }, 'published_at'],
      ['an integer above int32', { rating: 2 ** 31 }, 'rating'],
    ])('refuses %s with 400 FAILED_VALIDATION and changes nothing', async (_label, body, field) => {
      const response = await request(app)
        .patch('/api/items/articles/5')
        .send({ status: 'archived', ...body })
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        { message: expect.any(String), extensions: expect.objectContaining({ code: 'FAILED_VALIDATION', field }) },
      ])
      expect(response.body.errors[0].extensions).not.toHaveProperty('item')
      await expectUnchanged()
    })

    it('refuses a foreign key to a missing author with 400 INVALID_FOREIGN_KEY', async () => {
      const response = await request(app).patch('/api/items/articles/5').send({ author: 999 })
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toEqual({
        code: 'INVALID_FOREIGN_KEY',
        collection: 'articles',
        field: 'author',
        value: 999,
      })
      await expectUnchanged()
    })

    it('refuses a non-JSON body with 400 INVALID_PAYLOAD', async () => {
      expectError(await request(app).patch('/api/items/articles/5').type('text').send('rating=1'), 400, 'INVALID_PAYLOAD')
      await expectUnchanged()
    })
  })

  describe('PATCH /items/:collection with { keys, data }', () => {
    freshSeedEach()

    it('applies data to exactly those keys', async () => {
      const keys = [1, 2, 3]
      const response = await request(app)
        .patch('/api/items/articles?fields=id,status')
        .send({ keys, data: { status: 'archived' } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: keys.map((id) => ({ id, status: 'archived' })) })
      const archived = idsWhere((a) => a.status === 'archived' || keys.includes(a.id))
      expect(await rowCount(ctx, 'articles', { status: 'archived' })).toBe(archived.length)
      const untouched = await request(app).get(`/api/items/articles/4?fields=${ARTICLE_FIELDS}`)
      expect(untouched.body).toEqual({ data: seedArticle(4) })
    })
  })

  describe('PATCH /items/:collection with { query, data }', () => {
    freshSeedEach()

    it('updates every row the filter matches, past 100 rows', async () => {
      const published = idsWhere((a) => a.status === 'published')
      expect(published.length).toBeGreaterThan(100)
      const response = await request(app)
        .patch('/api/items/articles?fields=id,rating')
        .send({ query: { filter: { status: { _eq: 'published' } } }, data: { rating: 5 } })
      expect(response.status).toBe(200)
      const data = response.body.data as Array<{ id: number; rating: number }>
      expect(data.map((item) => item.id).sort((a, b) => a - b)).toEqual(published)
      expect(data.every((item) => item.rating === 5)).toBe(true)
      expect(await rowCount(ctx, 'articles', { status: 'published', rating: 5 })).toBe(published.length)
      const otherFives = idsWhere((a) => a.status !== 'published' && a.rating === 5)
      expect(await rowCount(ctx, 'articles', { rating: 5 })).toBe(published.length + otherFives.length)
    })

    it('honours search', async () => {
      const matching = idsWhere((a) => a.title.toLowerCase().includes('snake'))
      expect(matching).toEqual([88, 101])
      const response = await request(app)
        .patch('/api/items/articles?fields=id,status')
        .send({ query: { search: 'SNAKE' }, data: { status: 'archived' } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: matching.map((id) => ({ id, status: 'archived' })) })
      expect(await rowCount(ctx, 'articles', { status: 'archived' })).toBe(
        idsWhere((a) => a.status === 'archived' || matching.includes(a.id)).length,
      )
    })

    it('honours sort and limit: only the first rows in that order change', async () => {
      const drafts = idsWhere((a) => a.status === 'draft')
      const lastTwo = drafts.slice(-2).reverse()
      const response = await request(app)
        .patch('/api/items/articles?fields=id,title')
        .send({ query: { filter: { status: { _eq: 'draft' } }, sort: ['-id'], limit: 2 }, data: { title: 'Newest drafts' } })
      expect(response.status).toBe(200)
      const changed = (response.body.data as Array<{ id: number; title: string }>).map((item) => item.id)
      expect([...changed].sort((a, b) => a - b)).toEqual([...lastTwo].sort((a, b) => a - b))
      expect(response.body.data).toEqual(changed.map((id) => ({ id, title: 'Newest drafts' })))
      expect(await rowCount(ctx, 'articles', { title: 'Newest drafts' })).toBe(2)
    })

    it('answers { data: [] } when nothing matches', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send({ query: { filter: { id: { _gt: 100000 } } }, data: { title: 'None' } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [] })
    })
  })

  describe('PATCH /items/:collection with an array of items', () => {
    freshSeedEach()

    it('applies different data to each item by its key', async () => {
      const response = await request(app)
        .patch(`/api/items/articles?fields=${ARTICLE_FIELDS}`)
        .send([
          { id: 1, title: 'First changed' },
          { id: 2, rating: 3, status: 'archived' },
        ])
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { ...seedArticle(1), title: 'First changed' },
          { ...seedArticle(2), rating: 3, status: 'archived' },
        ],
      })
      expect(await allArticles(app)).toEqual(
        seed.articles.map((a) =>
          a.id === 1 ? { ...a, title: 'First changed' } : a.id === 2 ? { ...a, rating: 3, status: 'archived' } : a,
        ),
      )
    })
  })

  describe('PATCH /items/:collection with a malformed body', () => {
    refusalsOnly()

    it.each([
      ['both keys and query', { keys: [1], query: { filter: { id: { _eq: 1 } } }, data: { title: 'X' } }],
      ['neither keys nor query', { data: { title: 'X' } }],
      ['keys without data', { keys: [1] }],
      ['an extra top-level key', { keys: [1], data: { title: 'X' }, extra: true }],
      ['keys that are not an array', { keys: 1, data: { title: 'X' } }],
      ['a key of the wrong type', { keys: ['one'], data: { title: 'X' } }],
      ['a query that is not an object', { query: 'status=draft', data: { title: 'X' } }],
      ['a scalar body', 5],
    ])('refuses %s with 400 INVALID_PAYLOAD and writes nothing', async (_label, body) => {
      const response = await request(app).patch('/api/items/articles').set('Content-Type', 'application/json').send(JSON.stringify(body))
      expectError(response, 400, 'INVALID_PAYLOAD')
      await expectUnchanged()
    })

    it('refuses a request without a JSON body with 400 INVALID_PAYLOAD', async () => {
      expectError(await request(app).patch('/api/items/articles'), 400, 'INVALID_PAYLOAD')
      await expectUnchanged()
    })
  })

  describe('PATCH /items/:collection refusals', () => {
    refusalsOnly()

    it('answers 404 NOT_FOUND for a missing key and changes none of the others', async () => {
      expectError(
        await request(app)
          .patch('/api/items/articles')
          .send({ keys: [1, 99999, 2], data: { title: 'X' } }),
        404,
        'NOT_FOUND',
      )
      await expectUnchanged()
    })

    it('refuses data failing validation with 400 and changes nothing', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send({ keys: [1, 2], data: { rating: 'high' } })
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'FAILED_VALIDATION', field: 'rating' })
      await expectUnchanged()
    })

    it('refuses more keys than maxBatchSize with 400 and changes nothing', async () => {
      const small = createApp(ctx.knex, { maxBatchSize: 2 })
      expectError(
        await request(small)
          .patch('/api/items/articles')
          .send({ keys: [1, 2, 3], data: { title: 'X' } }),
        400,
        'INVALID_PAYLOAD',
      )
      await expectUnchanged()
    })

    it('refuses a match larger than maxBatchSize with 400 and changes nothing', async () => {
      const small = createApp(ctx.knex, { maxBatchSize: 100 })
      expectError(
        await request(small)
          .patch('/api/items/articles')
          .send({ query: { filter: { status: { _eq: 'published' } } }, data: { rating: 5 } }),
        400,
        'INVALID_PAYLOAD',
      )
      await expectUnchanged()
    })

    it('refuses data failing validation with 400 and changes nothing', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send({ query: { filter: { id: { _lte: 10 } } }, data: { title: null } })
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'FAILED_VALIDATION', field: 'title' })
      await expectUnchanged()
    })

    it('refuses a filter on an unknown field with 400 and changes nothing', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send({ query: { filter: { nope: { _eq: 1 } } }, data: { rating: 1 } })
      expect(response.status).toBe(400)
      expect(['INVALID_QUERY', 'INVALID_PAYLOAD']).toContain(response.body.errors[0].extensions.code)
      await expectUnchanged()
    })

    it.each([
      ['missing', { title: 'no key' }],
      ['null', { id: null, title: 'null key' }],
    ])('refuses an item whose key is %s with 400 and writes none of the items', async (_label, bad) => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send([{ id: 1, title: 'Would change' }, { id: 2, title: 'Would change too' }, bad])
      expectError(response, 400, 'INVALID_PAYLOAD')
      await expectUnchanged()
    })

    it('answers 404 NOT_FOUND for an item whose key does not exist and writes none of the items', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send([
          { id: 1, title: 'Would change' },
          { id: 99999, title: 'Ghost' },
        ])
      expectError(response, 404, 'NOT_FOUND')
      await expectUnchanged()
    })

    it('refuses a later item failing validation with 400 naming its index, and writes nothing', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send([
          { id: 1, title: 'Would change' },
          { id: 2, rating: 'abc' },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'FAILED_VALIDATION', field: 'rating', item: 1 })
      await expectUnchanged()
    })

    it('refuses a bad foreign key in the last item with 400 and writes nothing', async () => {
      const response = await request(app)
        .patch('/api/items/articles')
        .send([
          { id: 1, title: 'Would change' },
          { id: 2, author: 999 },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'INVALID_FOREIGN_KEY', field: 'author' })
      await expectUnchanged()
    })

    it('rolls back earlier items when a later one breaks a unique constraint', async () => {
      const response = await request(app)
        .patch('/api/items/authors')
        .send([
          { id: 1, name: 'Renamed' },
          { id: 3, email: seed.authors[1]!.email },
        ])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'RECORD_NOT_UNIQUE', field: 'email' })
      const one = await request(app).get('/api/items/authors/1?fields=name')
      expect(one.body).toEqual({ data: { name: seed.authors[0]!.name } })
      await expectUnchanged()
    })

    it('refuses more items than maxBatchSize with 400 and writes nothing', async () => {
      const small = createApp(ctx.knex, { maxBatchSize: 2 })
      const response = await request(small)
        .patch('/api/items/articles')
        .send([1, 2, 3].map((id) => ({ id, title: 'Too many' })))
      expectError(response, 400, 'INVALID_PAYLOAD')
      await expectUnchanged()
    })
  })

  describe('DELETE /items/:collection/:id', () => {
    freshSeedEach()

    it('answers 204 with an empty body and removes the row', async () => {
      const response = await request(app).delete('/api/items/comments/7')
      expect(response.status).toBe(204)
      expect(response.text).toBe('')
      expect(response.body).toEqual({})
      expectError(await request(app).get('/api/items/comments/7'), 404, 'NOT_FOUND')
      await expectCounts(app, ctx, 'comments', seed.comments.length - 1)
    })

    it('answers 404 NOT_FOUND the second time the same item is deleted', async () => {
      expect((await request(app).delete('/api/items/comments/7')).status).toBe(204)
      expectError(await request(app).delete('/api/items/comments/7'), 404, 'NOT_FOUND')
    })
  })

  describe('DELETE /items/:collection', () => {
    freshSeedEach()

    it.each([
      ['an array of keys', [3, 1, 2]],
      ['{ keys }', { keys: [3, 1, 2] }],
      ['{ query }', { query: { filter: { id: { _in: [1, 2, 3] } } } }],
    ])('deletes by %s and answers 204 with no body', async (_label, body) => {
      const response = await request(app).delete('/api/items/comments').send(body)
      expect(response.status).toBe(204)
      expect(response.text).toBe('')
      await expectCounts(app, ctx, 'comments', seed.comments.length - 3)
      expect(await ctx.knex('comments').whereIn('id', [1, 2, 3]).select('id')).toEqual([])
      expect(await rowCount(ctx, 'comments', { id: 4 })).toBe(1)
    })

    it('deletes every row a query matches, past 100 rows', async () => {
      const doomed = seed.comments.filter((comment) => comment.votes <= 50)
      expect(doomed.length).toBeGreaterThan(100)
      const response = await request(app)
        .delete('/api/items/comments')
        .send({ query: { filter: { votes: { _lte: 50 } } } })
      expect(response.status).toBe(204)
      await expectCounts(app, ctx, 'comments', seed.comments.length - doomed.length)
      expect(await rowCount(ctx, 'comments', {})).toBe(seed.comments.filter((comment) => comment.votes > 50).length)
    })

    it('honours sort and limit in a query', async () => {
      const response = await request(app)
        .delete('/api/items/comments')
        .send({ query: { sort: ['-id'], limit: 5 } })
      expect(response.status).toBe(204)
      const remaining = (await ctx.knex('comments').max({ top: 'id' }))[0]!.top
      expect(Number(remaining)).toBe(seed.comments.length - 5)
      await expectCounts(app, ctx, 'comments', seed.comments.length - 5)
    })
  })

  describe('DELETE refusals', () => {
    refusalsOnly()

    it.each([['99999'], ['abc']])('answers 404 NOT_FOUND for missing id %s and deletes nothing', async (id) => {
      expectError(await request(app).delete(`/api/items/comments/${id}`), 404, 'NOT_FOUND')
      await expectUnchanged()
    })

    it('refuses to delete an author that articles reference with 400 INVALID_FOREIGN_KEY, deleting nothing', async () => {
      const response = await request(app).delete('/api/items/authors/1')
      expect(response.status).toBe(400)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'INVALID_FOREIGN_KEY', collection: 'authors' })
      expect(JSON.stringify(response.body)).not.toMatch(/delete from|constraint|SQLITE_|ER_/i)
      await expectUnchanged()
    })

    it('refuses a query matching more than maxBatchSize with 400 and deletes nothing', async () => {
      const small = createApp(ctx.knex, { maxBatchSize: 100 })
      expectError(
        await request(small)
          .delete('/api/items/comments')
          .send({ query: { filter: { votes: { _lte: 50 } } } }),
        400,
        'INVALID_PAYLOAD',
      )
      await expectUnchanged()
    })

    it('answers 404 NOT_FOUND for a missing key among the keys and deletes nothing', async () => {
      expectError(await request(app).delete('/api/items/comments').send([1, 2, 99999]), 404, 'NOT_FOUND')
      expectError(
        await request(app)
          .delete('/api/items/comments')
          .send({ keys: [99999, 1] }),
        404,
        'NOT_FOUND',
      )
      await expectUnchanged()
    })

    it('refuses to delete referenced authors with 400 INVALID_FOREIGN_KEY and deletes none of them', async () => {
      await ctx.knex('authors').insert({ id: 21, name: 'Unreferenced' })
      await takeSnapshot()
      const response = await request(app).delete('/api/items/authors').send([21, 1])
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'INVALID_FOREIGN_KEY', collection: 'authors' })
      await expectUnchanged()
      expect(await rowCount(ctx, 'authors', { id: 21 })).toBe(1)
      await ctx.knex('authors').where({ id: 21 }).delete()
    })

    it.each([
      ['no body', undefined],
      ['an empty object', {}],
      ['both keys and query', { keys: [1], query: { filter: { id: { _eq: 1 } } } }],
      ['an unknown key', { ids: [1] }],
      ['keys that are not an array', { keys: 1 }],
      ['a scalar', 1],
      ['a key of the wrong type', ['one']],
    ])('refuses %s with 400 INVALID_PAYLOAD and deletes nothing', async (_label, body) => {
      const req = request(app).delete('/api/items/comments')
      const response = body === undefined ? await req : await req.set('Content-Type', 'application/json').send(JSON.stringify(body))
      expectError(response, 400, 'INVALID_PAYLOAD')
      await expectUnchanged()
    })
  })
})
