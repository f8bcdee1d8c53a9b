// SQLite temporal columns as other writers leave them: epoch milliseconds (knex writing JS Dates),
// `YYYY-MM-DD HH:MM:SS` text (CURRENT_TIMESTAMP) and a mix, served through `storage` and checked against plain SQL.
import express, { type Express } from 'express'
import request from 'supertest'
import { createItemsRouter, type CollectionDefinition } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'

const INSTANTS = [
  '2024-02-29T23:59:59.250Z',
  '2024-12-31T23:30:00.000Z',
  '2025-01-01T00:00:00.000Z',
  '2025-06-15T05:10:52.123Z',
  '2025-06-15T18:00:01.999Z',
]

const events: CollectionDefinition = {
  table: 'xd_events',
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    label: { type: 'string' },
    at_ms: { type: 'timestamp', storage: 'epochMs' },
    at_sql: { type: 'timestamp', storage: 'sqlText' },
    day_ms: { type: 'date', storage: 'epochMs' },
    wall_ms: { type: 'dateTime', storage: 'epochMs' },
    at_mixed: { type: 'timestamp', storage: 'epochMs' },
    at_iso: { type: 'timestamp' },
  },
}

/** `2025-06-15T05:10:52.123Z` as CURRENT_TIMESTAMP writes it (seconds only). */
const sqlText = (iso: string): string => iso.slice(0, 19).replace('T', ' ')

