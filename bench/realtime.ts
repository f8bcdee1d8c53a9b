// Benchmarks realtime with 1,000 WebSocket subscribers (bench/realtime-server.ts is the router process; this process
// holds the clients and every clock reading). Subscribers mix four queries (everything; a filter on rating that
// some writes enter, leave or miss; a few fields; one item) under five callers (an admin, a reader of published
// articles and four fields, the article's author, two other authors whose access rules hide it): 20 distinct
// reads per write. Measured:
// - Latency from a committed write to its delivery at each subscriber, one write at a time (an update of one
//   article's rating), on one process per database, and across two processes on PostgreSQL through each broker
//   (subscribers on one router process, writes on another). The writing process times its write from the bench's
//   order to the commit (its `items.update` listener) in its own clock and answers that duration; the bench takes
//   the commit to have happened at: order sent + half the median IPC echo + that duration, all in this process's
//   clock, and every delivery's arrival in this process's clock too. Which subscribers get a frame is checked
//   against what each may see (authors of other articles: nothing).
// - Memory per idle connection and per idle subscription: the router process's heap after a full collection
//   with no connection, with the connections only, and with one subscription on each, divided (RSS shown whole).
// - What subscriptions add to the write path: the router process's CPU time per write in a loop of updates of one
//   item (from a load child process, bench/load.ts) with no subscription and with every subscriber subscribed,
//   alternated round by round; the CPU counts until the last delivery arrived.
// Prints the tables and writes them to bench/REALTIME.md, keeping its hand-written `## Reading` section.
// `npm run bench:realtime` (about 4 minutes); BENCH_DIALECTS narrows the one-process databases (default all),
// RT_BROKERS the brokers (postgres,redis; empty: none), RT_SUBSCRIBERS (1000), RT_WRITES (timed writes per setup,
// 40), RT_ROUNDS (6), RT_ROUND_MS (750) and RT_CONCURRENCY (4) tune it, RT_PROFILE=dir writes a CPU profile of
// each router process there, BENCH_WRITE=0 leaves the results file alone.
import { fork, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import type { DialectName } from '../lib/dialects'
import { probe, selectedDialects } from '../spec/support/databases'
import { LoadGenerator } from './load-generator'
import type { Memory, ServerOrder, ServerSetup, Target } from './realtime-server'

// The specs' databases, under a run name of their own so that the bench never drops a jest run's tables.
process.env.ITEMS_TEST_RUN ??= 'benchrt'

const SUBSCRIBERS = Number(process.env.RT_SUBSCRIBERS ?? 1000)
const WRITES = Number(process.env.RT_WRITES ?? 40)
/** Untimed writes before the timed ones, so that they time code the JIT has finished with. */
const WARM_WRITES = 10
const ROUNDS = Number(process.env.RT_ROUNDS ?? 6)
const ROUND_MS = Number(process.env.RT_ROUND_MS ?? 750)
const CONCURRENCY = Number(process.env.RT_CONCURRENCY ?? 4)
const BROKERS = (process.env.RT_BROKERS ?? 'postgres,redis').split(',').filter(Boolean) as ('postgres' | 'redis')[]
/** Channels of this run only: two runs on one machine must not hear each other. */
const RUN = randomBytes(4).toString('hex')
/** How long a write's deliveries may take before the missing ones are counted as lost. */
const DELIVERY_TIMEOUT_MS = 10_000
/** RT_PROFILE=dir: a CPU profile of each router process, written there when it stops. */
const PROFILE_DIR = process.env.RT_PROFILE
/** Between timed writes: the machine settles, and no write's deliveries overlap the next's. */
const GAP_MS = 20

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const sorted = (values: readonly number[]): number[] => [...values].sort((a, b) => a - b)
const quantile = (values: readonly number[], q: number): number => {
  const all = sorted(values)
  return all[Math.min(all.length - 1, Math.floor(all.length * q))] ?? Number.NaN
}
const median = (values: readonly number[]): number => quantile(values, 0.5)

/** A router process, answering orders over IPC. */
class RouterProcess {
  private readonly child: ChildProcess
  private next = 0
  private readonly pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>()

  constructor() {
    this.child = fork(path.join(__dirname, 'realtime-server.ts'), {
      execArgv: [
        '--expose-gc',
        ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
        '-r',
        'ts-node/register/transpile-only',
      ],
      stdio: 'inherit',
    })
    this.child.on('message', (message: { id: number; value?: unknown; error?: string }) => {
      const waiting = this.pending.get(message.id)
      this.pending.delete(message.id)
      if (message.error !== undefined) waiting?.reject(new Error(message.error))
      else waiting?.resolve(message.value as never)
    })
  }

  ask<T>(order: ServerOrder): Promise<T> {
    const id = this.next++
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      this.child.send({ id, order })
    })
  }

  /** Half the median round trip of an empty order: the time an order takes to reach the process. */
  async oneWayMs(): Promise<number> {
    const trips: number[] = []
    for (let i = 0; i < 40; i++) {
      const sent = performance.now()
      await this.ask({ type: 'echo' })
      trips.push(performance.now() - sent)
    }
    return median(trips) / 2
  }

  async stop(): Promise<void> {
    await this.ask({ type: 'stop' }).catch(() => undefined)
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve))
  }
}

