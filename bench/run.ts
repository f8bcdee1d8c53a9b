// Benchmarks the router against the ceiling: for each request, a hand-written Express + knex handler answering the
// same JSON (bench/hand-written.ts), in the same process and run, on each reachable database; and against the peer
// a developer would pick instead, Feathers 5 over `@feathersjs/knex` (bench/feathers.ts), on the requests it serves. The load comes from
// a child process (bench/load.ts), so that this process's CPU time is the server's alone; router and hand-written
// runs alternate, round after round, so that a neighbour's load on the shared machine falls on both alike.
// Each request is first sent untimed to both sides, so that the rounds time code the JIT has finished with.
// Prints the table and writes it to bench/RESULTS.md. `npm run bench`; BENCH_DIALECTS=sqlite narrows it,
// BENCH_MS (per run), BENCH_ROUNDS, BENCH_SETTLE_MS and BENCH_CONCURRENCY tune it, BENCH_ONLY narrows the requests, BENCH_PREPARED sets preparedStatements, BENCH_WRITE=0 leaves the
// results file alone.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import os from 'node:os'
import path from 'node:path'
import { PerformanceObserver } from 'node:perf_hooks'
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { DialectName } from '../lib/dialects'
import { openFixtures, probe } from '../spec/support/databases'
import { collections } from '../fixtures/schema'
import { dropTables } from '../fixtures/tables'
import { createItemsRouter } from '../lib'
import { handWritten } from './hand-written'
import { cpuPerRequest as fixedCpuPerRequest, fixedCost, measure, mountFloor, ONE_ITEM, type SideCost } from './fixed-cost'
import { createScratchTable, scratchCollection, seedScratch, SCRATCH_TABLE, startFeathers } from './feathers'
import type { Knex } from 'knex'
import { isServerProbe } from '../spec/support/server-probes'
import type { LoadOrder } from './load'
import { eachDialect, loadAverage, type LoadGenerator } from './load-generator'

// The specs' databases and connection settings (PG_URL, MYSQL_URL), under a run name of their own so that a
// benchmark never drops the tables of a jest run on the same servers.
process.env.ITEMS_TEST_RUN ??= 'bench'

/**
 * Many short rounds rather than a few long ones, for the same time per side: the shared machine's speed drifts
 * (in one run of 750 ms rounds, the hand-written one-item read cost 0.44–0.61 ms of CPU a request, and two rounds
 * back to back mostly alike), and rounds that alternate faster than it drifts put it on both sides alike. In six
 * focused runs each on SQLite, 40 rounds of 190 ms read the list at 1.03–1.12 (10 rounds of 750 ms: 0.99–1.21)
 * and the one item at 1.02–1.12 (0.97–1.12).
 */
const RUN_MS = Number(process.env.BENCH_MS ?? 190)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10)
/** Untimed load per side and request before the heap's baseline. */
const WARM_MS = 300
/**
 * Untimed load per side right before a request's rounds (BENCH_SETTLE_MS), so that they time code the JIT has
 * optimised: the warming before the heap's baseline covers reads only (see below), and a write's first requests
 * cost far more. Alone in a process under this load, the router's CPU per MySQL update was 2.5 ms from the 2nd to
 * the 5th second, 1.5 ms to the 8th and 1.0–1.1 ms after; the hand-written handler's 1.9, 1.2, then 0.9–1.0 ms.
 */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1500)

const batch = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ title: `Batch ${i}`, status: 'draft', rating: i % 5 })))

/** An author with 100 articles, each linked to 2 topics through the junction: 301 rows in one nested create. */
const nested = JSON.stringify({
  name: 'Nested author',
  articles: Array.from({ length: 100 }, (_, i) => ({ title: `Nested ${i}`, topics: [{ topic: 1 + (i % 4) }, { topic: 5 + (i % 4) }] })),
})

/** What the router is measured against: the hand-written handlers, or Feathers. */
type Peer = 'hand' | 'Feathers'

