// export=csv of plain fields: whoever writes the lines (PostgreSQL's COPY where it can, the router's writer
// elsewhere), the download is byte for byte the CSV the router's writer makes of the same items, whatever the
// values, chunks, filter, search, sort and page.
import express, { type Express } from 'express'
import knexFactory from 'knex'
import fc from 'fast-check'
import request from 'supertest'
import { dropTables, createTables } from '../../fixtures/tables'
import { createItemsRouter, type CollectionDefinition, type Item } from '../../lib'
import { exportWriter } from '../../lib/handlers/export-formats'
import { recordingLogger } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'
import { dialectOf } from '../../lib/dialects'

const kinds: CollectionDefinition = {
  table: 'xc_kinds',
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    label: { type: 'string', maxLength: 40 },
    body: { type: 'text' },
    mood: { type: 'string', enum: ['calm', 'wild, "odd"'] },
    count: { type: 'integer' },
    big: { type: 'bigInteger' },
    ratio: { type: 'float' },
    price: { type: 'decimal', precision: 14, scale: 2 },
    active: { type: 'boolean' },
    day: { type: 'date' },
    starts_at: { type: 'dateTime' },
    alarm: { type: 'time' },
    ref: { type: 'uuid' },
  },
}
const COLUMNS = Object.keys(kinds.fields)

/** Text that needs CSV quoting as often as not: separators, quotes, line breaks, `\.`, spaces, non-ASCII. */
const trickyText = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '\r', '\n', '\\', '.', 'é', '😀'), maxLength: 8 })
const pad = (value: number, width = 2): string => String(value).padStart(width, '0')
const row = fc.record({
  label: fc.option(trickyText),
  body: fc.option(fc.oneof(trickyText, fc.constant('\\.'), fc.constant(''))),
  mood: fc.option(fc.constantFrom('calm', 'wild, "odd"')),
  count: fc.option(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 })),
  big: fc.option(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String)),
  // Every magnitude: both sides of where PostgreSQL and JavaScript switch to an exponent, -0 and subnormals.
  ratio: fc.option(
    fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1e-4, 1e-7, 1.5e-7, 1e15, 1e21, 123e20)),
  ),
  price: fc.option(
    fc
      .tuple(fc.bigInt({ min: -(10n ** 12n) + 1n, max: 10n ** 12n - 1n }), fc.integer({ min: 0, max: 99 }))
      .map(([whole, cents]) => `${whole}.${String(cents).padStart(2, '0')}`),
  ),
  active: fc.option(fc.boolean()),
  day: fc.option(fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))),
  starts_at: fc.option(fc.tuple(fc.integer({ min: 1, max: 86_399 }), fc.integer({ min: 1, max: 9999 }))),
  alarm: fc.option(fc.integer({ min: 0, max: 86_399 })),
  ref: fc.option(fc.uuid().map((uuid) => uuid.toUpperCase())),
})

/** What the DateStyle spec's pool runs on each new connection. */
interface PgConnection {
  query(sql: string): Promise<unknown>
}

type Row = typeof row extends fc.Arbitrary<infer T> ? T : never

const clock = (seconds: number): string => `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`

/** A generated row as the payload that writes it. */
function payload({ day, starts_at: startsAt, alarm, ...rest }: Row): Item {
  return {
    ...rest,
    day: day && `${pad(day[0], 4)}-${pad(day[1])}-${pad(day[2])}`,
    starts_at: startsAt && `${pad(startsAt[1], 4)}-06-30T${clock(startsAt[0])}`,
    alarm: alarm === null ? null : clock(alarm),
  }
}

/** The CSV the router's own writer makes of the items another export (NDJSON, never written by the database) reads. */
async function writerCsv(app: Express, query: string): Promise<string> {
  const ndjson = await request(app).get(`/api/items/kinds?${query}&export=ndjson`).buffer(true)
  expect(ndjson.status).toBe(200)
  const items = ndjson.text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Item)
  const fields = new URLSearchParams(query).get('fields')
  const writer = exportWriter('csv', fields === null ? COLUMNS : fields.split(','))
  return writer.start() + writer.items(items, true) + writer.end()
}