/** A subscription query, and whether a write of the target's rating from `before` to `after` sends it a frame. */
interface Shape {
  readonly name: string
  readonly query: object
  readonly hears: (before: number, after: number) => boolean
}

function shapes(target: Target): Shape[] {
  return [
    { name: 'everything', query: { fields: ['*'], limit: 10 }, hears: () => true },
    {
      name: 'rating ≥ 3',
      query: { fields: ['id', 'title', 'rating'], filter: { rating: { _gte: 3 } }, limit: 10 },
      // Entering it is a create, leaving it a delete, staying in an update; staying out sends nothing.
      hears: (before, after) => before >= 3 || after >= 3,
    },
    { name: 'three fields', query: { fields: ['id', 'rating', 'status'], sort: ['-id'], limit: 10 }, hears: () => true },
    { name: 'one item', query: { fields: ['id', 'rating'], filter: { id: { _eq: target.key } } }, hears: () => true },
  ]
}

/** The callers' tokens, and whether each may see the target. */
function callers(target: Target): { token: string; sees: boolean }[] {
  return [
    { token: 'admin', sees: true },
    { token: 'reader', sees: true },
    { token: `author:${target.author}`, sees: true },
    ...target.others.map((author) => ({ token: `author:${author}`, sees: false })),
  ]
}

/** Ratings the target is written in turn, from 1: out of the filter, out, in (create), in (update), out (delete). */
const RATINGS = [2, 4, 5, 1]

/** The clients, in this process; every frame's arrival is stamped before it is parsed. */
class Subscribers {
  readonly all: Subscriber[] = []
  /** Change frames (create, update, delete) received so far, by every subscriber. */
  changes = 0
  lastArrival = 0
  private wake: (() => void) | null = null

  constructor(
    private readonly wsUrl: string,
    private readonly target: Target,
  ) {}

  /** Opens `count` connections, callers and queries in turn, a few at a time. */
  async connect(count: number): Promise<void> {
    const mix = callers(this.target)
    const queries = shapes(this.target)
    const open = async (index: number): Promise<void> => {
      const caller = mix[index % mix.length]!
      const shape = queries[Math.floor(index / mix.length) % queries.length]!
      const subscriber = new Subscriber(`${this.wsUrl}?access_token=${encodeURIComponent(caller.token)}`, caller.sees, shape, (at) => {
        this.changes++
        this.lastArrival = at
        this.wake?.()
      })
      this.all.push(subscriber)
      await subscriber.opened
    }
    for (let first = 0; first < count; first += 50) {
      await Promise.all(Array.from({ length: Math.min(50, count - first) }, (_, i) => open(first + i)))
    }
  }

  async subscribeAll(): Promise<void> {
    for (let first = 0; first < this.all.length; first += 50) await Promise.all(this.all.slice(first, first + 50).map((s) => s.subscribe()))
  }

  async unsubscribeAll(): Promise<void> {
    await Promise.all(this.all.map((subscriber) => subscriber.unsubscribe()))
  }

  /** Resolves once `count` change frames have come in all, or after `timeoutMs`. */
  async until(count: number, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs
    while (this.changes < count && performance.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - performance.now()))
        this.wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      this.wake = null
    }
  }

  /** Resolves once no change frame came for `ms`. */
  async quiet(ms: number): Promise<void> {
    let seen = -1
    while (seen !== this.changes) {
      seen = this.changes
      await sleep(ms)
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.splice(0).map((subscriber) => subscriber.close()))
  }
}

class Subscriber {
  readonly ws: WebSocket
  readonly opened: Promise<void>
  /** Arrival times of change frames since the last `take`. */
  arrivals: number[] = []
  private answer: ((frame: { event?: string; status?: string }) => void) | null = null