interface Pair {
  readonly name: string
  readonly method: string
  /** The hand-written handlers unless given. */
  readonly peer?: Peer
  /** The router's URL and the peer's, below the mount points. */
  readonly router: string
  readonly hand: string
  readonly body?: string
  /** The least ratio (hand-written CPU per request ÷ router's) issue 13 asks for. */
  readonly goal: number
  readonly concurrency?: number
  /**
   * How the two answers must agree: the same JSON, the same without keys the database assigns, the same length, or
   * (a remove) both answered and the rows are gone. A peer that answers bare JSON is compared with the router's
   * `data`.
   */
  readonly compare: 'equal' | 'without ids' | 'length' | 'deleted'
}

/** Feathers' `$select` of the given columns, as a query string. */
const select = (...columns: string[]): string => columns.map((column) => `$select[]=${column}`).join('&')

const ALL_PAIRS: readonly Pair[] = [
  {
    name: 'list 25, filter + sort + author.name',
    method: 'GET',
    router: '/items/articles?filter[status][_eq]=published&sort=-rating&limit=25&fields=id,title,rating,author.name',
    hand: '/list',
    goal: 1,
    compare: 'equal',
  },
  {
    // The list again, with a parameter both sides ignore and whose value is new to every request (bench/load.ts):
    // no request finds its query already parsed, as in traffic whose values vary.
    name: 'list 25, a new URL each request',
    method: 'GET',
    router: '/items/articles?filter[status][_eq]=published&sort=-rating&limit=25&fields=id,title,rating,author.name&unused={n}',
    hand: '/list?unused={n}',
    goal: 1,
    compare: 'equal',
  },
  { name: 'one item with o2m keys', method: 'GET', router: '/items/articles/1', hand: '/articles/1', goal: 1, compare: 'equal' },
  {
    name: 'relational page, 100 rows',
    method: 'GET',
    router: '/items/articles?limit=100&fields=*,author.*,comments.*',
    hand: '/relational',
    goal: 0.85,
    compare: 'equal',
  },
  {
    name: 'aggregate, groupBy author',
    method: 'GET',
    router: '/items/articles?groupBy=author&aggregate[count]=*',
    hand: '/aggregate',
    goal: 0.85,
    compare: 'equal',
  },
  // Against Feathers, the shapes it serves, its reads before any write grows the tables (the creates below add
  // thousands of published articles). Its list has no tie-break of its own and sorts nulls as each database does,
  // so both sides sort by the key after the rating and leave out the unrated.
  {
    name: 'list 25, filter + sort + select',
    peer: 'Feathers',
    method: 'GET',
    router: '/items/articles?filter[status][_eq]=published&filter[rating][_gte]=1&sort=-rating,id&limit=25&fields=id,title,rating',
    hand: `/articles?status=published&rating[$gte]=1&$sort[rating]=-1&$sort[id]=1&$limit=25&${select('id', 'title', 'rating')}`,
    goal: 1,
    compare: 'equal',
  },
  {
    name: 'one item by key, six columns',
    peer: 'Feathers',
    method: 'GET',
    router: '/items/articles/1?fields=id,title,status,rating,author,parent',
    hand: `/articles/1?${select('id', 'title', 'status', 'rating', 'author', 'parent')}`,
    goal: 1.1,
    compare: 'equal',
  },
  {
    name: 'create one',
    method: 'POST',
    router: '/items/articles?fields=id,title,status,rating',
    hand: '/articles',
    body: JSON.stringify({ title: 'Benchmarked', status: 'published', rating: 3 }),
    goal: 0.85,
    compare: 'without ids',
  },
  {
    name: 'update one',
    method: 'PATCH',
    router: '/items/articles/42?fields=id,title,rating',
    hand: '/articles/42',
    body: JSON.stringify({ rating: 4 }),
    goal: 0.85,
    compare: 'equal',
  },
  {
    name: 'batch create 1,000 (vs batchInsert)',
    method: 'POST',
    router: '/items/articles?fields=id',
    hand: '/batch',
    body: batch,
    goal: 0.5,
    concurrency: 2,
    compare: 'length',
  },
  {
    name: 'nested create: 100 articles, 2 topics each (vs a knex transaction)',
    method: 'POST',
    router: '/items/authors?fields=id,name',
    hand: '/nested',
    body: nested,
    goal: 0.5,
    concurrency: 2,
    compare: 'without ids',
  },
  {
    name: 'create one',
    peer: 'Feathers',
    method: 'POST',
    router: '/items/articles?fields=id,title,status,rating',
    hand: `/articles?${select('id', 'title', 'status', 'rating')}`,
    body: JSON.stringify({ title: 'Benchmarked', status: 'published', rating: 3 }),
    goal: 1,
    compare: 'without ids',
  },
  {
    name: 'update one',
    peer: 'Feathers',
    method: 'PATCH',
    router: '/items/articles/42?fields=id,title,rating',
    hand: `/articles/42?${select('id', 'title', 'rating')}`,
    body: JSON.stringify({ rating: 4 }),
    goal: 1,
    compare: 'equal',
  },
  {
    // Each request removes a row of its own: `{n}` is new to each, and the rows are added before each run.
    name: 'delete one',
    peer: 'Feathers',
    method: 'DELETE',
    router: `/items/${SCRATCH_TABLE}/{n}`,
    hand: `/${SCRATCH_TABLE}/{n}`,
    goal: 1,
    compare: 'deleted',
  },
]

