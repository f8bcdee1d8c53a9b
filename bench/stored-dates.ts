// CPU per request over a SQLite timestamp stored three ways (ISO text, epoch milliseconds, CURRENT_TIMESTAMP
// text): what reading through the normalising expression costs next to the plain column `isoText` keeps.
// Run: npm run bench:dates. Figures are CPU milliseconds of this process per request (process.cpuUsage),
// averaged after a warm-up; better-sqlite3 runs the statement on this thread, so SQLite's work is included.
import express from 'express'
import knexFactory from 'knex'
import request from 'supertest'
import { createItemsRouter, prepareSqliteConnection, type TemporalStorage } from '../lib'

const ROWS = Number(process.env.ROWS ?? 50_000)
const RUNS = Number(process.env.RUNS ?? 20)
const START = Date.parse('2020-01-01T00:00:00Z')
const STEP = 60_000 * 37

async function main(): Promise<void> {
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: ':memory:' },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (conn: never, done: (error: Error | null, conn: unknown) => void) => (prepareSqliteConnection(conn), done(null, conn)),
    },
  })
  await knex.raw('create table events (id integer primary key, at_iso text, at_ms integer, at_sql text)')
  for (const column of ['at_iso', 'at_ms', 'at_sql']) await knex.raw(`create index events_${column} on events (${column})`)
  // Filled in SQL: the three forms of one instant per row.
  await knex.raw(
    `insert into events (at_iso, at_ms, at_sql) with recursive n(i) as (select 0 union all select i + 1 from n where i < ?)
     select strftime('%Y-%m-%dT%H:%M:%fZ', ms / 1000.0, 'unixepoch'), ms, strftime('%Y-%m-%d %H:%M:%S', ms / 1000.0, 'unixepoch')
     from (select ? + i * ? as ms from n)`,
    [ROWS - 1, START, STEP],
  )
  // The same table under three names, each serving one of its columns.
  const storages = [
    ['at_iso', 'isoText'],
    ['at_ms', 'epochMs'],
    ['at_sql', 'sqlText'],
  ] as const
  const collections = Object.fromEntries(
    storages.map(([name, storage]: readonly [string, TemporalStorage]) => [
      name,
      { table: 'events', fields: { id: { type: 'integer' as const, primaryKey: true }, [name]: { type: 'timestamp' as const, storage } } },
    ]),
  )
  const app = express()
  app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections, maxLimit: ROWS }))
  const low = new Date(START + ROWS * 0.5 * STEP).toISOString()
  const high = new Date(START + ROWS * 0.51 * STEP).toISOString()
  const shapes: Record<string, (field: string) => Record<string, unknown>> = {
    'range filter (1%), sort, limit 10': (field) => ({ filter: { [field]: { _between: [low, high] } }, sort: field, limit: 10 }),
    '_eq one instant': (field) => ({ filter: { [field]: { _eq: low } } }),
    'groupBy year(), count': (field) => ({ aggregate: { count: '*' }, groupBy: `year(${field})` }),
    'max()': (field) => ({ aggregate: { max: field } }),
  }
  console.log(`${ROWS} rows, ${RUNS} runs per cell; CPU ms per request (ratio to isoText)`)
  console.log('| request | isoText | epochMs | sqlText |\n|---|---|---|---|')
  for (const [label, shape] of Object.entries(shapes)) {
    const cells: number[] = []
    for (const field of ['at_iso', 'at_ms', 'at_sql']) {
      const get = () => request(app).get(`/api/items/${field}`).query(shape(field))
      for (let warm = 0; warm < 3; warm++) await get()
      const before = process.cpuUsage()
      for (let run = 0; run < RUNS; run++) {
        const response = await get()
        if (response.status !== 200) throw new Error(`${label} on ${field}: ${response.status} ${JSON.stringify(response.body)}`)
      }
      const used = process.cpuUsage(before)
      cells.push((used.user + used.system) / 1000 / RUNS)
    }
    const base = cells[0]!
    console.log(`| ${label} | ${cells.map((cell) => `${cell.toFixed(2)} (${(cell / base).toFixed(1)}×)`).join(' | ')} |`)
  }
  await knex.destroy()
}

void main()