  constructor(
    url: string,
    readonly sees: boolean,
    readonly shape: Shape,
    onChange: (at: number) => void,
  ) {
    this.ws = new WebSocket(url)
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve())
      this.ws.once('error', reject)
    })
    this.ws.on('message', (data) => {
      const at = performance.now()
      const frame = JSON.parse(data.toString()) as { type: string; event?: string; status?: string }
      if (frame.type === 'subscription' && (frame.event === 'create' || frame.event === 'update' || frame.event === 'delete')) {
        this.arrivals.push(at)
        onChange(at)
      } else if (frame.status === 'error') {
        throw new Error(`a subscriber was answered ${JSON.stringify(frame)}`)
      } else this.answer?.(frame)
    })
  }

  hears(before: number, after: number): boolean {
    return this.sees && this.shape.hears(before, after)
  }

  private ask(message: object, event: string): Promise<void> {
    return new Promise((resolve) => {
      this.answer = (frame) => {
        if (frame.event !== event) return
        this.answer = null
        resolve()
      }
      this.ws.send(JSON.stringify(message))
    })
  }

  subscribe(): Promise<void> {
    return this.ask({ type: 'subscribe', collection: 'articles', uid: 's', query: this.shape.query }, 'init')
  }

  unsubscribe(): Promise<void> {
    return this.ask({ type: 'unsubscribe', uid: 's' }, 'unsubscribe')
  }

  take(): number[] {
    const taken = this.arrivals
    this.arrivals = []
    return taken
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve()
      this.ws.once('close', () => resolve())
      this.ws.close()
    })
  }
}

interface Latency {
  readonly setup: string
  readonly database: DialectName
  readonly writes: number
  /** Delivery after commit of every (write, subscriber) frame, ms. */
  readonly deliveries: number[]
  /** Per write, the delivery of its last frame. */
  readonly lastPerWrite: number[]
  /** Commit after the order reached the writing process, per write (the write's own time). */
  readonly writeMs: number[]
  readonly missing: number
  readonly unexpected: number
}

/** Writes the target one rating after another, `count` times, through `writer`, and times its deliveries. */
async function writeAndWatch(
  writer: RouterProcess,
  subscribers: Subscribers,
  target: Target,
  state: { rating: number },
  count: number,
): Promise<Omit<Latency, 'setup' | 'database'>> {
  const oneWay = await writer.oneWayMs()
  const result = {
    writes: count,
    deliveries: [] as number[],
    lastPerWrite: [] as number[],
    writeMs: [] as number[],
    missing: 0,
    unexpected: 0,
  }
  for (let write = 0; write < count; write++) {
    const before = state.rating
    const after = RATINGS[write % RATINGS.length]!
    const expected = subscribers.all.filter((subscriber) => subscriber.hears(before, after)).length
    const start = subscribers.changes
    const ordered = performance.now()
    const { sinceOrder } = await writer.ask<{ sinceOrder: number }>({ type: 'write', key: target.key, rating: after })
    const committed = ordered + oneWay + sinceOrder
    state.rating = after
    await subscribers.until(start + expected, DELIVERY_TIMEOUT_MS)
    // Frames that a subscriber should not get would come as soon as those it should: a short wait catches them.
    await sleep(GAP_MS)
    let last = Number.NEGATIVE_INFINITY
    for (const subscriber of subscribers.all) {
      const arrivals = subscriber.take()
      if (!subscriber.hears(before, after)) {
        result.unexpected += arrivals.length
        continue
      }
      if (arrivals.length === 0) result.missing++
      for (const at of arrivals) {
        result.deliveries.push(at - committed)
        last = Math.max(last, at - committed)
      }
    }
    result.writeMs.push(sinceOrder)
    if (last > Number.NEGATIVE_INFINITY) result.lastPerWrite.push(last)
  }
  return result
}

async function latency(
  setup: string,
  database: DialectName,
  writer: RouterProcess,
  subscribers: Subscribers,
  target: Target,
  state: { rating: number },
): Promise<Latency> {
  await writeAndWatch(writer, subscribers, target, state, WARM_WRITES)
  const measured = await writeAndWatch(writer, subscribers, target, state, WRITES)
  const row = { setup, database, ...measured }
  console.log(
    `${setup.padEnd(34)} ${database.padEnd(9)} p50 ${fmt(median(row.deliveries))} ms, p99 ${fmt(quantile(row.deliveries, 0.99))} ms`,
  )
  return row
}