/** BENCH_ONLY=list,update narrows the run to the requests whose names hold one of the words. */
const only = process.env.BENCH_ONLY?.split(',').map((word) => word.trim())
const PAIRS = ALL_PAIRS.filter((pair) => !only || only.some((word) => pair.name.includes(word) || (pair.peer ?? 'hand') === word))

/** What one side did over every round of one request. */
interface Side {
  requests: number
  seconds: number
  cpuMs: number
  failed: number
  p50s: number[]
  /** CPU ms per request of each run, in round order. */
  cpuPerRun: number[]
}

interface Row {
  readonly pair: Pair
  readonly router: Side
  readonly hand: Side
  /** Bytes each side allocates per request (see allocatedPerRequest); null when every sample met a collection. */
  readonly allocated: { readonly router: number | null; readonly hand: number | null }
  /** SQL statements one request of each side sends (see checkSameAnswer). */
  readonly statements: Statements
}

interface Statements {
  readonly router: number
  readonly hand: number
}

const perSecond = (side: Side): number => side.requests / side.seconds
const cpuPerRequest = (side: Side): number => side.cpuMs / side.requests
/** Hand-written CPU per request over the router's: above 1, the router does the same request for less. */
const cpuRatio = (row: Pick<Row, 'router' | 'hand'>): number => cpuPerRequest(row.hand) / cpuPerRequest(row.router)
/** Each round's own CPU ratio, lowest and highest: how far a shared machine's other work moved them. */
function roundRatios(row: Pick<Row, 'router' | 'hand'>): string {
  const ratios = row.router.cpuPerRun.map((router, round) => row.hand.cpuPerRun[round]! / router)
  return `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`
}
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

async function answer(url: string, pair: Pair): Promise<unknown> {
  const headers: Record<string, string> = pair.body === undefined ? {} : { 'content-type': 'application/json' }
  const response = await fetch(url, { method: pair.method, headers, body: pair.body })
  const text = await response.text()
  if (!response.ok) throw new Error(`${pair.name}: ${url} answered ${response.status} ${text}`)
  return text === '' ? null : JSON.parse(text)
}

/** Keys no `{n}` of a run reaches: the rows the check of a remove removes. */
const CHECKED_REMOVES = { router: 1_900_000_001, hand: 1_900_000_002 }

function comparable(body: unknown, compare: Pair['compare'], enveloped: boolean): string {
  if (compare === 'deleted') return 'removed'
  const data = enveloped ? (body as { data: unknown }).data : body
  if (compare === 'length') return String((data as unknown[]).length)
  if (compare === 'equal') return JSON.stringify(data)
  return JSON.stringify(data, (key, value: unknown) => (key === 'id' ? undefined : value))
}