forEachDialect((ctx: DialectContext) => {
  if (ctx.name !== 'sqlite') {
    it(`${ctx.name}: storage is ignored on typed columns`, async () => {
      const type = ctx.name === 'postgres' ? 'timestamptz' : 'datetime(3)'
      await ctx.knex.raw('drop table if exists xd_typed')
      await ctx.knex.raw(`create table xd_typed (id integer primary key, at ${type})`)
      const typed: CollectionDefinition = {
        table: 'xd_typed',
        fields: { id: { type: 'integer', primaryKey: true }, at: { type: 'timestamp', storage: 'epochMs' } },
      }
      const app = express()
      app.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: { typed }, logger: recordingLogger() }))
      const created = await request(app).post('/api/items/typed').send({ id: 1, at: '2025-06-15T07:10:52.123+02:00' })
      expect(created.body.data).toEqual({ id: 1, at: '2025-06-15T05:10:52.123Z' })
      const found = await request(app)
        .get('/api/items/typed')
        .query({ filter: { at: { _gte: '2025-06-15T05:10:52.123Z' } }, fields: 'id' })
      expect(found.body.data).toEqual([{ id: 1 }])
      await ctx.knex.raw('drop table xd_typed')
    })
    return
  }
  describe('sqlite storage conventions', () => {
    let app: Express

    beforeAll(async () => {
      const { knex } = ctx
      await knex.raw('drop table if exists xd_events')
      // Declared types as other tools write them: `datetime` (NUMERIC affinity keeps integers), `date`, `text`.
      await knex.raw(
        'create table xd_events (id integer primary key autoincrement, label text, at_ms datetime, ' +
          'at_sql datetime default CURRENT_TIMESTAMP, day_ms date, wall_ms datetime, at_mixed text, at_iso text)',
      )
      // knex binds a JS Date as its epoch milliseconds on SQLite: the convention the issue reports.
      await knex('xd_events').insert(
        INSTANTS.map((iso, index) => ({
          label: `e${index}`,
          at_ms: new Date(iso),
          at_sql: sqlText(iso),
          day_ms: new Date(`${iso.slice(0, 10)}T00:00:00Z`),
          wall_ms: new Date(iso),
          // One column holding every form: integer, digits as TEXT (the column's affinity), SQL text, ISO text.
          at_mixed: [new Date(iso), String(Date.parse(iso)), sqlText(iso), iso.replace('Z', '+00:00'), new Date(iso)][index],
          at_iso: iso,
        })),
      )
      // A row written by SQLite's own clock, as a column default.
      await knex.raw("insert into xd_events (label) values ('now')")
      app = express()
      app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections: { events }, logger: recordingLogger() }))
    })

    const ids = async (query: Record<string, unknown>): Promise<number[]> => {
      const response = await request(app)
        .get('/api/items/events')
        .query({ fields: 'id', limit: -1, ...query })
      expect(response.status).toBe(200)
      return (response.body.data as { id: number }[]).map((row) => row.id)
    }
    const plain = async (sql: string, bindings: (string | number)[] = []): Promise<number[]> =>
      ((await ctx.knex.raw(sql, bindings)) as { id: number }[]).map((row) => row.id)

    it('reads each form in the documented JSON form', async () => {
      const response = await request(app)
        .get('/api/items/events')
        .query({ filter: { label: { _neq: 'now' } }, sort: 'id' })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(
        INSTANTS.map((iso, index) => ({
          id: index + 1,
          label: `e${index}`,
          at_ms: iso,
          at_sql: `${iso.slice(0, 19)}.000Z`,
          day_ms: iso.slice(0, 10),
          wall_ms: iso.slice(0, 19),
          at_mixed: index === 2 ? `${iso.slice(0, 19)}.000Z` : iso,
          at_iso: iso,
        })),
      )
      const now = await request(app)
        .get('/api/items/events')
        .query({ filter: { label: { _eq: 'now' } } })
      const [stored] = (await ctx.knex.raw("select at_sql from xd_events where label = 'now'")) as { at_sql: string }[]
      expect(now.body.data[0].at_sql).toBe(`${stored!.at_sql.replace(' ', 'T')}.000Z`)
    })

    const cutoff = INSTANTS[2]!
    it.each([
      ['_eq', cutoff, '='],
      ['_neq', cutoff, '<>'],
      ['_lt', cutoff, '<'],
      ['_lte', cutoff, '<='],
      ['_gt', cutoff, '>'],
      ['_gte', '2025-06-01', '>='],
    ])('epoch milliseconds: %s compares instants like plain SQL on the integers', async (operator, value, sql) => {
      const expected = await plain(`select id from xd_events where at_ms ${sql} ? order by id`, [Date.parse(value)])
      expect(expected.length).toBeGreaterThan(0)
      expect(await ids({ filter: { at_ms: { [operator]: value } }, sort: 'id' })).toEqual(expected)
      expect(await ids({ filter: { at_mixed: { [operator]: value } }, sort: 'id' })).toEqual(expected)
    })

    it.each([
      ['_lt', '2025-01-01T00:00:00Z', '<'],
      ['_gte', '2024-12-31T23:30:00+00:00', '>='],
      ['_eq', '2025-06-15T05:10:52Z', '='],
    ])('CURRENT_TIMESTAMP text: %s compares like plain SQL on the text', async (operator, value, sql) => {
      const expected = await plain(`select id from xd_events where at_sql ${sql} ? and label <> 'now' order by id`, [
        sqlText(new Date(value).toISOString()),
      ])
      expect(expected.length).toBeGreaterThan(0)
      expect(await ids({ filter: { at_sql: { [operator]: value }, label: { _neq: 'now' } }, sort: 'id' })).toEqual(expected)
    })

    it('_between, _nbetween and $NOW', async () => {
      const [low, high] = ['2024-12-31T00:00:00Z', '2025-06-15T05:10:52.123Z']
      const between = await plain('select id from xd_events where at_ms between ? and ? order by id', [Date.parse(low), Date.parse(high)])
      expect(between).toEqual([2, 3, 4])
      for (const field of ['at_ms', 'at_mixed']) {
        expect(await ids({ filter: { [field]: { _between: [low, high] } }, sort: 'id' })).toEqual(between)
        expect(await ids({ filter: { [field]: { _nbetween: [low, high] } }, sort: 'id' })).toEqual([1, 5])
      }
      expect(await ids({ filter: { day_ms: { _between: ['2024-12-31', '2025-01-01'] } }, sort: 'id' })).toEqual([2, 3])
      expect(await ids({ filter: { at_ms: { _lt: '$NOW' } }, sort: 'id' })).toEqual([1, 2, 3, 4, 5])
      expect(await ids({ filter: { at_sql: { _lte: '$NOW' } }, sort: 'id' })).toEqual([1, 2, 3, 4, 5, 6])
      expect(await ids({ filter: { at_ms: { _gt: '$NOW(-1 year)' } } })).toEqual([])
    })

    it('sorts like plain SQL, each form and the mix', async () => {
      const expected = await plain('select id from xd_events where at_ms is not null order by at_ms desc')
      for (const field of ['at_ms', 'at_sql', 'at_mixed', 'wall_ms']) {
        expect(await ids({ filter: { label: { _neq: 'now' } }, sort: `-${field},id` })).toEqual(expected)
      }
    })

    it('pages by cursor over each form as the sort orders them', async () => {
      for (const field of ['at_ms', 'at_sql', 'at_mixed', 'day_ms']) {
        const sort = `-${field},id`
        const whole = await ids({ filter: { label: { _neq: 'now' } }, sort })
        const walked: number[] = []
        let cursor: string | null = null
        do {
          const response = await request(app)
            .get('/api/items/events')
            .query({ fields: 'id', filter: { label: { _neq: 'now' } }, sort, limit: 2, meta: 'next_cursor', ...(cursor ? { cursor } : {}) })
          expect(response.status).toBe(200)
          walked.push(...(response.body.data as { id: number }[]).map((row) => row.id))
          cursor = (response.body.meta as { next_cursor: string | null }).next_cursor
        } while (cursor !== null && walked.length <= whole.length)
        expect({ field, walked }).toEqual({ field, walked: whole })
      }
    })

    it('date parts, groupBy and min/max agree with plain SQL over the integers', async () => {
      const years = (await ctx.knex.raw(
        "select cast(strftime('%Y', at_ms / 1000.0, 'unixepoch') as integer) as year, count(*) as count from xd_events where at_ms is not null group by 1 order by 1",
      )) as { year: number; count: number }[]
      for (const field of ['at_ms', 'at_mixed', 'at_sql', 'wall_ms', 'day_ms']) {
        const response = await request(app)
          .get('/api/items/events')
          .query({ aggregate: { count: '*' }, groupBy: `year(${field})`, filter: { label: { _neq: 'now' } }, sort: `year(${field})` })
        expect(response.status).toBe(200)
        expect(response.body.data).toEqual(years.map(({ year, count }) => ({ [`${field}_year`]: year, count })))
      }
      expect(await ids({ filter: { 'month(at_ms)': { _eq: 6 }, 'hour(at_ms)': { _eq: 18 } } })).toEqual([5])
      expect(await ids({ filter: { 'second(at_mixed)': { _eq: 52 } } })).toEqual([4])
      const [bounds] = (await ctx.knex.raw('select min(at_ms) as low, max(at_ms) as high from xd_events')) as {
        low: number
        high: number
      }[]
      for (const field of ['at_ms', 'at_mixed']) {
        const response = await request(app)
          .get('/api/items/events')
          .query({ aggregate: { min: field, max: field } })
        expect(response.body.data).toEqual([
          { min: { [field]: new Date(bounds!.low).toISOString() }, max: { [field]: new Date(bounds!.high).toISOString() } },
        ])
      }
      const grouped = await request(app)
        .get('/api/items/events')
        .query({ aggregate: { count: '*' }, groupBy: 'day_ms', sort: 'day_ms' })
      expect(grouped.body.data.map((row: { day_ms: string }) => row.day_ms)).toEqual([
        null,
        '2024-02-29',
        '2024-12-31',
        '2025-01-01',
        '2025-06-15',
      ])
    })

    it('writes keep the column convention', async () => {
      const created = await request(app).post('/api/items/events').send({
        label: 'posted',
        at_ms: '2025-03-01T12:00:00.500+01:00',
        at_sql: '2025-03-01T11:00:00Z',
        day_ms: '2025-03-01',
        wall_ms: '2025-03-01T11:00:00',
        at_iso: '2025-03-01T11:00:00Z',
      })
      expect(created.status).toBe(200)
      const id = created.body.data.id as number
      const [row] = (await ctx.knex.raw('select at_ms, typeof(at_ms) as t, at_sql, day_ms, wall_ms, at_iso from xd_events where id = ?', [
        id,
      ])) as Record<string, unknown>[]
      expect(row).toEqual({
        at_ms: Date.parse('2025-03-01T11:00:00.500Z'),
        t: 'integer',
        at_sql: '2025-03-01 11:00:00',
        day_ms: Date.parse('2025-03-01T00:00:00Z'),
        wall_ms: Date.parse('2025-03-01T11:00:00Z'),
        at_iso: '2025-03-01T11:00:00.000Z',
      })
      expect(created.body.data).toMatchObject({
        at_ms: '2025-03-01T11:00:00.500Z',
        at_sql: '2025-03-01T11:00:00.000Z',
        day_ms: '2025-03-01',
      })
      const patched = await request(app).patch(`/api/items/events/${id}`).send({ at_sql: '2025-03-02T08:00:00.250Z' })
      expect(patched.body.data.at_sql).toBe('2025-03-02T08:00:00.250Z')
      const [after] = (await ctx.knex.raw('select at_sql from xd_events where id = ?', [id])) as { at_sql: string }[]
      expect(after!.at_sql).toBe('2025-03-02 08:00:00.250')
      await ctx.knex('xd_events').where({ id }).delete()
    })

    it('a default isoText field keeps the plain column in its SQL', async () => {
      const { sql } = await ctx.countQueries(() =>
        request(app)
          .get('/api/items/events')
          .query({ fields: 'at_iso', filter: { at_iso: { _gt: cutoff } } }),
      )
      expect(sql.join('\n')).not.toMatch(/strftime|CASE/i)
      const stored = await ctx.countQueries(() =>
        request(app)
          .get('/api/items/events')
          .query({ fields: 'at_ms', filter: { at_ms: { _gt: cutoff } } }),
      )
      expect(stored.sql.join('\n')).toMatch(/strftime/)
    })
  })
})