interface WriteCost {
  readonly database: DialectName
  readonly without: Side
  readonly with: Side
  /** Heap and RSS after a full collection: no connection; connections only (per round); subscribed (per round). */
  readonly memory: { readonly none: Memory; readonly connected: Memory[]; readonly subscribed: Memory[] }
}

interface Side {
  writes: number
  cpuMs: number
  loadSeconds: number
  /** From the first write to the last delivery. */
  deliveredSeconds: number
  cpuPerRound: number[]
}

const emptySide = (): Side => ({ writes: 0, cpuMs: 0, loadSeconds: 0, deliveredSeconds: 0, cpuPerRound: [] })

async function timedLoop(server: RouterProcess, load: LoadGenerator, subscribers: Subscribers, url: string, side: Side): Promise<void> {
  const cpu = await server.ask<number>({ type: 'cpu' })
  const started = performance.now()
  const report = await load.run({ url, method: 'PATCH', body: JSON.stringify({ rating: 4 }), ms: ROUND_MS, concurrency: CONCURRENCY })
  if (report.failed > 0) throw new Error(`${report.failed} writes failed`)
  const loadEnded = performance.now()
  await subscribers.quiet(150)
  const used = (await server.ask<number>({ type: 'cpu' })) - cpu
  side.writes += report.requests
  side.cpuMs += used
  side.loadSeconds += report.seconds
  side.deliveredSeconds += (Math.max(loadEnded, subscribers.lastArrival) - started) / 1000
  side.cpuPerRound.push(used / report.requests)
}

const fmt = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '—')

/** One router process on `database`: memory, latency and the write path's cost. */
async function oneProcess(database: DialectName, load: LoadGenerator): Promise<{ latency: Latency; cost: WriteCost }> {
  const server = new RouterProcess()
  let subscribers: Subscribers | null = null
  try {
    const { port } = await server.ask<{ port: number }>({ type: 'start', setup: { dialect: database, fixtures: true, broker: null } })
    const target = await server.ask<Target>({ type: 'target' })
    const state = { rating: 1 }
    await server.ask({ type: 'write', key: target.key, rating: 1 })
    const wsUrl = `ws://127.0.0.1:${port}/api/websocket`
    // A few clients first, through every step, so that the heap's baseline holds the code they run.
    const warm = new Subscribers(wsUrl, target)
    await warm.connect(40)
    await warm.subscribeAll()
    await writeAndWatch(server, warm, target, state, WARM_WRITES)
    await warm.close()
    const none = await settledMemory(server, 0)

    subscribers = new Subscribers(wsUrl, target)
    await subscribers.connect(SUBSCRIBERS)
    const connected = [await settledMemory(server, SUBSCRIBERS)]
    await subscribers.subscribeAll()
    const subscribed = [await server.ask<Memory>({ type: 'memory' })]
    const measured = await latency('one process', database, server, subscribers, target, state)

    const url = `http://127.0.0.1:${port}/api/items/articles/${target.key}`
    const cost: WriteCost = { database, without: emptySide(), with: emptySide(), memory: { none, connected, subscribed } }
    // Untimed, both ways: the loop's code warm before the first round.
    await load.run({ url, method: 'PATCH', body: JSON.stringify({ rating: 4 }), ms: ROUND_MS, concurrency: CONCURRENCY })
    await subscribers.quiet(150)
    let isSubscribed = true
    for (let round = 0; round < ROUNDS; round++) {
      const order: boolean[] = round % 2 === 0 ? [true, false] : [false, true]
      for (const wanted of order) {
        if (wanted !== isSubscribed) {
          if (wanted) {
            await subscribers.subscribeAll()
            subscribed.push(await server.ask<Memory>({ type: 'memory' }))
          } else {
            await subscribers.unsubscribeAll()
            connected.push(await server.ask<Memory>({ type: 'memory' }))
          }
          isSubscribed = wanted
        }
        await timedLoop(server, load, subscribers, url, wanted ? cost.with : cost.without)
      }
    }
    const ratios = cost.with.cpuPerRound.map((withCpu, round) => withCpu / cost.without.cpuPerRound[round]!)
    console.log(
      `write path ${database.padEnd(9)} CPU with / without: ${fmt(median(ratios), 2)} (rounds ${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})`,
    )
    return { latency: measured, cost }
  } finally {
    await subscribers?.close()
    await server.stop()
  }
}