/** Both answers, compared before any timing: a faster handler that answers something else proves nothing. */
/**
 * Sends one request to each side, checks that they answer alike, and counts the SQL statements each sent (nothing
 * else runs meanwhile; the router's one question about the server, asked once, is left out).
 */
async function checkSameAnswer(urls: Urls, pair: Pair, knex: Knex): Promise<Statements> {
  const removes = pair.compare === 'deleted'
  if (removes) await seedScratch(knex, CHECKED_REMOVES.router, CHECKED_REMOVES.hand + 1)
  let statements = 0
  const listener = (query: { sql: string }): void => {
    if (!isServerProbe(query.sql)) statements += 1
  }
  knex.on('query', listener)
  try {
    const router = comparable(await answer(urls.router.replace('{n}', String(CHECKED_REMOVES.router)), pair), pair.compare, true)
    const routerStatements = statements
    statements = 0
    const handAnswer = await answer(urls.hand.replace('{n}', String(CHECKED_REMOVES.hand)), pair)
    const hand = comparable(handAnswer, pair.compare, pair.peer === undefined)
    if (router !== hand) throw new Error(`${pair.name}: the answers differ\nrouter: ${router.slice(0, 600)}\nhand:   ${hand.slice(0, 600)}`)
    const handStatements = statements
    if (removes && (await knex(SCRATCH_TABLE).whereIn('id', Object.values(CHECKED_REMOVES))).length > 0) {
      throw new Error(`${pair.name}: a removed row is still there`)
    }
    return { router: routerStatements, hand: handStatements }
  } finally {
    knex.off('query', listener)
  }
}

/** The router's URL of a request and its peer's, with the servers' bases. */
interface Urls {
  readonly router: string
  readonly hand: string
}

/** A bound on the requests one load run sends: the rows a run of removes must find. */
const MOST_PER_SECOND = 20_000

/**
 * Before a load run of removes, adds the rows its `{n}` can reach (outside the timing: a run's CPU time is taken
 * inside `timed`). Others need nothing.
 */
function preparer(knex: Knex, load: LoadGenerator): (pair: Pair, order: LoadOrder) => Promise<void> {
  let seededTo = 0
  return async (pair, order) => {
    if (pair.compare !== 'deleted') return
    const to = load.next + (order.requests ?? Math.ceil((order.ms / 1000) * MOST_PER_SECOND)) + 1
    await seedScratch(knex, Math.max(seededTo, load.next), to)
    seededTo = Math.max(seededTo, to)
  }
}
type Prepare = ReturnType<typeof preparer>

/** BENCH_PROFILE=dir: a CPU profile of each timed run (no start-up or seeding). */
const PROFILE_DIR = process.env.BENCH_PROFILE
const session = PROFILE_DIR === undefined ? null : new Session()
session?.connect()

function post(method: string, params?: object): Promise<unknown> {
  return new Promise((resolve, reject) => session!.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))
}

