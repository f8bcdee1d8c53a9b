// MySQL / MariaDB SET columns read by readCollections as `set` fields: JSON arrays of the allowed values in the
// column's order, written and validated against the list, filtered by membership, checked against plain SQL;
// a ConfigError on the databases that have no SET.
import express, { type Express } from 'express'
import request from 'supertest'
import { ConfigError, createItemsRouter, readCollections, type CollectionDefinition } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors, expectInvalidQuery } from '../support/expect-error'

type Row = Record<string, unknown>

const FEATURES = ['Trailers', 'Commentaries', 'Deleted Scenes', 'Behind the Scenes']

forEachDialect((ctx) => {
  if (ctx.name !== 'mysql') {
    it(`${ctx.name}: a set field is a ConfigError at router creation`, () => {
      const films: CollectionDefinition = {
        table: 'xs_films',
        fields: { id: { type: 'integer', primaryKey: true }, features: { type: 'set', enum: FEATURES } },
      }
      const build = (): unknown => createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { films } })
      expect(build).toThrow(ConfigError)
      expect(build).toThrow('collections.films.fields.features: set fields need MySQL or MariaDB')
    })
    return
  }

  describe('mysql: SET columns', () => {
    let app: Express

    beforeAll(async () => {
      await ctx.knex.schema.dropTableIfExists('xs_films')
      await ctx.knex.raw(`create table xs_films (
        id int auto_increment primary key,
        title varchar(40) not null,
        features set('Trailers','Commentaries','Deleted Scenes','Behind the Scenes') not null default '',
        extras set('a','B') null)`)
      await ctx.knex.raw(`insert into xs_films (title, features, extras) values
        ('one', 'Trailers,Deleted Scenes', null), ('two', '', 'a'), ('three', 'Behind the Scenes,Commentaries,Trailers', 'a,B')`)
      const collections = await readCollections(ctx.knex, { include: ['xs_films'] })
      app = express()
      app.use('/api', createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger(), defaultAccess: true }))
    })
    afterAll(() => ctx.knex.schema.dropTableIfExists('xs_films'))

    const titles = async (filter: Row): Promise<string[]> => {
      const response = await request(app).get('/api/items/xs_films').query({ fields: 'title', sort: 'id', filter })
      expect(response.status).toBe(200)
      return (response.body.data as Row[]).map((row) => String(row.title))
    }
    const plain = async (where: string, bindings: string[] = []): Promise<string[]> =>
      ((await ctx.knex.raw(`select title from xs_films where ${where} order by id`, bindings))[0] as Row[]).map((row) => String(row.title))
    const stored = async (title: string): Promise<string> =>
      String(((await ctx.knex.raw('select features from xs_films where title = ?', [title]))[0] as Row[])[0]!.features)

    it('reads a SET as a set field whose enum is its values, in their declared case', async () => {
      const collections = await readCollections(ctx.knex, { include: ['xs_films'] })
      expect(collections.xs_films!.fields.features).toMatchObject({ type: 'set', enum: FEATURES, nullable: false, default: [] })
      expect(collections.xs_films!.fields.extras).toMatchObject({ type: 'set', enum: ['a', 'B'] })
    })

    it('answers the members as a JSON array, in the column’s order, as plain SQL stores them', async () => {
      const response = await request(app).get('/api/items/xs_films').query({ fields: 'title,features,extras', sort: 'id' })
      expect(response.body.data).toEqual([
        { title: 'one', features: ['Trailers', 'Deleted Scenes'], extras: null },
        { title: 'two', features: [], extras: ['a'] },
        { title: 'three', features: ['Trailers', 'Commentaries', 'Behind the Scenes'], extras: ['a', 'B'] },
      ])
      expect(await stored('three')).toBe('Trailers,Commentaries,Behind the Scenes')
    })

    it('writes an array of listed values, answered in the column’s order', async () => {
      const created = await request(app)
        .post('/api/items/xs_films')
        .send({ title: 'new', features: ['Deleted Scenes', 'Trailers'], extras: [] })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ features: ['Trailers', 'Deleted Scenes'], extras: [] })
      expect(await stored('new')).toBe('Trailers,Deleted Scenes')
      const patched = await request(app)
        .patch(`/api/items/xs_films/${String(created.body.data.id)}`)
        .send({ features: [] })
      expect(patched.body.data.features).toEqual([])
      expect(await stored('new')).toBe('')
      await ctx.knex('xs_films').where({ title: 'new' }).delete()
    })

    it.each([
      ['a value outside the list', ['Bloopers']],
      ['a listed value in another case', ['trailers']],
      ['a value twice', ['Trailers', 'Trailers']],
      ['a string, not an array', 'Trailers'],
      ['a null member', [null]],
    ])('refuses %s with 400 before SQL', async (_label, features) => {
      const counted = await ctx.countQueries(async () => request(app).post('/api/items/xs_films').send({ title: 'bad', features }))
      const [error] = expectErrors(counted.result, 400, 'FAILED_VALIDATION')
      expect(error!.extensions).toMatchObject({ field: 'features' })
      expect(counted.count).toBe(0)
    })

    it('_contains and _ncontains test one member, like FIND_IN_SET in plain SQL', async () => {
      expect(await titles({ features: { _contains: 'Trailers' } })).toEqual(await plain("find_in_set('Trailers', features) > 0"))
      expect(await titles({ features: { _contains: 'Trailers' } })).toEqual(['one', 'three'])
      expect(await titles({ features: { _ncontains: 'Trailers' } })).toEqual(['two'])
      expect(await titles({ extras: { _contains: 'B' } })).toEqual(['three'])
      // A NULL set holds nothing and lacks nothing, as for arrays.
      expect(await titles({ extras: { _ncontains: 'B' } })).toEqual(await plain("extras is not null and find_in_set('B', extras) = 0"))
    })

    it('_empty, _nempty, _null and _nnull, like plain SQL', async () => {
      expect(await titles({ features: { _empty: true } })).toEqual(await plain("features = ''"))
      expect(await titles({ features: { _nempty: true } })).toEqual(await plain("features <> ''"))
      expect(await titles({ extras: { _empty: true } })).toEqual(await plain("extras is null or extras = ''"))
      expect(await titles({ extras: { _null: true } })).toEqual(['one'])
      expect(await titles({ extras: { _nnull: true } })).toEqual(['two', 'three'])
    })

    it('a member outside the list, another operator, sort or groupBy is 400 before SQL', async () => {
      for (const [query, mentions] of [
        [{ filter: { features: { _contains: 'Bloopers' } } }, ['Bloopers']],
        [{ filter: { features: { _eq: 'Trailers' } } }, ['_eq']],
        [{ filter: { features: { _in: ['Trailers'] } } }, ['_in']],
        [{ sort: 'features' }, ['features']],
        [{ groupBy: 'features' }, ['features']],
      ] as const) {
        const counted = await ctx.countQueries(async () => request(app).get('/api/items/xs_films').query(query))
        expectInvalidQuery(counted.result, counted.count, mentions)
      }
    })
  })
})