forEachDialect((ctx) => {
  describe('export=csv of plain fields', () => {
    let app: Express
    /** The same router without kept statements: on SQLite, rows then come as objects (see Dialect.arrayRows). */
    let unkept: Express
    /** The COPY statements pg ran meanwhile (PostgreSQL). */
    let copies: string[]
    /** The statements knex ran meanwhile that asked the driver for arrays (Dialect.arrayRows). */
    let arrayReads: number
    const countArrayReads = (query: { options?: Record<string, unknown> }): void => {
      if (query.options && Object.keys(dialectOf(ctx.knex).arrayRows).every((key) => key in query.options!)) arrayReads++
    }
    beforeAll(async () => {
      await dropTables(ctx.knex, { kinds })
      await createTables(ctx.knex, { kinds })
      app = express()
      // Chunks of 4 rows: every export below crosses chunk boundaries.
      app.use(
        '/api',
        createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { kinds }, maxLoadedRows: 4, logger: recordingLogger() }),
      )
      unkept = express()
      unkept.use(
        '/api',
        createItemsRouter({
          knex: ctx.knex,
          defaultAccess: true,
          collections: { kinds },
          maxLoadedRows: 4,
          preparedStatements: false,
          logger: recordingLogger(),
        }),
      )
    })
    afterAll(() => dropTables(ctx.knex, { kinds }))
    beforeEach(async () => {
      copies = []
      arrayReads = 0
      ctx.knex.on('query', countArrayReads)
      if (ctx.name !== 'postgres') return
      // pg's Client, found through a pooled connection: every COPY the router runs passes its query method.
      const connection = (await ctx.knex.client.acquireConnection()) as object
      await ctx.knex.client.releaseConnection(connection)
      const client = Object.getPrototypeOf(connection) as { query(...args: unknown[]): unknown }
      const query = client.query
      jest.spyOn(client, 'query').mockImplementation(function (this: unknown, ...args: unknown[]) {
        const text = (args[0] as { text?: unknown } | null)?.text
        if (typeof text === 'string' && /^(\/\*.*\*\/ )?copy \(/.test(text)) copies.push(text)
        return query.apply(this, args)
      })
    })
    afterEach(() => {
      ctx.knex.off('query', countArrayReads)
      jest.restoreAllMocks()
    })

    const QUERIES = [
      'limit=-1',
      'limit=-1&sort=-ratio,label&fields=id,ratio,label,starts_at',
      'filter[count][_gte]=0&filter[mood][_neq]=calm&filter[label][_ncontains]=%22,&sort=-price,day&limit=9&offset=2&fields=big,day,body,mood,price',
      'search=a&sort=alarm&limit=-1&fields=alarm,active,ref,count',
    ]

    it('is byte for byte the writer’s CSV of the same items, for any values, query and chunking', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(row, { minLength: 0, maxLength: 14 }), async (rows) => {
          await ctx.knex('xc_kinds').del()
          if (rows.length > 0) expect((await request(app).post('/api/items/kinds').send(rows.map(payload))).status).toBe(200)
          for (const query of QUERIES) {
            const csv = await request(app).get(`/api/items/kinds?${query}&export=csv`).buffer(true)
            expect({ query, status: csv.status, body: csv.status === 200 ? null : csv.text }).toEqual({ query, status: 200, body: null })
            expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8')
            const expected = await writerCsv(app, query)
            expect(csv.text).toBe(expected)
            expect((await request(unkept).get(`/api/items/kinds?${query}&export=csv`).buffer(true)).text).toBe(expected)
          }
        }),
        { numRuns: 12 },
      )
      // PostgreSQL wrote them (COPY ran for every export); elsewhere the rows came as arrays, never as items.
      if (ctx.name === 'postgres') expect(copies.length).toBeGreaterThanOrEqual(QUERIES.length)
      else expect({ copies, arrayReads: arrayReads >= QUERIES.length }).toEqual({ copies: [], arrayReads: true })
    })

    if (ctx.name !== 'postgres') return

    it('copies values the API cannot write as the router reads them: BC, infinity, 24:00, NaN, a lone \\.', async () => {
      await ctx.knex('xc_kinds').del()
      await ctx.knex.raw(
        `insert into xc_kinds (id, label, ratio, day, starts_at, alarm) values
         (1, '\\.', 'NaN', '0044-03-15 BC', '0044-03-15 12:00:00.5 BC', '24:00:00'),
         (2, '', 'Infinity', 'infinity', 'infinity', '23:59:59.999999'),
         (3, null, '-Infinity', '-infinity', '-infinity', '00:00:00.5'),
         (4, 'x', '1e-5', '9999-12-31', '2020-02-29 23:59:59.999999', null),
         (5, 'y', '4.9e-324', '0001-01-01', '10000-01-01 00:00:00', null)`,
      )
      const csv = await request(app).get('/api/items/kinds?limit=-1&fields=id,label,ratio,day,starts_at,alarm&export=csv').buffer(true)
      // As the router's own writer spells them: what its parsers refuse passes as the database wrote it.
      expect(csv.text).toBe(
        'id,label,ratio,day,starts_at,alarm\r\n' +
          '1,\\.,NaN,0044-03-15 BC,0044-03-15 12:00:00.5 BC,24:00:00\r\n' +
          '2,,Infinity,infinity,infinity,23:59:59\r\n' +
          '3,,-Infinity,-infinity,-infinity,00:00:00\r\n' +
          '4,x,0.00001,9999-12-31,2020-02-29T23:59:59,\r\n' +
          '5,y,5e-324,0001-01-01,10000-01-01 00:00:00,\r\n',
      )
      expect(copies.length).toBeGreaterThan(0)
      copies = []
      // A lone text cell could be `\.`, which COPY would quote: the router writes that one itself.
      expect((await request(app).get('/api/items/kinds?limit=-1&fields=label&export=csv').buffer(true)).text).toBe(
        'label\r\n\\.\r\n\r\n\r\nx\r\ny\r\n',
      )
      expect(copies).toEqual([])
    })

    it('leaves a chunk to the router where a float from 2^53 on could get other digits from the database', async () => {
      await ctx.knex('xc_kinds').del()
      // Chunks of 4: the third holds 1.23e22, which PostgreSQL spells 1.2300000000000001e+22.
      const ratios = [0.5, 1, 2, 3, 4, 5, 6, 7, 8, 1.23e22, 2 ** 53, 11]
      await ctx.knex('xc_kinds').insert(ratios.map((ratio, index) => ({ id: index + 1, ratio })))
      const csv = await request(app).get('/api/items/kinds?limit=-1&fields=id,ratio&export=csv').buffer(true)
      expect(csv.text).toBe(`id,ratio\r\n${ratios.map((ratio, index) => `${index + 1},${ratio}\r\n`).join('')}`)
      expect(csv.text).toContain(',1.23e+22\r\n')
      // Four COPY statements: the first two chunks, the third (which failed, then was read as arrays), the last.
      expect({ copies: copies.length, arrayReads }).toEqual({ copies: 4, arrayReads: 1 })
    })

    it('leaves a chunk to the router where a decimal is NaN, which the router spells its own way', async () => {
      await ctx.knex('xc_kinds').del()
      await ctx.knex.raw(`insert into xc_kinds (id, price) values (1, '1.50'), (2, '-0.50'), (3, 'NaN'), (4, '0'), (5, '2')`)
      const csv = await request(app).get('/api/items/kinds?limit=-1&fields=id,price&export=csv').buffer(true)
      expect(csv.text).toBe(await writerCsv(app, 'limit=-1&fields=id,price'))
      expect(csv.text).toMatch(/^id,price\r\n1,1\.50\r\n2,-0\.50\r\n3,[^\r]*\r\n4,0\.00\r\n5,2\.00\r\n$/)
      // The first chunk (rows 1-4) failed on the NaN and was read as arrays; the second (row 5) was copied.
      expect({ copies: copies.length, arrayReads }).toEqual({ copies: 2, arrayReads: 1 })
    })

    it('leaves to the router the columns whose text the database would spell otherwise', async () => {
      await ctx.knex.schema.alterTable('xc_kinds', (table) => table.bigInteger('count').alter())
      try {
        await ctx.knex('xc_kinds').del()
        await ctx.knex('xc_kinds').insert({ count: '9007199254740993', label: 'rounded' })
        const csv = await request(app).get('/api/items/kinds?limit=-1&fields=count,label&export=csv').buffer(true)
        // An integer field read from an int8 column becomes a JavaScript number, rounded past 2^53.
        expect(csv.text).toBe('count,label\r\n9007199254740992,rounded\r\n')
        expect(copies).toEqual([])
      } finally {
        await ctx.knex('xc_kinds').del()
        await ctx.knex.schema.alterTable('xc_kinds', (table) => table.integer('count').alter())
      }
    })

    it('leaves it to the router when the session writes dates other than ISO', async () => {
      const config = knexConfig('postgres')
      const styled = knexFactory({
        ...config,
        pool: {
          min: 1,
          max: 1,
          afterCreate: (connection: PgConnection, done: (error: Error | null, connection: PgConnection) => void) => {
            connection.query("set datestyle = 'SQL, DMY'").then(
              () => done(null, connection),
              (error: Error) => done(error, connection),
            )
          },
        },
      })
      try {
        const other = express().use(
          '/api',
          createItemsRouter({ knex: styled, defaultAccess: true, collections: { kinds }, logger: recordingLogger() }),
        )
        await ctx.knex('xc_kinds').del()
        await ctx.knex('xc_kinds').insert({ day: '2020-01-02', label: 'dated' })
        const csv = await request(other).get('/api/items/kinds?limit=-1&fields=id,day,label&export=csv').buffer(true)
        expect(csv.text).toBe(await writerCsv(other, 'limit=-1&fields=id,day,label'))
        expect(csv.text).toContain(',02/01/2020,dated')
        expect(copies).toEqual([])
      } finally {
        await styled.destroy()
      }
    })
  })
})
