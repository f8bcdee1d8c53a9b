// The fixed cost of a request: what the router spends on a one-item read besides its SQL, stage by stage, against
// Express's own floor (an Express handler answering the same bytes, headers included, from memory). The server is
// this process; the load comes from bench/load.ts in a child, so that the CPU time and the V8 CPU profile taken
// here hold the server's work only. Router and floor alternate round after round, each round profiled; a sample
// goes to the stage of the first frame, from the leaf up, whose file names one (STAGES), and each stage's share of
// the samples is its share of the CPU time per request.
//
// `npm run bench:fixed-cost` writes bench/FIXED-COST.md (BENCH_WRITE=0 leaves it); BENCH_DIALECTS narrows it,
// BENCH_FIXED_ROUNDS and BENCH_FIXED_MS tune it, BENCH_PROFILE=dir keeps each round's .cpuprofile. `npm run bench`
// reports the same measure as its own row (`fixedCost`).
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import os from 'node:os'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import type { DialectName } from '../lib/dialects'
import { createItemsRouter } from '../lib'
import { collections } from '../fixtures/schema'
import { dropTables } from '../fixtures/tables'
import { openFixtures, probe } from '../spec/support/databases'
import { eachDialect, loadAverage, type LoadGenerator } from './load-generator'

process.env.ITEMS_TEST_RUN ??= 'bench-fixed'

/** The one-item read the fixed cost is measured on: one statement, six columns, the Feathers row's request. */
export const ONE_ITEM = '/items/articles/1?fields=id,title,status,rating,author,parent'

/**
 * A sample is the driver's when any frame of its stack is: the driver's own JavaScript, or native code that knex's
 * client for the driver or the router's dialect calls (better-sqlite3's statements are C++ called from there). Its socket reads start in
 * node's net and run the driver's parser, so "any frame", not the leaf's.
 */
const DRIVER =
  /node_modules\/(better-sqlite3|pg|pg-protocol|pg-pool|pg-types|pgpass|mysql2|sqlstring|lru-cache|denque|named-placeholders)\//
const KNEX_CLIENT = /node_modules\/knex\/lib\/dialects\/|\/lib\/dialects\/(sqlite|postgres|mysql)\//
/** better-sqlite3's statement methods, native, called by knex's client or the router's SQLite dialect. */
const NATIVE_STATEMENT = /^(all|get|run|iterate|prepare|exec|raw|pluck)$/

/**
 * Where any other sample's time goes: the first frame from the leaf whose script matches. Order matters only where
 * two patterns could match one script (Express's response before the rest of Express). Native frames
 * (JSON.stringify) have no script and count for the nearest JavaScript frame that calls them.
 */