/** The memory once the process holds `connections` (closing ones take a moment to go). */
async function settledMemory(server: RouterProcess, connections: number): Promise<Memory> {
  for (;;) {
    const memory = await server.ask<Memory>({ type: 'memory' })
    if (memory.connections === connections) return memory
    await sleep(50)
  }
}

/** Two router processes on PostgreSQL through `engine`: subscribers on the first, writes on the second. */
async function twoProcesses(engine: 'postgres' | 'redis'): Promise<Latency> {
  const channel = engine === 'postgres' ? `items_rt_bench_${RUN}` : `items:rt:bench:${RUN}`
  const setup = (fixtures: boolean): ServerSetup => ({ dialect: 'postgres', fixtures, broker: { engine, channel } })
  const subscribing = new RouterProcess()
  const writing = new RouterProcess()
  let subscribers: Subscribers | null = null
  try {
    const { port } = await subscribing.ask<{ port: number }>({ type: 'start', setup: setup(true) })
    await writing.ask({ type: 'start', setup: setup(false) })
    const target = await subscribing.ask<Target>({ type: 'target' })
    const state = { rating: 1 }
    await writing.ask({ type: 'write', key: target.key, rating: 1 })
    subscribers = new Subscribers(`ws://127.0.0.1:${port}/api/websocket`, target)
    await subscribers.connect(SUBSCRIBERS)
    await subscribers.subscribeAll()
    return await latency(
      `two processes, ${engine === 'postgres' ? 'PostgreSQL NOTIFY' : 'Redis pub/sub'}`,
      'postgres',
      writing,
      subscribers,
      target,
      state,
    )
  } finally {
    await subscribers?.close()
    // The writer first: the subscribing process drops the tables.
    await writing.stop()
    await subscribing.stop()
  }
}

const kib = (bytes: number): string => (bytes / 1024).toFixed(1)

function latencyTable(rows: readonly Latency[]): string[] {
  return [
    '| setup | database | timed writes | frames per write | p50 ms | p99 ms | max ms | last frame of a write, p50 ms | write itself, p50 ms | missing / unexpected |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows
      .map((row) =>
        [
          row.setup,
          row.database,
          row.writes,
          fmt(row.deliveries.length / row.writes, 0),
          fmt(median(row.deliveries)),
          fmt(quantile(row.deliveries, 0.99)),
          fmt(Math.max(...row.deliveries)),
          fmt(median(row.lastPerWrite)),
          fmt(median(row.writeMs)),
          `${row.missing} / ${row.unexpected}`,
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
  ]
}

function memoryTable(rows: readonly WriteCost[]): string[] {
  const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1)
  return [
    '| database | heap per connection KiB | heap per subscription KiB | heap: none / connected / subscribed MiB | RSS: none / connected / subscribed MiB |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(({ database, memory }) => {
      const connected = { heap: median(memory.connected.map((m) => m.heap)), rss: median(memory.connected.map((m) => m.rss)) }
      const subscribed = { heap: median(memory.subscribed.map((m) => m.heap)), rss: median(memory.subscribed.map((m) => m.rss)) }
      return `| ${[
        database,
        kib((connected.heap - memory.none.heap) / SUBSCRIBERS),
        kib((subscribed.heap - connected.heap) / SUBSCRIBERS),
        `${mib(memory.none.heap)} / ${mib(connected.heap)} / ${mib(subscribed.heap)}`,
        `${mib(memory.none.rss)} / ${mib(connected.rss)} / ${mib(subscribed.rss)}`,
      ].join(' | ')} |`
    }),
  ]
}

