// PostgreSQL array columns as JSON arrays: read, written and validated by element type, filtered by element,
// emptiness and null, checked against plain SQL; a ConfigError elsewhere.
import express, { type Express } from 'express'
import request from 'supertest'
import { ConfigError, createItemsRouter, type CollectionDefinition } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError, expectInvalidQuery } from '../support/expect-error'

const posts: CollectionDefinition = {
  table: 'xd_posts',
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    tags: { type: 'array', elementType: 'string' },
    scores: { type: 'array', elementType: 'integer' },
    big: { type: 'array', elementType: 'bigInteger' },
    days: { type: 'array', elementType: 'date' },
    seen: { type: 'array', elementType: 'timestamp' },
  },
}

forEachDialect((ctx: DialectContext) => {
  if (ctx.name !== 'postgres') {
    it(`${ctx.name}: an array field is a ConfigError at router creation`, () => {
      const build = (): unknown => createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { posts } })
      expect(build).toThrow(ConfigError)
      expect(build).toThrow('collections.posts.fields.tags: array fields need PostgreSQL')
    })
    return
  }
  describe('postgres arrays', () => {
    let app: Express

    beforeAll(async () => {
      await ctx.knex.raw('drop table if exists xd_posts')
      await ctx.knex.raw(
        'create table xd_posts (id serial primary key, tags text[], scores integer[], big bigint[], days date[], seen timestamptz[])',
      )
      await ctx.knex.raw(`insert into xd_posts (tags, scores, big, days, seen) values
        ('{hand,"a \\"quoted\\", comma"}', '{1,2,3}', '{9007199254740993}', '{2024-02-29}', '{"2024-05-01 12:00:00+02"}'),
        ('{}', '{}', '{}', '{}', '{}'),
        (null, null, null, null, null),
        ('{foot,NULL}', '{3,NULL}', null, null, null)`)
      app = express()
      app.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { posts }, logger: recordingLogger() }))
    })
    afterAll(() => ctx.knex.raw('drop table if exists xd_posts'))

    const ids = async (filter: Record<string, unknown>): Promise<number[]> => {
      const response = await request(app).get('/api/items/posts').query({ fields: 'id', sort: 'id', filter })
      expect(response.status).toBe(200)
      return (response.body.data as { id: number }[]).map((row) => row.id)
    }
    const plain = async (where: string, bindings: (string | number)[] = []): Promise<number[]> =>
      ((await ctx.knex.raw(`select id from xd_posts where ${where} order by id`, bindings)).rows as { id: number }[]).map((row) => row.id)

    it('reads arrays as JSON arrays, each element in its type’s form', async () => {
      const response = await request(app).get('/api/items/posts').query({ sort: 'id' })
      expect(response.body.data).toEqual([
        {
          id: 1,
          tags: ['hand', 'a "quoted", comma'],
          scores: [1, 2, 3],
          big: ['9007199254740993'],
          days: ['2024-02-29'],
          seen: ['2024-05-01T10:00:00.000Z'],
        },
        { id: 2, tags: [], scores: [], big: [], days: [], seen: [] },
        { id: 3, tags: null, scores: null, big: null, days: null, seen: null },
        { id: 4, tags: ['foot', null], scores: [3, null], big: null, days: null, seen: null },
      ])
    })

    it('writes JSON arrays, and reads back what plain SQL sees', async () => {
      const created = await request(app)
        .post('/api/items/posts')
        .send({
          tags: ['x,y', 'back\\slash', '{braces}', null],
          scores: [7, 8],
          big: ['9223372036854775807'],
          days: [],
          seen: ['2025-01-01T00:00:00+01:00'],
        })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({
        tags: ['x,y', 'back\\slash', '{braces}', null],
        scores: [7, 8],
        big: ['9223372036854775807'],
        days: [],
        seen: ['2024-12-31T23:00:00.000Z'],
      })
      const id = created.body.data.id as number
      const row = (
        await ctx.knex.raw(
          'select tags[1] as first, tags[4] is null as last, cardinality(tags) as n, scores[2] as score from xd_posts where id = ?',
          [id],
        )
      ).rows[0] as Record<string, unknown>
      expect(row).toEqual({ first: 'x,y', last: true, n: 4, score: 8 })
      const patched = await request(app).patch(`/api/items/posts/${id}`).send({ tags: [] })
      expect(patched.body.data.tags).toEqual([])
      await ctx.knex('xd_posts').where({ id }).delete()
    })

    it('validates elements by their type', async () => {
      const counted = await ctx.countQueries(async () =>
        request(app)
          .post('/api/items/posts')
          .send({ scores: [1, 'two'], days: ['2024-13-01'] }),
      )
      const errors = (counted.result.body as { errors: { extensions: { field: string } }[] }).errors
      expect(counted.result.status).toBe(400)
      expect(errors.map((error) => error.extensions.field).sort()).toEqual(['days', 'scores'])
      expect(counted.count).toBe(0)
      expectError(await request(app).post('/api/items/posts').send({ tags: 'hand' }), 400, 'FAILED_VALIDATION')
    })

    it('_contains / _ncontains test one element, like plain SQL', async () => {
      expect(await ids({ tags: { _contains: 'hand' } })).toEqual(await plain("'hand' = any(tags)"))
      expect(await ids({ tags: { _contains: 'hand' } })).toEqual([1])
      expect(await ids({ scores: { _contains: 3 } })).toEqual(await plain('3 = any(scores)'))
      expect(await ids({ scores: { _ncontains: 3 } })).toEqual(await plain('scores is not null and not (scores @> array[3])'))
      expect(await ids({ tags: { _ncontains: 'hand' } })).toEqual([2, 4])
      expect(await ids({ days: { _contains: '2024-02-29' } })).toEqual([1])
      expect(await ids({ seen: { _contains: '2024-05-01T10:00:00Z' } })).toEqual([1])
    })

    it('_null, _nnull, _empty and _nempty', async () => {
      expect(await ids({ tags: { _null: true } })).toEqual(await plain('tags is null'))
      expect(await ids({ tags: { _nnull: true } })).toEqual(await plain('tags is not null'))
      expect(await ids({ tags: { _empty: true } })).toEqual(await plain('coalesce(cardinality(tags), 0) = 0'))
      expect(await ids({ tags: { _nempty: true } })).toEqual(await plain('cardinality(tags) > 0'))
      expect(await ids({ tags: { _empty: true } })).toEqual([2, 3])
    })

    it.each(['_eq', '_in', '_lt', '_icontains', '_starts_with', '_between'])(
      '%s does not apply to an array: 400 before SQL',
      async (operator) => {
        const value = operator === '_in' || operator === '_between' ? ['a', 'b'] : 'a'
        const counted = await ctx.countQueries(async () =>
          request(app)
            .get('/api/items/posts')
            .query({ filter: { tags: { [operator]: value } } }),
        )
        expectInvalidQuery(counted.result, counted.count, [operator])
      },
    )

    it('sorting or grouping by an array is 400; an element of the wrong type too', async () => {
      const sorted = await ctx.countQueries(async () => request(app).get('/api/items/posts').query({ sort: 'tags' }))
      expectInvalidQuery(sorted.result, sorted.count, ['tags'])
      const grouped = await ctx.countQueries(async () =>
        request(app)
          .get('/api/items/posts')
          .query({ aggregate: { count: '*' }, groupBy: 'tags' }),
      )
      expectInvalidQuery(grouped.result, grouped.count, ['tags'])
      const wrong = await ctx.countQueries(async () =>
        request(app)
          .get('/api/items/posts')
          .query({ filter: { scores: { _contains: 'x' } } }),
      )
      expectInvalidQuery(wrong.result, wrong.count, ['integer', 'scores'])
    })
  })
})