async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (session === null) return work()
  await post('Profiler.enable')
  // Every 100 µs rather than V8's 1 ms: a request costs about 1 ms, so the default could not tell its parts apart.
  await post('Profiler.setSamplingInterval', { interval: 100 })
  await post('Profiler.start')
  try {
    return await work()
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown }
    writeFileSync(path.join(PROFILE_DIR!, `${name.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile))
  }
}

async function timed(load: LoadGenerator, prepare: Prepare, url: string, pair: Pair, side: Side): Promise<void> {
  const order = { url, method: pair.method, body: pair.body, ms: RUN_MS, concurrency: pair.concurrency ?? CONCURRENCY }
  await prepare(pair, order)
  const cpu = process.cpuUsage()
  const report = await load.run(order)
  const used = process.cpuUsage(cpu)
  side.requests += report.requests
  side.seconds += report.seconds
  side.cpuMs += (used.user + used.system) / 1000
  side.failed += report.failed
  side.p50s.push(report.p50)
  side.cpuPerRun.push((used.user + used.system) / 1000 / report.requests)
}

const emptySide = (): Side => ({ requests: 0, seconds: 0, cpuMs: 0, failed: 0, p50s: [], cpuPerRun: [] })

/** Samples per side, and the requests each sends: fewer where ten allocate more than a collection lets grow. */
const ALLOCATION_SAMPLES = 9
const ALLOCATION_REQUESTS = [10, 1]

/** Garbage collections of this process so far. */
let collectionsRun = 0
new PerformanceObserver((list) => {
  collectionsRun += list.getEntries().length
}).observe({ entryTypes: ['gc'] })

/** The observer hears of a collection only after it ran (the forced one too): a pause lets it catch up. */
const settled = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10))

/**
 * The bytes of JavaScript heap this process allocates per request, client excluded: the heap's growth over a few
 * requests sent one at a time after a full collection, from samples that no collection interrupted (the median).
 * Unlike CPU time, it hardly moves with the machine's load: a check of "allocates no more than its answer needs"
 * that a shared machine cannot blur. Null when every sample met a collection.
 */
async function allocatedPerRequest(load: LoadGenerator, prepare: Prepare, url: string, pair: Pair): Promise<number | null> {
  for (const requests of ALLOCATION_REQUESTS) {
    const samples: number[] = []
    for (let sample = 0; sample < ALLOCATION_SAMPLES; sample++) {
      const order = { url, method: pair.method, body: pair.body, ms: 0, concurrency: 1, requests }
      await prepare(pair, order)
      global.gc?.()
      await settled()
      const before = { heap: process.memoryUsage().heapUsed, collections: collectionsRun }
      await load.run(order)
      const heap = process.memoryUsage().heapUsed
      await settled()
      if (collectionsRun === before.collections) samples.push((heap - before.heap) / requests)
    }
    if (samples.length > 0) return median(samples)
  }
  return null
}

const kib = (bytes: number | null): string => (bytes === null ? '—' : (bytes / 1024).toFixed(1))

/** The fixed-cost row runs unless BENCH_ONLY leaves it out (BENCH_ONLY=fixed runs it alone). */
const FIXED_COST = !only || only.includes('fixed')
const FIXED_GOAL = 2

/**
 * The fixed cost of a request (bench/fixed-cost.ts): a one-item read's CPU time less its driver's, against Express
 * answering the same bytes from memory, in profiled rounds that alternate. Mounted after the pairs' runs, on the
 * same app, so that the floor's route is the app's last.
 */
async function measureFixedCost(app: express.Express, base: string, load: LoadGenerator): Promise<{ router: SideCost; floor: SideCost }> {
  await mountFloor(app, `${base}/api${ONE_ITEM}`)
  return measure(load, { router: `${base}/api${ONE_ITEM}`, floor: `${base}/floor` }, { rounds: ROUNDS / 2, ms: RUN_MS * 2 })
}

function fixedCostRow({ router, floor }: { router: SideCost; floor: SideCost }): string[] {
  const ratio = fixedCost(router) / fixedCpuPerRequest(floor)
  const us = (ms: number): string => (ms * 1000).toFixed(0)
  return [
    `Fixed cost of a request (\`GET ${ONE_ITEM}\`, its SQL driver's time left out; see bench/FIXED-COST.md):`,
    '',
    '| row | router CPU µs/req | SQL (driver) µs/req | fixed cost µs/req | Express floor µs/req | fixed cost ÷ floor | goal |',
    '|---|---:|---:|---:|---:|---:|---:|',
    `| fixed cost | ${us(fixedCpuPerRequest(router))} | ${us(fixedCpuPerRequest(router) - fixedCost(router))} | ${us(fixedCost(router))} | ${us(fixedCpuPerRequest(floor))} | ${ratio.toFixed(2)}${ratio <= FIXED_GOAL ? '' : ' ✗'} | ≤ ${FIXED_GOAL} |`,
    '',
  ]
}

async function benchDialect(name: DialectName, load: LoadGenerator): Promise<string[]> {
  const unreachable = await probe(name)
  if (unreachable) {
    console.log(`\n${name}: skipped (${unreachable})`)
    return [`### ${name}`, '', `skipped: ${unreachable}`, '']
  }
  const knex = await openFixtures(name)
  await createScratchTable(knex)
  const app = express()
  // BENCH_PREPARED=0 / 1 sets the router's preparedStatements; unset, each dialect's default.
  const prepared = process.env.BENCH_PREPARED
  app.use(
    '/api',
    createItemsRouter({
      knex,
      defaultAccess: true,
      collections: { ...collections, [SCRATCH_TABLE]: scratchCollection },
      ...(prepared === undefined ? {} : { preparedStatements: prepared === '1' }),
    }),
  )
  app.use('/hand', handWritten(knex, name))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const peer = await startFeathers(knex)
  const urlsOf = (pair: Pair): Urls => ({
    router: `${base}/api${pair.router}`,
    hand: pair.peer === 'Feathers' ? `${peer.base}${pair.hand}` : `${base}/hand${pair.hand}`,
  })
  const prepare = preparer(knex, load)

  const rows: Row[] = []
  const statements = new Map<Pair, Statements>()
  // Warm both sides before the heap's baseline: JIT, the router's caches, and the pool, which opens as many
  // connections as the timed runs' concurrency needs only under that concurrency (each a driver's buffers and
  // caches: on MySQL about 7 MiB for the pool, whatever the number of rounds). Reads only: warming the writes
  // under load would grow the tables that the reads are then timed on.
  for (const pair of PAIRS) {
    statements.set(pair, await checkSameAnswer(urlsOf(pair), pair, knex))
    if (pair.method !== 'GET') continue
    for (const url of Object.values(urlsOf(pair))) {
      await load.run({ url, method: pair.method, ms: WARM_MS, concurrency: pair.concurrency ?? CONCURRENCY })
    }
  }
  global.gc?.()
  const heapBefore = process.memoryUsage().heapUsed
  for (const pair of PAIRS) {
    const timedRow = { pair, router: emptySide(), hand: emptySide() }
    // Here rather than before the baseline for the writes too: by now the reads are timed, so the rows a create
    // adds no longer matter.
    const urls = urlsOf(pair)
    for (const url of [urls.router, urls.hand]) {
      const order = { url, method: pair.method, body: pair.body, ms: SETTLE_MS, concurrency: pair.concurrency ?? CONCURRENCY }
      await prepare(pair, order)
      await load.run(order)
    }
    for (let round = 0; round < ROUNDS; round += 1) {
      const sides: Array<[string, Side]> = [
        [urls.router, timedRow.router],
        [urls.hand, timedRow.hand],
      ]
      if (round % 2 === 1) sides.reverse()
      for (const [url, side] of sides) {
        const which = side === timedRow.router ? 'router' : 'hand'
        await profiled(`${name}-${pair.name}-${round}-${which}`, () => timed(load, prepare, url, pair, side))
      }
    }
    // Right after the timed runs, on the tables they ran on: the writes that follow grow them (the batch by
    // thousands of rows), and sampled after the batch runs, MySQL's list allocated twice as much on both sides.
    const allocated = {
      router: await allocatedPerRequest(load, prepare, urls.router, pair),
      hand: await allocatedPerRequest(load, prepare, urls.hand, pair),
    }
    rows.push({ ...timedRow, allocated, statements: statements.get(pair)! })
    console.log(
      `${name.padEnd(9)} ${(pair.peer ?? 'hand').padEnd(8)} ${pair.name.padEnd(40)} ${cpuRatio(timedRow).toFixed(2)} (rounds ${roundRatios(timedRow)})`,
    )
  }
  const fixed = FIXED_COST ? await measureFixedCost(app, base, load) : null
  // The allocation samples' garbage is gone after a full collection; they keep nothing the timed runs did not.
  global.gc?.()
  const heapAfter = process.memoryUsage().heapUsed
  server.close()
  peer.close()
  // An in-memory SQLite database goes with its connection. Dropping it table by table would check every deleted
  // article against the comments referencing it (foreign_keys is on, no index on the key): after the batch runs
  // added their rows, minutes of synchronous work.
  if (name !== 'sqlite') await dropTables(knex)
  await knex.destroy()

  const table = (peer: Peer): string[] => {
    const label = peer === 'hand' ? 'hand' : peer
    const ofPeer = rows.filter((row) => (row.pair.peer ?? 'hand') === peer)
    if (ofPeer.length === 0) return []
    return [
      ...(peer === 'hand' ? [] : [`Against ${peer} (ratios: ${peer}'s CPU per request over the router's):`, '']),
      `| request | router req/s | ${label} req/s | router CPU ms/req | ${label} CPU ms/req | ratio (CPU) | rounds (CPU) | ratio (req/s) | goal | router p50 ms | ${label} p50 ms | router KiB/req | ${label} KiB/req | router statements | ${label} statements |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...ofPeer.map((row) => {
        const ratio = cpuRatio(row)
        const failed = row.router.failed + row.hand.failed
        const cells = [
          `${row.pair.name}${failed > 0 ? ` (${failed} failed)` : ''}`,
          perSecond(row.router).toFixed(0),
          perSecond(row.hand).toFixed(0),
          cpuPerRequest(row.router).toFixed(3),
          cpuPerRequest(row.hand).toFixed(3),
          `${ratio.toFixed(2)}${ratio >= row.pair.goal ? '' : ' ✗'}`,
          roundRatios(row),
          (perSecond(row.router) / perSecond(row.hand)).toFixed(2),
          `≥ ${row.pair.goal}`,
          median(row.router.p50s).toFixed(2),
          median(row.hand.p50s).toFixed(2),
          kib(row.allocated.router),
          kib(row.allocated.hand),
          String(row.statements.router),
          String(row.statements.hand),
        ]
        return `| ${cells.join(' | ')} |`
      }),
      '',
    ]
  }
  const lines = [
    `### ${name}`,
    '',
    ...table('hand'),
    ...table('Feathers'),
    ...(fixed === null ? [] : fixedCostRow(fixed)),
    `Heap after a full collection: ${(heapBefore / 2 ** 20).toFixed(1)} MiB before the timed runs, ${(heapAfter / 2 ** 20).toFixed(1)} MiB after (${(((heapAfter - heapBefore) / heapBefore) * 100).toFixed(1)} %).`,
    '',
  ]
  console.log(lines.join('\n'))
  return lines
}

async function main(): Promise<void> {
  const sections = await eachDialect(benchDialect)
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  const report = [
    '# Benchmark: the router against hand-written handlers',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${os.cpus().length} × ${cpu}, ` +
      `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.type()} ${os.release()}. ` +
      `${ROUNDS} interleaved rounds of ${RUN_MS} ms per side after ${SETTLE_MS} ms untimed, ${CONCURRENCY} concurrent clients (the batch: 2), ` +
      `load from a child process. Load average when written: ${loadAverage()} (on a shared machine, ratios move by ±0.1 from run to run).`,
    '',
    "Ratio (CPU): the hand-written handler's CPU time per request over the router's, in the server process (the load " +
      'generator runs in another); above 1 the router answers the same request for less. Ratio (req/s): throughput ' +
      "over throughput in the same rounds, which on PostgreSQL and MySQL also holds the database server's time and, " +
      "on a shared machine, other processes' load. ✗ marks a ratio below the goal. Rounds (CPU): the " +
      "lowest and highest ratio of one round's two runs, which shows how far the machine's other work moved them. " +
      'Both answers are checked equal before timing (writes: without the keys the database assigns; the batch: ' +
      'the number of items). KiB/req: ' +
      'JavaScript heap the server process allocates per request, client excluded (median of samples of ten ' +
      'requests, or of one for a request that allocates more, sent one at a time after a full collection and ' +
      "interrupted by no other), which moves little with the machine's load.",
    '',
    ...sections,
  ].join('\n')
  if (process.env.BENCH_WRITE !== '0') writeFileSync(path.join(__dirname, 'RESULTS.md'), report)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
