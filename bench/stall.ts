// Measures how long the worst request shapes block the event loop, per database, on a 200k-row dataset at the
// router's defaults, and the peak RSS of `limit=-1`; writes the figures to bench/STALL.md. SQLite runs twice: on
// the host's connection (an in-memory database), and on a database file whose reads go to `sqliteReader`
// threads. Run by hand: `npm run bench:stall` (BENCH_DIALECTS=sqlite narrows it, BENCH_ROWS changes the size).
// Not part of CI.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import { collections } from '../fixtures/schema'
import { createTables, dropTables } from '../fixtures/tables'
import { createItemsRouter, sqliteReader } from '../lib'
import { DIALECT_NAMES, type DialectName } from '../lib/dialects'
import { ensureDatabase, knexConfig, probe, selectedDialects } from '../spec/support/databases'

// A run name of its own, so the benchmark never drops the tables of a jest run on the same servers.
process.env.ITEMS_TEST_RUN ??= 'stall'

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000)
const AUTHORS = 1000
const WORDS = ['bridge', 'river', 'Straße', 'ÉCOLE', 'garden', 'tower', 'Ölberg', 'harbour', 'mill', 'forest']

/** `count` `_icontains` alternatives on `title` that match no row, so every row is tested against each. */
const patternOr = (count: number): string =>
  JSON.stringify({ _or: Array.from({ length: count }, (_, i) => ({ title: { _icontains: `w${i}` } })) }).replaceAll('"', '%22')

const SHAPES: ReadonlyArray<{ name: string; path: string }> = [
  { name: 'sort=-count(comments)&limit=10', path: '/api/items/articles?sort=-count(comments)&limit=10&fields=id,title' },
  { name: 'filter count(comments) > 3, limit 10', path: '/api/items/articles?filter[count(comments)][_gt]=3&limit=10&fields=id' },
  // Only the quotes encoded, as a browser would send it: fully encoded, the URL would pass Node's 16 KB header limit.
  { name: '300 _or of _icontains (12 KB URL)', path: `/api/items/articles?limit=10&fields=id&filter=${patternOr(300)}` },
  { name: '3 _or of _icontains (maxPatternConditions)', path: `/api/items/articles?limit=10&fields=id&filter=${patternOr(3)}` },
  {
    name: '3 _icontains, 1 non-ASCII',
    path: `/api/items/articles?limit=10&fields=id&filter=${patternOr(2).replace(']}', ',{%22title%22:{%22_icontains%22:%22%C3%9F1%22}}]}')}`,
  },
  { name: 'search=straße, limit 10', path: '/api/items/articles?search=stra%C3%9Fe&limit=10&fields=id' },
  { name: 'fields=*.*.* (default limit)', path: '/api/items/articles?fields=*.*.*' },
  { name: 'limit=-1&fields=*', path: '/api/items/articles?limit=-1&fields=*' },
]

interface Figure {
  name: string
  status: number
  ms: number
  /** CPU time the process spent on the request: what the stall would be on an idle machine, at most. */
  cpuMs: number
  stallMs: number
  maxRssMiB: number
}

async function fill(knex: Knex): Promise<void> {
  await dropTables(knex)
  await createTables(knex)
  const insert = (table: string, rows: object[]): Promise<void> =>
    // Batches of 200 rows: SQLite allows at most 500 terms in the compound SELECT knex builds for them.
    knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 200) await trx(table).insert(rows.slice(i, i + 200))
    })
  await insert(
    'authors',
    Array.from({ length: AUTHORS }, (_, i) => ({ name: `Author ${i}`, email: `a${i}@example.com` })),
  )
  await insert(
    'articles',
    Array.from({ length: ROWS }, (_, i) => ({
      title: `${WORDS[i % WORDS.length]} ${i} ${WORDS[(i * 7) % WORDS.length]}`,
      status: i % 3 === 0 ? 'draft' : 'published',
      rating: i % 5,
      author: (i % AUTHORS) + 1,
    })),
  )
  await insert(
    'comments',
    Array.from({ length: ROWS }, (_, i) => ({
      article: ((i * 7919) % ROWS) + 1,
      author: (i % AUTHORS) + 1,
      body: `comment ${i}`,
      votes: i % 100,
    })),
  )
}

/** One measured setup: a database, and for SQLite whether reads go to reader threads. */
interface Run {
  /** The section of STALL.md. */
  readonly section: string
  readonly dialect: DialectName
  readonly reader: boolean
}

const RUNS: readonly Run[] = [
  ...DIALECT_NAMES.map((dialect) => ({ section: dialect, dialect, reader: false })),
  { section: 'sqlite, reads on sqliteReader threads', dialect: 'sqlite', reader: true },
]

