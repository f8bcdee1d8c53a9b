// Bench support: a 1M-row, 6-column table per database (SQLite in a file under the OS temp dir, PostgreSQL and
// MariaDB in this run's own database), built by the database itself, kept between runs; and a router serving it
// from a child process running the built library, so that its peak RSS is the server's alone.
import { spawn, type ChildProcess } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import knexFactory, { type Knex } from 'knex'
import type { DialectName } from '../lib/dialects'
import { ensureDatabase, knexConfig, workerDatabase } from '../spec/support/databases'

// A run name of its own, so a benchmark never meets the tables of a jest run on the same servers.
process.env.ITEMS_TEST_RUN ??= 'bench13'

export const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000)
export const TABLE = 'bench_rows'
export const SQLITE_FILE = path.join(os.tmpdir(), `items-bench-${process.env.ITEMS_TEST_RUN}.sqlite`)

export const benchCollections = {
  [TABLE]: {
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string', maxLength: 100 },
      amount: { type: 'integer' },
      price: { type: 'decimal', precision: 10, scale: 2 },
      created_at: { type: 'dateTime' },
      active: { type: 'boolean' },
    },
  },
} as const

/** Where the table lives: SQLite's file, or the database the spec support names for this run. */
export function benchKnexConfig(name: DialectName): Knex.Config {
  const config = knexConfig(name)
  return name === 'sqlite' ? { ...config, connection: { filename: SQLITE_FILE } } : config
}

/** Rows 1..ROWS from a sequence the database generates: every seventh amount NULL, every third row active. */
function fillSql(name: DialectName): string {
  const columns = `insert into ${TABLE} (name, amount, price, created_at, active)`
  switch (name) {
    case 'sqlite':
      return `with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS})
        ${columns} select 'row ' || n, case when n % 7 = 0 then null else (n * 37) % 1000 end,
        (n % 100000) / 100.0, datetime('2020-01-01', '+' || n || ' seconds'), n % 3 = 0 from s`
    case 'postgres':
      return `${columns} select 'row ' || n, case when n % 7 = 0 then null else (n * 37) % 1000 end,
        (n % 100000) / 100.0, timestamp '2020-01-01' + n * interval '1 second', n % 3 = 0 from generate_series(1, ${ROWS}) n`
    case 'mysql':
      // No generate_series: six cross-joined digit tables count to a million.
      return `${columns} select concat('row ', n), if(n % 7 = 0, null, (n * 37) % 1000),
        (n % 100000) / 100.0, timestampadd(second, n, '2020-01-01'), n % 3 = 0 from (select a.d + b.d * 10 + c.d * 100 + e.d * 1000
        + f.d * 10000 + g.d * 100000 + 1 as n from bench_digits a, bench_digits b, bench_digits c, bench_digits e,
        bench_digits f, bench_digits g) s where n <= ${ROWS} order by n`
  }
}

/**
 * Whether the table is there with ROWS rows, its columns as now (a decimal and a boolean since 2026-11-28) and, on
 * PostgreSQL, `created_at` as a timestamp (until 2026-11, text).
 */
async function builtAsNow(knex: Knex, name: DialectName): Promise<boolean> {
  if (!(await knex.schema.hasTable(TABLE)) || !(await knex.schema.hasColumn(TABLE, 'active'))) return false
  if (Number((await knex(TABLE).count({ n: '*' }))[0]!.n) !== ROWS) return false
  return name !== 'postgres' || (await knex(TABLE).columnInfo('created_at')).type === 'timestamp without time zone'
}

/** Opens the bench table, building it when it is missing, has another row count or an older column type. */
export async function openTable(name: DialectName): Promise<Knex> {
  await ensureDatabase(name)
  const knex = knexFactory(benchKnexConfig(name))
  if (await builtAsNow(knex, name)) return knex
  const started = performance.now()
  await knex.schema.dropTableIfExists(TABLE)
  await knex.schema.createTable(TABLE, (t) => {
    t.increments('id')
    t.string('name', 100)
    t.integer('amount')
    t.decimal('price', 10, 2)
    // A dateTime field's column as the fixtures make it: SQLite keeps the text, the others a zone-less type.
    if (name === 'sqlite') t.text('created_at')
    else t.dateTime('created_at', { useTz: false })
    t.boolean('active')
  })
  if (name === 'mysql') {
    await knex.schema.dropTableIfExists('bench_digits')
    await knex.schema.createTable('bench_digits', (t) => t.integer('d'))
    await knex('bench_digits').insert(Array.from({ length: 10 }, (_, d) => ({ d })))
  }
  await knex.raw(fillSql(name))
  // As autovacuum would leave a table at rest: statistics, and a visibility map for index-only scans.
  if (name === 'postgres') await knex.raw(`vacuum analyze ${TABLE}`)
  console.log(`${name}: built ${ROWS} rows in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return knex
}

/** The database name the CLI exports connect to. */
export const benchDatabase = (): string => workerDatabase()

/**
 * The server child: the built library (dist/) behind Express, plus `/__usage` answering its peak RSS and CPU
 * time. Plain JavaScript run by node, so no TypeScript compiler sits in the measured process.
 */
const SERVER = `
const express = require('express')
const knexFactory = require('knex')
const { createItemsRouter, prepareSqliteConnection } = require(process.env.BENCH_DIST)
const config = JSON.parse(process.env.BENCH_KNEX)
if (config.client === 'better-sqlite3') config.pool = { min: 1, max: 1, afterCreate: (c, done) => { prepareSqliteConnection(c); done(null, c) } }
const knex = knexFactory(config)
const app = express()
app.get('/__usage', (req, res) => res.json({ maxRssMiB: process.resourceUsage().maxRSS / 1024, cpu: process.cpuUsage(), rssMiB: process.memoryUsage().rss / 2 ** 20 }))
app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections: JSON.parse(process.env.BENCH_COLLECTIONS), cursorSecret: 'bench-secret-of-at-least-thirty-two-chars' }))
const server = app.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }))
`

export interface Served {
  readonly base: string
  usage(): Promise<{ maxRssMiB: number; rssMiB: number; cpu: { user: number; system: number } }>
  close(): void
}

/** Starts the server child for `name`'s bench table. Needs `npm run build` first. */
export async function serve(name: DialectName): Promise<Served> {
  const { pool: _pool, ...config } = benchKnexConfig(name)
  const child: ChildProcess = spawn(process.execPath, ['-e', SERVER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      // BENCH_DIST: a copy of dist/ elsewhere, so a build during a long run cannot pull it away.
      BENCH_DIST: process.env.BENCH_DIST ?? path.join(__dirname, '..', 'dist'),
      NODE_PATH: path.join(__dirname, '..', 'node_modules'),
      BENCH_KNEX: JSON.stringify(config),
      BENCH_COLLECTIONS: JSON.stringify(benchCollections),
    },
  })
  const { port } = await new Promise<{ port: number }>((resolve, reject) => {
    child.once('message', (message) => resolve(message as { port: number }))
    child.once('exit', (code) => reject(new Error(`the bench server exited with ${code}`)))
  })
  const base = `http://127.0.0.1:${port}`
  return {
    base,
    usage: async () => (await (await fetch(`${base}/__usage`)).json()) as Awaited<ReturnType<Served['usage']>>,
    close: () => child.kill(),
  }
}
