// Measures how long the worst request shapes block the event loop, per database, on a 200k-row dataset at the
// router's defaults, and the peak RSS of `limit=-1`; then 50 concurrent CSV exports of the whole table beside a
// health probe, and the memory of clients that never read their export. Writes the figures to bench/STALL.md.
// SQLite runs twice: on the host's connection (an in-memory database), and on a database file whose reads go to
// `sqliteReader` threads. Run by hand: `npm run bench:stall` (BENCH_DIALECTS=sqlite narrows it, BENCH_ROWS
// changes the size, BENCH_PART=shapes|exports runs one part, BENCH_LABEL names the export sections). Not part of CI.
import { AsyncLocalStorage } from 'node:async_hooks'
import { fork } from 'node:child_process'
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
import type { LoadCommand, LoadReport } from './export-load'

// A run name of its own, so the benchmark never drops the tables of a jest run on the same servers.
process.env.ITEMS_TEST_RUN ??= 'stall'

const ROWS = Number(process.env.BENCH_ROWS ?? 200_000)
const AUTHORS = 1000
const PART = process.env.BENCH_PART ?? 'all'
const LABEL = process.env.BENCH_LABEL ? ` (${process.env.BENCH_LABEL})` : ''
/** Concurrent exports beside the probe, and clients that never read. */
const EXPORTS = Number(process.env.BENCH_EXPORTS ?? 50)
const STALLED = Number(process.env.BENCH_STALLED ?? 150)
/** How long the exports run beside the probe before the clients drop those still running. */
const EXPORT_WINDOW_MS = Number(process.env.BENCH_EXPORT_MS ?? 20_000)
const EXPORT_PATH = '/api/items/articles?export=csv&limit=-1&fields=id,title,status,rating,published_at,author'
const PROBE_PATH = '/api/items/articles/1'
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

interface ExportFigure {
  readonly exports: number
  readonly statuses: Record<string, number>
  readonly probes: number
  readonly probeP50Ms: number
  readonly probeP99Ms: number
  readonly probeMaxMs: number
  readonly stallMs: number
  /** The seconds the exports ran (at most the window), and the MiB of CSV they sent meanwhile. */
  readonly exportS: number
  readonly exportMiB: number
  readonly stalled: number
  readonly stalledStatuses: Record<string, number>
  /** RSS and JS memory (heap, external, array buffers) the stalled clients added, after a full collection. */
  readonly stalledRssMiB: number
  readonly stalledJsMiB: number
  /** The probes' time inside the server, part by part; the rest of probeP50Ms is outside it (see exportLines). */
  readonly probeParts: ProbeBreakdown
  /** The share of the exports' time the event loop was busy (performance.eventLoopUtilization). */
  readonly busy: number
  /** The event loop's delay (monitorEventLoopDelay) during the exports, p50 and p99, in ms. */
  readonly delayMs: readonly [number, number]
  /** The machine's load average (1 min) before and after the exports. */
  readonly load: readonly [number, number]
}

/**
 * Where a probe's time went inside the server, as performance.now() marks: its arrival at the app (once the
 * event loop read it), its first pooled connection asked for and lent (tarn's `acquireRequest`, `acquireSuccess`),
 * its first statement answered (knex's `query-response`), and the response finished.
 */
interface ProbeMarks {
  readonly arrived: number
  asked?: number
  sent?: number
  /** The first bytes read from its connection (pg's socket) after it was lent. */
  read?: number
  answered?: number
  finished?: number
}

/** The probe's marks through its asynchronous work. */
const probeMarks = new AsyncLocalStorage<ProbeMarks>()

/** The marks of the probes served since the list was last emptied. */
const probesServed: ProbeMarks[] = []

/** Marks the probes of `app`'s requests on `knex` (see ProbeMarks); mounted before the router. */
function markProbes(app: express.Express, knex: Knex): void {
  const mark = (key: 'answered') => (): void => {
    const marks = probeMarks.getStore()
    if (marks && marks[key] === undefined) marks[key] = performance.now()
  }
  // tarn's events (knex's pool): a request for a connection fires in the asking code's context, its success in
  // whichever code gave a connection back, so the two meet by the acquisition's id.
  const pool = (knex.client as { pool: { on(event: string, listener: (id: number, connection?: object) => void): void } }).pool
  const asking = new Map<number, ProbeMarks>()
  pool.on('acquireRequest', (id) => {
    const marks = probeMarks.getStore()
    if (marks === undefined || marks.asked !== undefined) return
    marks.asked = performance.now()
    asking.set(id, marks)
  })
  pool.on('acquireSuccess', (id, connection) => {
    const marks = asking.get(id)
    asking.delete(id)
    if (!marks) return
    marks.sent = performance.now()
    const stream = (connection as { connection?: { stream?: NodeJS.EventEmitter } }).connection?.stream
    stream?.once('data', () => (marks.read = performance.now()))
  })
  knex.on('query-response', mark('answered'))
  app.use((req, res, next) => {
    if (req.originalUrl !== PROBE_PATH) return next()
    const marks: ProbeMarks = { arrived: performance.now() }
    probesServed.push(marks)
    res.on('finish', () => (marks.finished = performance.now()))
    probeMarks.run(marks, next)
  })
}

