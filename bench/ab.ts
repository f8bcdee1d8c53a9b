// An A/B of one request between two checkouts of the library, for changes too small for `npm run bench` to see
// (whose ratios move by ±0.1 on a shared machine): the router of another checkout (A, BENCH_AB_BEFORE) and this
// one's (B) mounted side by side in one process, each over a knex instance of its own, with the hand-written
// handler beside them, and the same request sent to each in short batches that alternate for the whole run, so
// that a neighbour's load or a CPU's clock change falls on all three alike. Prints the CPU time per request of
// each (this process serves and sends, so the sender's share, equal for all three, is included) and B − A.
// Two checkouts load two AsyncLocalStorage instances, whose hooks every promise then runs: a change in the number
// of promises weighs more here than under one router.
//
//   git worktree add /tmp/before HEAD~1 && ln -s "$PWD/node_modules" /tmp/before/node_modules
//   BENCH_AB_BEFORE=/tmp/before BENCH_AB_URL=/items/articles/1 BENCH_AB_HAND=/articles/1 npm run bench:ab
//
// BENCH_AB_DIALECT (sqlite by default), BENCH_AB_ROUNDS (40 batches of 400 requests per side). `{n}` in either URL
// becomes a number new to each request. BENCH_AB_METHOD (GET by default) and BENCH_AB_BODY (JSON text) send a write
// instead, such as `PATCH /items/articles/42` with `{"rating":4}`: it must answer 200 on every side.
import http from 'node:http'
import path from 'node:path'
import type { AddressInfo } from 'node:net'
import express, { type Router } from 'express'
import type { Knex } from 'knex'
import type { DialectName } from '../lib/dialects'
import knexFactory from 'knex'
import { knexConfig, openFixtures } from '../spec/support/databases'
import { collections } from '../fixtures/schema'
import { createItemsRouter } from '../lib'
import { handWritten } from './hand-written'

process.env.ITEMS_TEST_RUN ??= 'bench-ab'

const BEFORE = process.env.BENCH_AB_BEFORE
const ROUTER_URL = process.env.BENCH_AB_URL
const HAND_URL = process.env.BENCH_AB_HAND
const DIALECT = (process.env.BENCH_AB_DIALECT ?? 'sqlite') as DialectName
const ROUNDS = Number(process.env.BENCH_AB_ROUNDS ?? 40)
const METHOD = process.env.BENCH_AB_METHOD ?? 'GET'
const BODY = process.env.BENCH_AB_BODY
const PER_BATCH = 400
/** Requests in flight at once, over kept-alive connections. */
const CONCURRENCY = 4

type RouterFactory = (options: { knex: Knex; collections: typeof collections }) => Router

async function main(): Promise<void> {
  if (BEFORE === undefined || ROUTER_URL === undefined || HAND_URL === undefined) {
    throw new Error('Set BENCH_AB_BEFORE (a checkout with node_modules), BENCH_AB_URL and BENCH_AB_HAND; see bench/ab.ts')
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const before = require(path.resolve(BEFORE, 'lib')) as { createItemsRouter: RouterFactory }
  // Each side its own knex instance over the same data: a router wraps its instance's driver calls
  // (statement-cache.ts), and a side whose statements also passed through the other router's wrapper would pay
  // for both (B measured 20–45 µs cheaper than A, each the same code, while they shared one).
  const knex = await openFixtures(DIALECT)
  const another = (): Promise<Knex> => (DIALECT === 'sqlite' ? openFixtures(DIALECT) : Promise.resolve(knexFactory(knexConfig(DIALECT))))
  const [knexA, knexB] = [await another(), await another()]
  const app = express()
  app.use('/a', before.createItemsRouter({ knex: knexA, collections }))
  app.use('/b', createItemsRouter({ knex: knexB, defaultAccess: true, collections }))
  app.use('/hand', handWritten(knex, DIALECT))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const port = (server.address() as AddressInfo).port
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })

  let sent = 0
  const send = (url: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const target = url.replace('{n}', String(sent++))
      const headers = BODY === undefined ? {} : { 'content-type': 'application/json' }
      http
        .request({ port, path: target, agent, method: METHOD, headers }, (res) => {
          res.resume()
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${target} answered ${res.statusCode}`))))
        })
        .on('error', reject)
        .end(BODY)
    })
  const batch = async (url: string, requests: number): Promise<void> => {
    for (let done = 0; done < requests; done += CONCURRENCY) await Promise.all(Array.from({ length: CONCURRENCY }, () => send(url)))
  }

  const sides = [
    { name: 'A', url: `/a${ROUTER_URL}`, cpu: 0, requests: 0 },
    { name: 'B', url: `/b${ROUTER_URL}`, cpu: 0, requests: 0 },
    { name: 'hand', url: `/hand${HAND_URL}`, cpu: 0, requests: 0 },
  ]
  // Warm the JIT, the caches and the pool untimed.
  for (const side of sides) await batch(side.url, 5 * PER_BATCH)
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in the other order, so that neither side always follows the same one.
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const start = process.cpuUsage()
      await batch(side.url, PER_BATCH)
      const used = process.cpuUsage(start)
      side.cpu += used.user + used.system
      side.requests += PER_BATCH
    }
  }
  const perRequest = (side: (typeof sides)[number]): number => side.cpu / side.requests
  const [a, b, hand] = sides.map(perRequest) as [number, number, number]
  console.log(
    `${DIALECT} ${METHOD} ${ROUTER_URL}: A ${a.toFixed(0)} µs, B ${b.toFixed(0)} µs, hand-written ${hand.toFixed(0)} µs of CPU a request; ` +
      `B − A ${(b - a).toFixed(0)} µs`,
  )
  agent.destroy()
  server.close()
  await Promise.all([knex, knexA, knexB].map((each) => each.destroy()))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