const STAGES: ReadonlyArray<readonly [stage: Stage, pattern: RegExp]> = [
  // The profiler's own calls, ahead of the script that makes them.
  ['other', /node:inspector/],
  ['statement', /node_modules\/(knex|tarn)\/|\/lib\/(sql|execute)\/|\/lib\/knex-adapter\.ts|\/lib\/dialects\/(?!driver-values)/],
  ['ETag', /\/lib\/handlers\/etag\.ts|node_modules\/etag\/|node:crypto|node:internal\/crypto/],
  [
    'send',
    /node_modules\/express\/lib\/response\.js|node_modules\/(send|content-type|mime-types|on-finished|vary|statuses)\/|\/lib\/handlers\/envelope\.ts/,
  ],
  ['route match', /node_modules\/(express|router|path-to-regexp|finalhandler|parseurl|qs)\/|\/lib\/router\.ts|\/lib\/handlers\/route\.ts/],
  ['access view', /\/lib\/access\//],
  ['parse', /\/lib\/query\//],
  ['plan', /\/lib\/plan\//],
  ['row → JSON', /\/lib\/(repository|schema)\/|\/lib\/dialects\/driver-values\.ts|\/lib\/item-types\.ts/],
  ['context', /\/lib\/handlers\/|\/lib\/request-state\.ts|\/lib\/(versions|writes)\/|\/bench\/fixed-cost\.ts/],
  ['promises (node)', /node:internal\/process\/task_queues|node:async_hooks|node:internal\/async_hooks|node:internal\/timers/],
  ['HTTP (node)', /node:(_http|net|stream|internal\/(http|stream|streams|net|url))|node:events|node:domain/],
]

export type Stage =
  | 'route match'
  | 'context'
  | 'access view'
  | 'parse'
  | 'plan'
  | 'statement'
  | 'SQL (driver)'
  | 'row → JSON'
  | 'ETag'
  | 'send'
  | 'HTTP (node)'
  | 'promises (node)'
  | 'garbage collection'
  | 'other'

const ORDER: readonly Stage[] = [
  'HTTP (node)',
  'route match',
  'context',
  'access view',
  'parse',
  'plan',
  'statement',
  'SQL (driver)',
  'row → JSON',
  'ETag',
  'send',
  'promises (node)',
  'garbage collection',
  'other',
]

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string }
  readonly children?: readonly number[]
}

interface Profile {
  readonly nodes: readonly ProfileNode[]
  readonly samples: readonly number[]
}

/** Samples per stage of one profile; idle samples are left out, as they are not CPU time. */
export function stageSamples(profile: Profile): Map<Stage, number> {
  const parent = new Map<number, ProfileNode>()
  const byId = new Map<number, ProfileNode>()
  for (const node of profile.nodes) {
    byId.set(node.id, node)
    for (const child of node.children ?? []) parent.set(child, node)
  }
  const driverOf = new Map<number, boolean>()
  const inDriver = (node: ProfileNode): boolean => {
    const known = driverOf.get(node.id)
    if (known !== undefined) return known
    const up = parent.get(node.id)
    const { url } = node.callFrame
    const own =
      DRIVER.test(url) ||
      (url === '' && NATIVE_STATEMENT.test(node.callFrame.functionName) && up !== undefined && KNEX_CLIENT.test(up.callFrame.url))
    const driver = own || (up !== undefined && inDriver(up))
    driverOf.set(node.id, driver)
    return driver
  }
  const stageOf = new Map<number, Stage | null>()
  const classify = (node: ProfileNode): Stage | null => {
    const known = stageOf.get(node.id)
    if (known !== undefined) return known
    let stage: Stage | null
    const { functionName, url } = node.callFrame
    if (functionName === '(idle)') stage = null
    else if (functionName === '(garbage collector)') stage = 'garbage collection'
    else if (inDriver(node)) stage = 'SQL (driver)'
    else {
      const found = url === '' ? undefined : STAGES.find(([, pattern]) => pattern.test(url))
      const up = parent.get(node.id)
      stage = found ? found[0] : up ? classify(up) : 'other'
      if (stage === null) stage = 'other'
    }
    stageOf.set(node.id, stage)
    return stage
  }
  const counts = new Map<Stage, number>()
  for (const id of profile.samples) {
    const stage = classify(byId.get(id)!)
    if (stage !== null) counts.set(stage, (counts.get(stage) ?? 0) + 1)
  }
  return counts
}

const session = new Session()
session.connect()
const post = (method: string, params?: object): Promise<unknown> =>
  new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))

/** What one side did over its rounds: CPU time, requests, and the profile's samples per stage. */
export interface SideCost {
  cpuMs: number
  requests: number
  samples: Map<Stage, number>
}

const emptyCost = (): SideCost => ({ cpuMs: 0, requests: 0, samples: new Map() })

export const cpuPerRequest = (side: SideCost): number => side.cpuMs / side.requests
const totalSamples = (side: SideCost): number => [...side.samples.values()].reduce((sum, count) => sum + count, 0)
/** A stage's CPU ms per request: its share of the samples times the CPU time per request. */
export const stageCost = (side: SideCost, stage: Stage): number =>
  ((side.samples.get(stage) ?? 0) / Math.max(1, totalSamples(side))) * cpuPerRequest(side)

/** The router's fixed cost: its CPU per request less the time its driver ran the statement. */
export const fixedCost = (router: SideCost): number => cpuPerRequest(router) - stageCost(router, 'SQL (driver)')