function costTable(rows: readonly WriteCost[]): string[] {
  const cpu = (side: Side): number => side.cpuMs / side.writes
  return [
    `| database | CPU ms/write, no subscription | CPU ms/write, ${SUBSCRIBERS} subscribed | ratio | rounds (ratio) | writes/s, none | writes/s, subscribed | writes delivered/s |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => {
      const ratios = row.with.cpuPerRound.map((withCpu, round) => withCpu / row.without.cpuPerRound[round]!)
      return `| ${[
        row.database,
        fmt(cpu(row.without), 2),
        fmt(cpu(row.with), 2),
        fmt(cpu(row.with) / cpu(row.without), 1),
        `${fmt(Math.min(...ratios), 1)}–${fmt(Math.max(...ratios), 1)}`,
        fmt(row.without.writes / row.without.loadSeconds, 0),
        fmt(row.with.writes / row.with.loadSeconds, 0),
        fmt(row.with.writes / row.with.deliveredSeconds, 0),
      ].join(' | ')} |`
    }),
  ]
}

const RESULTS = path.join(__dirname, 'REALTIME.md')

/** The hand-written reading at the end of the results file, from its heading on: kept when the figures are rewritten. */
function reading(): string {
  const text = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : ''
  const at = text.indexOf('\n## Reading')
  return at < 0 ? '' : text.slice(at)
}

async function main(): Promise<void> {
  const latencies: Latency[] = []
  const costs: WriteCost[] = []
  const skipped: string[] = []
  const loads: number[][] = []
  const sample = setInterval(() => loads.push(os.loadavg()), 10_000).unref()
  const load = new LoadGenerator()
  try {
    for (const database of selectedDialects('BENCH_DIALECTS')) {
      const unreachable = await probe(database)
      if (unreachable) {
        skipped.push(`${database}: ${unreachable}`)
        continue
      }
      const { latency: row, cost } = await oneProcess(database, load)
      latencies.push(row)
      costs.push(cost)
    }
    if (BROKERS.length > 0) {
      const unreachable = await probe('postgres')
      if (unreachable) skipped.push(`two processes: ${unreachable}`)
      else for (const engine of BROKERS) latencies.push(await twoProcesses(engine))
    }
  } finally {
    load.stop()
    clearInterval(sample)
  }
  loads.push(os.loadavg())
  const oneMinute = loads.map((each) => each[0]!)
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU'
  const report = [
    '# Benchmark: realtime subscriptions',
    '',
    `Written by \`npm run bench:realtime\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${os.cpus().length} × ${cpu}, ` +
      `${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${os.type()} ${os.release()}. ` +
      `${SUBSCRIBERS} WebSocket subscribers (one connection each) in the bench process, the router in another; ` +
      `${WRITES} timed writes per setup after ${WARM_WRITES} untimed; ${ROUNDS} alternated rounds of ${ROUND_MS} ms per side ` +
      `at ${CONCURRENCY} concurrent writes. Load average (1 min) during the run: ${fmt(Math.min(...oneMinute))}–${fmt(Math.max(...oneMinute))} ` +
      '(a shared 2-core machine: ratios move by ±0.1 and latencies by more from run to run).',
    '',
    'Subscribers: 4 queries (everything, limit 10; `rating ≥ 3` with three fields, limit 10; three fields sorted ' +
      'by `-id`, limit 10; one item by key) × 5 callers (admin; a reader of published articles and four fields; the ' +
      "written article's author; two other authors, whose row filter hides it): 20 distinct reads per write. Each " +
      "timed write updates one article's rating, through 2, 4, 5, 1: the `rating ≥ 3` subscribers get nothing, " +
      'a create, an update, a delete in turn; the other authors never get a frame (counted as unexpected).',
    '',
    '## Latency from commit to delivery',
    '',
    "Per frame: its arrival at the subscriber, less the commit, both in the bench's clock (the commit: the write " +
      "order sent + half the median IPC echo + the writer's own time from the order to its `items.update` " +
      'event). Last frame of a write: when the slowest of its subscribers had it. Write itself: the order to the ' +
      'commit in the writing process, HTTP request included. Missing: a subscriber that should have had a frame ' +
      'and had none within 10 s.',
    '',
    ...latencyTable(latencies),
    '',
    '## Memory per idle connection and subscription',
    '',
    "The router process's heap and RSS after two full collections, with no connection (after 40 warm-up " +
      `clients came and went), with ${SUBSCRIBERS} connections and no subscription, and with one subscription on ` +
      'each (medians of the samples each alternated round takes), differences divided by the count. RSS is ' +
      'shown whole: it moves with what the allocator keeps and returns by more than 1,000 idle connections take.',
    '',
    ...memoryTable(costs),
    '',
    '## What subscriptions add to the write path',
    '',
    `The router process's CPU time per write (an update of one article from a load process, ${CONCURRENCY} at a ` +
      `time) with no subscription and with all ${SUBSCRIBERS} subscribed, alternated round by round; the CPU counts ` +
      'until the last frame arrived, so it holds every read and send the writes caused. Rounds: the lowest and ' +
      "highest of each round's ratio. Writes/s: the load process's throughput; writes delivered/s: the writes over " +
      'the time from the first to the last frame.',
    '',
    ...costTable(costs),
    '',
    ...(skipped.length > 0 ? ['Skipped: ' + skipped.join('; '), ''] : []),
  ].join('\n')
  console.log(`\n${report}`)
  if (process.env.BENCH_WRITE !== '0') writeFileSync(RESULTS, report + reading())
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