/** The server's part of the probes' time, split at their marks: median and p99 of each part, in ms. */
interface ProbeBreakdown {
  /** From arrival to the statement asked for: routing, parsing, planning (and event-loop turns between). */
  readonly beforeMs: readonly [number, number]
  /** Waiting for a pooled connection. */
  readonly poolMs: readonly [number, number]
  /** The statement on the server, and the event loop reading its answer. */
  readonly statementMs: readonly [number, number]
  /** From the connection lent to the first bytes read from it (PostgreSQL). */
  readonly firstReadMs: readonly [number, number]
  /** From the answer to the response finished. */
  readonly afterMs: readonly [number, number]
  /** Arrival to finish. */
  readonly serverMs: readonly [number, number]
}

function breakdown(served: readonly ProbeMarks[]): ProbeBreakdown {
  const complete = served.filter(
    (m) => m.asked !== undefined && m.sent !== undefined && m.answered !== undefined && m.finished !== undefined,
  )
  const part = (from: (m: ProbeMarks) => number, to: (m: ProbeMarks) => number): readonly [number, number] => {
    const sorted = complete.map((m) => to(m) - from(m)).sort((a, b) => a - b)
    return [percentile(sorted, 0.5), percentile(sorted, 0.99)]
  }
  return {
    beforeMs: part(
      (m) => m.arrived,
      (m) => m.asked!,
    ),
    poolMs: part(
      (m) => m.asked!,
      (m) => m.sent!,
    ),
    firstReadMs: part(
      (m) => m.sent!,
      (m) => m.read ?? m.answered!,
    ),
    statementMs: part(
      (m) => m.sent!,
      (m) => m.answered!,
    ),
    afterMs: part(
      (m) => m.answered!,
      (m) => m.finished!,
    ),
    serverMs: part(
      (m) => m.arrived,
      (m) => m.finished!,
    ),
  }
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
const jsMemory = (): number => {
  const { heapUsed, external } = process.memoryUsage()
  return heapUsed + external
}
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The export scenarios, their clients in a child process (bench/export-load.ts) so that they load the server only. */
async function measureExports(base: string, name: string): Promise<ExportFigure> {
  const child = fork(join(__dirname, 'export-load.ts'), [], { execArgv: ['-r', 'ts-node/register/transpile-only'] })
  const ask = (command: LoadCommand): Promise<LoadReport> =>
    new Promise((resolve, reject) => {
      const exited = (): void => reject(new Error('the load process exited'))
      child.once('exit', exited)
      child.once('message', (report: LoadReport) => {
        child.off('exit', exited)
        resolve(report)
      })
      child.send(command)
    })
  try {
    const delay = monitorEventLoopDelay({ resolution: 5 })
    global.gc?.()
    delay.enable()
    const loadBefore = os.loadavg()[0]!
    const busyBefore = performance.eventLoopUtilization()
    probesServed.length = 0
    const started = performance.now()
    const load = await ask({
      kind: 'exports',
      base,
      exportPath: EXPORT_PATH,
      probePath: PROBE_PATH,
      exports: EXPORTS,
      probeEveryMs: 10,
      windowMs: EXPORT_WINDOW_MS,
    })
    const exportedIn = performance.now() - started
    delay.disable()
    const probeParts = breakdown(probesServed)
    const busy = performance.eventLoopUtilization(busyBefore).utilization
    const delayMs = [delay.percentile(50) / 1e6, delay.percentile(99) / 1e6] as const
    const loadAfter = os.loadavg()[0]!
    if (load.kind !== 'exports') throw new Error('unexpected answer from the load process')
    console.log(`${name}: ${EXPORTS} exports in ${((performance.now() - started) / 1000).toFixed(1)} s, ${JSON.stringify(load.statuses)}`)
    const probes = [...load.probeMs].sort((a, b) => a - b)
    global.gc?.()
    await sleep(500)
    global.gc?.()
    const rss = process.memoryUsage().rss
    const js = jsMemory()
    const stall = await ask({ kind: 'stall', base, exportPath: EXPORT_PATH, clients: STALLED })
    if (stall.kind !== 'stalled') throw new Error('unexpected answer from the load process')
    // Time for every export to fill the socket buffers and reach the point where it waits.
    await sleep(3000)
    global.gc?.()
    const stalledRssMiB = (process.memoryUsage().rss - rss) / 2 ** 20
    const stalledJsMiB = (jsMemory() - js) / 2 ** 20
    await ask({ kind: 'release' })
    await sleep(1000)
    const figure: ExportFigure = {
      exports: EXPORTS,
      statuses: load.statuses,
      probes: probes.length,
      probeP50Ms: percentile(probes, 0.5),
      probeP99Ms: percentile(probes, 0.99),
      probeMaxMs: probes.at(-1) ?? 0,
      stallMs: delay.max / 1e6,
      exportS: exportedIn / 1000,
      exportMiB: load.bytes / 2 ** 20,
      stalled: STALLED,
      stalledStatuses: stall.statuses,
      stalledRssMiB,
      stalledJsMiB,
      probeParts,
      busy,
      delayMs,
      load: [loadBefore, loadAfter],
    }
    console.log(`${name}: ${JSON.stringify(figure)}`)
    return figure
  } finally {
    child.kill()
  }
}

async function fill(knex: Knex, dialect: DialectName): Promise<void> {
  await dropTables(knex)
  await createTables(knex)
  // The probe reads an article with its comments' and topics' keys: without an index on their foreign keys
  // (MySQL makes one for each, PostgreSQL and SQLite do not), each probe scans both tables, which then costs
  // the probe more than any export does. A host indexes them, as docs/guide/exports-and-cursors.md says.
  if (dialect !== 'mysql') {
    await knex.schema.alterTable('comments', (table) => table.index('article'))
    await knex.schema.alterTable('article_topics', (table) => table.index('article'))
  }
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

/** A run's figures: the request shapes one at a time, then the export scenarios (each null when not run). */
interface RunFigures {
  readonly shapes: Figure[] | null
  readonly exports: ExportFigure | null
}

async function measureShapes(base: string, name: string): Promise<Figure[]> {
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
  return figures
}

async function measure(run: Run): Promise<RunFigures | string> {
  const name = run.section
  const unreachable = await probe(run.dialect)
  if (unreachable) return unreachable
  await ensureDatabase(run.dialect)
  const dir = mkdtempSync(join(os.tmpdir(), 'items-stall-'))
  const knex = await openRun(run, dir)
  const reader = run.reader ? sqliteReader(knex) : null
  try {
    const started = performance.now()
    await fill(knex, run.dialect)
    console.log(`${name}: ${ROWS} articles and comments in ${((performance.now() - started) / 1000).toFixed(0)} s`)
    const app = express()
    // Room for every client of the export scenarios: past maxConcurrentExports they would be answered 503.
    const exportsRoom = { maxConcurrentExports: Math.max(EXPORTS, STALLED) }
    const options = { knex, defaultAccess: true, collections, ...exportsRoom, ...(reader ? { replica: { knex: reader } } : {}) }
    markProbes(app, knex)
    app.use('/api', createItemsRouter(options))
    // The reader's first thread starts with the first read: started here, it is not measured as a stall.
    if (reader) await reader.raw('select 1')
    const server = app.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const shapes = PART === 'exports' ? null : await measureShapes(base, name)
    const exports = PART === 'shapes' ? null : await measureExports(base, name)
    server.closeAllConnections()
    server.close()
    // An in-memory SQLite database goes with its connection, a file with its directory.
    if (run.dialect !== 'sqlite') await dropTables(knex)
    return { shapes, exports }
  } finally {
    await reader?.destroy()
    await knex.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
}

const statusText = (statuses: Record<string, number>): string =>
  Object.entries(statuses)
    .map(([status, times]) => `${times}× ${status}`)
    .join(', ')

function shapeLines(figures: readonly Figure[]): string[] {
  const lines = ['| request | status | time ms | CPU ms | stall ms | max RSS MiB |', '|---|---|---|---|---|---|']
  // Code spans: markdown would read the `*` of `fields=*.*.*` as emphasis.
  for (const f of figures)
    lines.push(
      `| \`${f.name}\` | ${f.status} | ${f.ms.toFixed(0)} | ${f.cpuMs.toFixed(0)} | ${f.stallMs.toFixed(0)} | ${f.maxRssMiB.toFixed(0)} |`,
    )
  return lines
}

function exportLines(f: ExportFigure): string[] {
  return [
    `${f.exports} concurrent \`GET ${EXPORT_PATH}\` read as they come for at most ${EXPORT_WINDOW_MS / 1000} s ` +
      `(${statusText(f.statuses)}; ${f.exportMiB.toFixed(0)} MiB of CSV in ${f.exportS.toFixed(1)} s), beside a probe \`GET ${PROBE_PATH}\` every 10 ms (${f.probes} probes). Then ` +
      `${f.stalled} clients that read their export's first bytes and nothing more (${statusText(f.stalledStatuses)}).`,
    '',
    '| probe p50 ms | probe p99 ms | probe max ms | max event-loop delay ms | stalled clients: RSS added MiB | JS memory added MiB | JS memory per client KiB |',
    '|---|---|---|---|---|---|---|',
    `| ${f.probeP50Ms.toFixed(1)} | ${f.probeP99Ms.toFixed(1)} | ${f.probeMaxMs.toFixed(1)} | ${f.stallMs.toFixed(0)} | ` +
      `${f.stalledRssMiB.toFixed(0)} | ${f.stalledJsMiB.toFixed(1)} | ${((f.stalledJsMiB * 1024) / f.stalled).toFixed(0)} |`,
    '',
    `The probes' time inside the server, p50 / p99 ms (event loop busy ${(f.busy * 100).toFixed(0)}% of the time, its delay ` +
      `${f.delayMs.map((ms) => ms.toFixed(1)).join(' / ')} ms p50 / p99; load average ` +
      `${f.load.map((l) => l.toFixed(1)).join(' before, ')} after): ` +
      'the rest of the probe time is spent before the server reads the request (its event loop busy, or the client or',
    'the network slow).',
    '',
    '| in the server | before the statement | waiting for a connection | statement and its answer read | after the answer |',
    '|---|---|---|---|---|',
    `| ${[f.probeParts.serverMs, f.probeParts.beforeMs, f.probeParts.poolMs, f.probeParts.statementMs, f.probeParts.afterMs]
      .map(([p50, p99]) => `${p50.toFixed(1)} / ${p99.toFixed(1)}`)
      .join(' | ')} |`,
  ]
}

async function main(): Promise<void> {
  const written = new Map<string, string[]>()
  const selected = selectedDialects('BENCH_DIALECTS')
  const measured = new Date().toISOString()
  for (const run of RUNS) {
    if (!selected.includes(run.dialect)) continue
    const result = await measure(run)
    if (typeof result === 'string') {
      written.set(run.section, [`skipped: ${result}`])
      continue
    }
    if (result.shapes) written.set(run.section, [`Measured ${measured}.`, '', ...shapeLines(result.shapes)])
    if (result.exports)
      written.set(`${run.section}: ${EXPORTS} concurrent exports${LABEL}`, [`Measured ${measured}.`, '', ...exportLines(result.exports)])
  }
  const lines = [
    '# Event-loop stall of the worst request shapes',
    '',
    `Written by \`npm run bench:stall\` (bench/stall.ts): ${os.cpus()[0]?.model ?? 'unknown CPU'}, ` +
      `${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.platform()}.`,
    `${ROWS} articles, ${ROWS} comments, ${AUTHORS} authors; the router at its defaults (but maxConcurrentExports, ` +
      'raised for the export scenarios); one request at a time.',
    '"stall" is the longest the event loop was blocked during the request (perf_hooks monitorEventLoopDelay, max);',
    '"CPU ms" is the CPU time the whole process spent during the request (process.cpuUsage): on a busy machine the',
    'stall grows with the time other processes take, the CPU time does not, so it is the figure to compare. It counts',
    "every thread of the process, the reader's included: with sqliteReader the work is the same, the stall is not.",
    '"max RSS" is the process peak so far (resourceUsage().maxRSS), so it only grows down the table.',
    '',
    'The sections "concurrent exports" load the server from a child process (bench/export-load.ts), so that reading',
    'the downloads does not run on its event loop; the probe\'s latency is measured by that child. "Stalled clients"',
    "open an export, read its first bytes and then nothing; their memory is the server's after a full collection,",
    'less what it was before they came. RSS moves with what the allocator keeps from earlier work (it can even',
    'fall); the JS memory (heap and external, after a full collection) is the figure to read.',
    '',
  ]
  // A narrowed run (BENCH_DIALECTS, BENCH_PART, BENCH_LABEL) keeps the other sections of the previous file.
  const file = new URL('STALL.md', `file://${__dirname}/`)
  const previous = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split(/^(?=## )/m)
        .slice(1)
        .map((section): [string, string] => [section.slice(3, section.indexOf('\n')), section.trimEnd()])
    : []
  const sections = new Map<string, string>(previous)
  for (const [name, body] of written) sections.set(name, [`## ${name}`, '', ...body].join('\n'))
  for (const section of sections.values()) lines.push(section, '')
  writeFileSync(file, lines.join('\n'))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