/** The knex of a run: a reader needs a database file in WAL mode (removed with `dir`). */
async function openRun(run: Run, dir: string): Promise<Knex> {
  const config = knexConfig(run.dialect)
  if (!run.reader) return knexFactory(config)
  const knex = knexFactory({ ...config, connection: { filename: join(dir, 'stall.db') } })
  await knex.raw('PRAGMA journal_mode = WAL')
  return knex
}

async function measure(run: Run): Promise<Figure[] | string> {
  const name = run.section
  const unreachable = await probe(run.dialect)
  if (unreachable) return unreachable
  await ensureDatabase(run.dialect)
  const dir = mkdtempSync(join(os.tmpdir(), 'items-stall-'))
  const knex = await openRun(run, dir)
  const reader = run.reader ? sqliteReader(knex) : null
  try {
    const started = performance.now()
    await fill(knex)
    console.log(`${name}: ${ROWS} articles and comments in ${((performance.now() - started) / 1000).toFixed(0)} s`)
    const app = express()
    app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections, ...(reader ? { replica: { knex: reader } } : {}) }))
    // The reader's first thread starts with the first read: started here, it is not measured as a stall.
    if (reader) await reader.raw('select 1')
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const delay = monitorEventLoopDelay({ resolution: 5 })
    delay.enable()
    const figures: Figure[] = []
    for (const shape of SHAPES) {
      global.gc?.()
      delay.reset()
      const start = performance.now()
      const cpu = process.cpuUsage()
      const response = await fetch(base + shape.path)
      await response.arrayBuffer()
      const used = process.cpuUsage(cpu)
      const figure = {
        name: shape.name,
        status: response.status,
        ms: performance.now() - start,
        cpuMs: (used.user + used.system) / 1000,
        stallMs: delay.max / 1e6,
        maxRssMiB: process.resourceUsage().maxRSS / 1024,
      }
      console.log(
        `${name}: ${figure.name}: HTTP ${figure.status}, ${figure.ms.toFixed(0)} ms, CPU ${figure.cpuMs.toFixed(0)} ms, stall ${figure.stallMs.toFixed(0)} ms`,
      )
      figures.push(figure)
    }
    delay.disable()
    server.closeAllConnections()
    server.close()
    // An in-memory SQLite database goes with its connection, a file with its directory.
    if (run.dialect !== 'sqlite') await dropTables(knex)
    return figures
  } finally {
    await reader?.destroy()
    await knex.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const results: Array<[string, Figure[] | string]> = []
  const selected = selectedDialects('BENCH_DIALECTS')
  for (const run of RUNS) if (selected.includes(run.dialect)) results.push([run.section, await measure(run)])
  const lines = [
    '# Event-loop stall of the worst request shapes',
    '',
    `Written by \`npm run bench:stall\` (bench/stall.ts): ${os.cpus()[0]?.model ?? 'unknown CPU'}, ` +
      `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()}.`,
    `${ROWS} articles, ${ROWS} comments, ${AUTHORS} authors; the router at its defaults; one request at a time.`,
    '"stall" is the longest the event loop was blocked during the request (perf_hooks monitorEventLoopDelay, max);',
    '"CPU ms" is the CPU time the whole process spent during the request (process.cpuUsage): on a busy machine the',
    'stall grows with the time other processes take, the CPU time does not, so it is the figure to compare. It counts',
    "every thread of the process, the reader's included: with sqliteReader the work is the same, the stall is not.",
    '"max RSS" is the process peak so far (resourceUsage().maxRSS), so it only grows down the table.',
    '',
  ]
  // A run narrowed by BENCH_DIALECTS keeps the sections of the other databases from the previous file.
  const file = new URL('STALL.md', `file://${__dirname}/`)
  const previous = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split(/^(?=## )/m)
        .slice(1)
    : []
  for (const { section: name } of RUNS) {
    const result = results.find(([run]) => run === name)?.[1]
    if (result === undefined) {
      const kept = previous.find((section) => section.startsWith(`## ${name}\n`))
      if (kept) lines.push(kept.trimEnd(), '')
      continue
    }
    lines.push(`## ${name}`, '', `Measured ${new Date().toISOString()}.`, '')
    if (typeof result === 'string') {
      lines.push(`skipped: ${result}`, '')
      continue
    }
    lines.push('| request | status | time ms | CPU ms | stall ms | max RSS MiB |', '|---|---|---|---|---|---|')
    // Code spans: markdown would read the `*` of `fields=*.*.*` as emphasis.
    for (const f of result)
      lines.push(
        `| \`${f.name}\` | ${f.status} | ${f.ms.toFixed(0)} | ${f.cpuMs.toFixed(0)} | ${f.stallMs.toFixed(0)} | ${f.maxRssMiB.toFixed(0)} |`,
      )
    lines.push('')
  }
  writeFileSync(file, lines.join('\n'))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