/** A collection of V8's young generation (with --expose-gc), which leaves compiled code alone. */
const collectYoung = (): void => (global.gc as ((options: { type: 'minor' }) => void) | undefined)?.({ type: 'minor' })

/** One round of load on `url`, profiled; adds to `side`. */
async function profiledRound(load: Pick<LoadGenerator, 'run'>, url: string, ms: number, side: SideCost, keep?: string): Promise<void> {
  // Each side's round starts on an empty young generation, so that neither pays for the garbage the other left.
  // A young collection only: a full one (`gc()`) also throws away type feedback and the optimized code built on
  // it, so every round began by deoptimizing and optimizing again the code it measures (--trace-opt/--trace-deopt
  // over the same rounds: 2.1× the optimizations and 5.8× the deoptimizations). That charged the router, which
  // runs far more code than the floor, 1.3-1.9× its CPU per request in rounds of half a second.
  collectYoung()
  await post('Profiler.enable')
  // Every 100 µs rather than V8's 1 ms: a request costs well under 1 ms.
  await post('Profiler.setSamplingInterval', { interval: 100 })
  await post('Profiler.start')
  const cpu = process.cpuUsage()
  const report = await load.run({ url, method: 'GET', ms, concurrency: 10 })
  const used = process.cpuUsage(cpu)
  const { profile } = (await post('Profiler.stop')) as { profile: Profile }
  if (keep !== undefined) writeFileSync(keep, JSON.stringify(profile))
  side.cpuMs += (used.user + used.system) / 1000
  side.requests += report.requests
  for (const [stage, count] of stageSamples(profile)) side.samples.set(stage, (side.samples.get(stage) ?? 0) + count)
}

/**
 * Mounts the floor beside the router: the router's answer to `ONE_ITEM` (`routerUrl`), its bytes and headers taken
 * once, sent again by a bare Express handler at `/floor`.
 */
export async function mountFloor(app: Express, routerUrl: string): Promise<void> {
  const response = await fetch(routerUrl)
  if (!response.ok) throw new Error(`${routerUrl} answered ${response.status}`)
  const bytes = Buffer.from(await response.arrayBuffer())
  const type = response.headers.get('content-type')!
  const etag = response.headers.get('etag')
  app.get('/floor', (_req, res) => {
    res.setHeader('Content-Type', type)
    if (etag !== null) res.setHeader('ETag', etag)
    res.send(bytes)
  })
}

/** The sides of a measure (router, floor, and any other), alternating round after round, each round profiled. */
export async function measure<Side extends string>(
  load: Pick<LoadGenerator, 'run'>,
  urls: Readonly<Record<Side, string>>,
  options: { readonly rounds: number; readonly ms: number; readonly keep?: string },
): Promise<Record<Side, SideCost>> {
  const names = Object.keys(urls) as Side[]
  const sides = Object.fromEntries(names.map((name) => [name, emptyCost()])) as Record<Side, SideCost>
  for (const name of names) await load.run({ url: urls[name], method: 'GET', ms: 1000, concurrency: 10 })
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? names : [...names].reverse()
    for (const which of order) {
      const keep = options.keep === undefined ? undefined : path.join(options.keep, `fixed-cost-${which}-${round}.cpuprofile`)
      await profiledRound(load, urls[which], options.ms, sides[which], keep)
    }
  }
  return sides
}

/**
 * The least a knex app pays for the same read, beside the floor: a hand-written Express handler at `/knex/:id`
 * that reads the row through knex's query builder, as a host's own route would, and answers it with res.json.
 */
function mountKnexHandler(app: Express, knex: Knex): void {
  app.get('/knex/:id', (req, res, next) => {
    knex('articles')
      .select('id', 'title', 'status', 'rating', 'author', 'parent')
      .where('id', Number(req.params.id))
      .first()
      .then((row: unknown) => (row === undefined ? res.sendStatus(404) : res.json({ data: row })), next)
  })
}

const us = (ms: number): string => (ms * 1000).toFixed(0)

