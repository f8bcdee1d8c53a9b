// MySQL / MariaDB spatial columns read by readCollections as `geometry` fields: GeoJSON in and out, validated
// before SQL, filtered by `_intersects` and `_intersects_bbox`, checked against plain SQL's spatial functions;
// a ConfigError on SQLite and PostgreSQL, and a SQLite spatial column reported with what to do.
import express, { type Express } from 'express'
import request from 'supertest'
import { ConfigError, createItemsRouter, describeDatabase, readCollections, type CollectionDefinition } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors, expectInvalidQuery } from '../support/expect-error'

type Row = Record<string, unknown>

const SQUARE = {
  type: 'Polygon',
  coordinates: [
    [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
      [0, 0],
    ],
  ],
}
const places: CollectionDefinition = {
  table: 'xg_places',
  fields: { id: { type: 'integer', primaryKey: true }, loc: { type: 'geometry' } },
}

forEachDialect((ctx) => {
  if (ctx.name !== 'mysql') {
    it(`${ctx.name}: a geometry field is a ConfigError at router creation`, () => {
      const build = (): unknown => createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { places } })
      expect(build).toThrow(ConfigError)
      expect(build).toThrow('collections.places.fields.loc: geometry fields need MySQL or MariaDB')
    })
    if (ctx.name === 'sqlite') {
      it('sqlite: a spatial column is left out with what to do', async () => {
        await ctx.knex.raw('drop table if exists xg_sqlite')
        await ctx.knex.raw('create table xg_sqlite (id integer primary key, spot POINT)')
        const { skipped } = await describeDatabase(ctx.knex, { include: ['xg_sqlite'] })
        expect(skipped.find((entry) => entry.column === 'spot')?.reason).toMatch(
          /^type POINT has no field type: spatial values are not served on SQLite .*leave it out/,
        )
        await ctx.knex.raw('drop table xg_sqlite')
      })
    }
    return
  }

  describe('mysql: spatial columns', () => {
    let app: Express

    beforeAll(async () => {
      await ctx.knex.schema.dropTableIfExists('xg_places')
      await ctx.knex.raw(
        'create table xg_places (id int auto_increment primary key, name varchar(40) not null, loc geometry null, spot point null)',
      )
      await ctx.knex.raw(`insert into xg_places (name, loc, spot) values
        ('point', ST_GeomFromText('POINT(1 2)'), ST_GeomFromText('POINT(1.5 -2.25)')),
        ('square', ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))'), null),
        ('line', ST_GeomFromText('LINESTRING(20 20,30 25)'), null),
        ('none', null, null)`)
      const collections = await readCollections(ctx.knex, { include: ['xg_places'] })
      app = express()
      app.use('/api', createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger(), defaultAccess: true }))
    })
    afterAll(() => ctx.knex.schema.dropTableIfExists('xg_places'))

    const names = async (filter: unknown): Promise<string[]> => {
      const response = await request(app)
        .get('/api/items/xg_places')
        .query({ fields: 'name', sort: 'id', filter: JSON.stringify(filter) })
      expect(response.status).toBe(200)
      return (response.body.data as Row[]).map((row) => String(row.name))
    }
    const plain = async (where: string): Promise<string[]> =>
      ((await ctx.knex.raw(`select name from xg_places where ${where} order by id`))[0] as Row[]).map((row) => String(row.name))
    const wkt = async (name: string): Promise<unknown> =>
      ((await ctx.knex.raw('select ST_AsText(loc) as loc from xg_places where name = ?', [name]))[0] as Row[])[0]!.loc

    it('reads spatial columns as geometry fields', async () => {
      const collections = await readCollections(ctx.knex, { include: ['xg_places'] })
      expect(collections.xg_places!.fields.loc).toMatchObject({ type: 'geometry' })
      expect(collections.xg_places!.fields.spot).toMatchObject({ type: 'geometry' })
    })

    it('answers GeoJSON of what plain SQL stores', async () => {
      const response = await request(app).get('/api/items/xg_places').query({ fields: 'name,loc,spot', sort: 'id' })
      expect(response.body.data).toEqual([
        { name: 'point', loc: { type: 'Point', coordinates: [1, 2] }, spot: { type: 'Point', coordinates: [1.5, -2.25] } },
        { name: 'square', loc: SQUARE, spot: null },
        {
          name: 'line',
          loc: {
            type: 'LineString',
            coordinates: [
              [20, 20],
              [30, 25],
            ],
          },
          spot: null,
        },
        { name: 'none', loc: null, spot: null },
      ])
      expect(await wkt('square')).toBe('POLYGON((0 0,10 0,10 10,0 10,0 0))')
    })

    it('writes GeoJSON as the geometry it stands for, and answers it back', async () => {
      const collection = {
        type: 'GeometryCollection',
        geometries: [
          { type: 'Point', coordinates: [3, 4] },
          { type: 'MultiPoint', coordinates: [[5, 6]] },
        ],
      }
      const created = await request(app).post('/api/items/xg_places').send({ name: 'new', loc: collection })
      expect(created.status).toBe(200)
      expect(created.body.data.loc).toEqual(collection)
      expect(await wkt('new')).toBe('GEOMETRYCOLLECTION(POINT(3 4),MULTIPOINT(5 6))')
      const patched = await request(app)
        .patch(`/api/items/xg_places/${String(created.body.data.id)}`)
        .send({ loc: SQUARE })
      expect(patched.body.data.loc).toEqual(SQUARE)
      expect(await wkt('new')).toBe('POLYGON((0 0,10 0,10 10,0 10,0 0))')
      await ctx.knex('xg_places').where({ name: 'new' }).delete()
    })

    it.each([
      ['WKT text', 'POINT(1 2)'],
      ['a Feature', { type: 'Feature', geometry: { type: 'Point', coordinates: [1, 2] } }],
      ['a point of one number', { type: 'Point', coordinates: [1] }],
      ['a point with a height', { type: 'Point', coordinates: [1, 2, 3] }],
      [
        'an unclosed ring',
        {
          type: 'Polygon',
          coordinates: [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 1],
            ],
          ],
        },
      ],
      ['a line of one position', { type: 'LineString', coordinates: [[0, 0]] }],
    ])('refuses %s with 400 before SQL', async (_label, loc) => {
      const counted = await ctx.countQueries(async () => request(app).post('/api/items/xg_places').send({ name: 'bad', loc }))
      const [error] = expectErrors(counted.result, 400, 'FAILED_VALIDATION')
      expect(error!.extensions).toMatchObject({ field: 'loc' })
      expect(counted.count).toBe(0)
    })

    it('a geometry of another kind than a POINT column holds is 400, nothing written', async () => {
      const line = {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [1, 1],
        ],
      }
      const response = await request(app).post('/api/items/xg_places').send({ name: 'wrong kind', spot: line })
      expectErrors(response, 400, 'INVALID_PAYLOAD')
      expect(await plain("name = 'wrong kind'")).toEqual([])
    })

    it('_intersects and _nintersects match ST_Intersects in plain SQL', async () => {
      const area = {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [2, 0],
            [2, 3],
            [0, 3],
            [0, 0],
          ],
        ],
      }
      const areaSql = "ST_GeomFromText('POLYGON((0 0,2 0,2 3,0 3,0 0))')"
      expect(await names({ loc: { _intersects: area } })).toEqual(await plain(`ST_Intersects(loc, ${areaSql})`))
      expect(await names({ loc: { _intersects: area } })).toEqual(['point', 'square'])
      expect(await names({ loc: { _nintersects: area } })).toEqual(await plain(`loc is not null and not ST_Intersects(loc, ${areaSql})`))
      // The query-string form carries the GeoJSON as text.
      const response = await request(app)
        .get('/api/items/xg_places')
        .query({ fields: 'name', 'filter[loc][_intersects]': JSON.stringify({ type: 'Point', coordinates: [25, 22.5] }) })
      expect(response.body.data).toEqual([{ name: 'line' }])
    })

    it('_intersects_bbox compares bounding rectangles, as MBRIntersects does', async () => {
      // The line from (20,20) to (30,25) misses this point, but its bounding rectangle holds it.
      const point = { type: 'Point', coordinates: [21, 24] }
      expect(await names({ loc: { _intersects: point } })).toEqual([])
      expect(await names({ loc: { _intersects_bbox: point } })).toEqual(await plain("MBRIntersects(loc, ST_GeomFromText('POINT(21 24)'))"))
      expect(await names({ loc: { _intersects_bbox: point } })).toEqual(['line'])
      expect(await names({ loc: { _nintersects_bbox: point } })).toEqual(['point', 'square'])
    })

    it('a value that is no geometry, another operator, a spatial operator elsewhere, or sort is 400 before SQL', async () => {
      for (const [query, mentions] of [
        [{ filter: JSON.stringify({ loc: { _intersects: { type: 'Point' } } }) }, ['loc']],
        [{ 'filter[loc][_intersects]': 'POINT(1 2)' }, ['loc']],
        [{ filter: JSON.stringify({ loc: { _eq: SQUARE } }) }, ['_eq']],
        [{ filter: JSON.stringify({ name: { _intersects: SQUARE } }) }, ['_intersects']],
        [{ sort: 'loc' }, ['loc']],
      ] as const) {
        const counted = await ctx.countQueries(async () => request(app).get('/api/items/xg_places').query(query))
        expectInvalidQuery(counted.result, counted.count, mentions)
      }
    })

    it('a validation rule with a spatial condition is a ConfigError', () => {
      const build = (): unknown =>
        createItemsRouter({
          knex: ctx.knex,
          collections: { places: { ...places, access: { create: { validation: { loc: { _intersects: SQUARE } } } } } },
        })
      expect(build).toThrow(/cannot hold "_intersects": spatial conditions belong in `filter`/)
    })
  })
})