async function benchDialect(name: DialectName, load: LoadGenerator): Promise<string[]> {
  const unreachable = await probe(name)
  if (unreachable) return [`### ${name}`, '', `skipped: ${unreachable}`, '']
  const knex: Knex = await openFixtures(name)
  const app = express()
  app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections }))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  await mountFloor(app, `${base}/api${ONE_ITEM}`)
  mountKnexHandler(app, knex)
  const {
    router,
    floor,
    knex: handler,
  } = await measure(
    load,
    { router: `${base}/api${ONE_ITEM}`, floor: `${base}/floor`, knex: `${base}/knex/1` },
    {
      rounds: Number(process.env.BENCH_FIXED_ROUNDS ?? 10),
      ms: Number(process.env.BENCH_FIXED_MS ?? 500),
      keep: process.env.BENCH_PROFILE,
    },
  )
  server.close()
  if (name !== 'sqlite') await dropTables(knex)
  await knex.destroy()
  const rows = ORDER.map((stage) => {
    const cells = [stage, us(stageCost(router, stage)), us(stageCost(floor, stage)), us(stageCost(router, stage) - stageCost(floor, stage))]
    return `| ${cells.join(' | ')} |`
  })
  const fixed = fixedCost(router)
  const knexFixed = fixedCost(handler)
  const lines = [
    `### ${name}`,
    '',
    '| stage | router µs/req | floor µs/req | router − floor |',
    '|---|---:|---:|---:|',
    ...rows,
    `| **all** | **${us(cpuPerRequest(router))}** | **${us(cpuPerRequest(floor))}** | **${us(cpuPerRequest(router) - cpuPerRequest(floor))}** |`,
    '',
    `Fixed cost (all less SQL (driver)): ${us(fixed)} µs per request, ${(fixed / cpuPerRequest(floor)).toFixed(2)}× the floor's ` +
      `${us(cpuPerRequest(floor))} µs; ${router.requests} router and ${floor.requests} floor requests.`,
    '',
    `A hand-written knex handler reading the same row (\`knex('articles').select(…).where('id', 1).first()\`, then ` +
      `res.json): ${us(cpuPerRequest(handler))} µs per request, fixed cost ${us(knexFixed)} µs, ` +
      `${(knexFixed / cpuPerRequest(floor)).toFixed(2)}× the floor's; ${handler.requests} requests.`,
    '',
  ]
  console.log(lines.join('\n'))
  return lines
}

async function main(): Promise<void> {
  const sections = await eachDialect(benchDialect)
  const report = [
    '# The fixed cost of a one-item read, stage by stage',
    '',
    `Written by \`npm run bench:fixed-cost\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${os.cpus().length} × ` +
      `${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}. Load average when written: ${loadAverage()}.`,
    '',
    `The request: \`GET ${ONE_ITEM}\`. The floor: a bare Express handler at the same app's top level sending the ` +
      "router's answer (bytes, `Content-Type`, `ETag`) from memory. CPU time per request in the server process, " +
      'load from a child process, 10 concurrent clients, the sides alternating in rounds that each start after a ' +
      'collection of the young generation; each stage is its share of V8 profile samples (every ' +
      '100 µs) times that, so stages move with the machine’s load as much as the totals do. A sample counts for ' +
      'the first frame from the leaf whose file names a stage (bench/fixed-cost.ts, `STAGES`): the database ' +
      "driver's own JavaScript and native code is **SQL (driver)**; knex, the router's compilers and its " +
      "statement runner are **statement**; node's HTTP, streams and microtask queue are **HTTP (node)**, which " +
      'the floor pays alike. The fixed cost is the router’s time less its SQL (driver) time; the goal is within ' +
      "2× the floor's. Beside them, for scale, the least a knex app pays for the same row: a hand-written " +
      'handler reading it through the query builder, its fixed cost taken the same way.',
    '',
    ...sections,
  ].join('\n')
  if (process.env.BENCH_WRITE !== '0') writeFileSync(path.join(__dirname, 'FIXED-COST.md'), report)
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
