// Counts the promises one request makes, the router's beside the hand-written handler's, and where the router's
// own come from. On Node 20 and 22 the router's AsyncLocalStorage runs promise hooks for every promise in the
// process, so each one costs CPU (README, Time limits): a count that grows is a cost that grows, and unlike a
// timing it does not move with the machine's load.
//
//   BENCH_PROMISES_URL='/items/articles/1' BENCH_PROMISES_HAND=/articles/1 npm run bench:promises
//
// BENCH_PROMISES_DIALECT (sqlite by default), BENCH_PROMISES_METHOD and BENCH_PROMISES_BODY (JSON text) as in
// bench/ab.ts. The request runs 200 times untimed, then 20 times counted, one at a time; each count includes the
// one promise per request of this script's own client.
import http from 'node:http'
import { createHook } from 'node:async_hooks'
import type { AddressInfo } from 'node:net'
import express from 'express'
import type { DialectName } from '../lib/dialects'
import { openFixtures } from '../spec/support/databases'
import { collections } from '../fixtures/schema'
import { createItemsRouter } from '../lib'
import { handWritten } from './hand-written'

process.env.ITEMS_TEST_RUN ??= 'bench-promises'

const ROUTER_URL = process.env.BENCH_PROMISES_URL
const HAND_URL = process.env.BENCH_PROMISES_HAND
const DIALECT = (process.env.BENCH_PROMISES_DIALECT ?? 'sqlite') as DialectName
const METHOD = process.env.BENCH_PROMISES_METHOD ?? 'GET'
const BODY = process.env.BENCH_PROMISES_BODY
const COUNTED = 20
/** Sites shown: the router's own code, as the first frame under lib/ of each promise's stack. */
const SHOWN = 25

/** Where a promise was made: the first stack frame in the router's code, or null outside it. */
function routerSite(): string | null {
  const frames = new Error().stack?.split('\n') ?? []
  const own = frames.find((frame) => frame.includes('/lib/') && !frame.includes('node_modules') && !frame.includes('node:'))
  return own === undefined
    ? null
    : own
        .trim()
        .replace(/^at /, '')
        .replace(/\(.*\/lib\//, '(lib/')
}

async function main(): Promise<void> {
  if (ROUTER_URL === undefined || HAND_URL === undefined)
    throw new Error('Set BENCH_PROMISES_URL and BENCH_PROMISES_HAND; see bench/promises.ts')
  const knex = await openFixtures(DIALECT)
  const app = express()
  app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections }))
  app.use('/hand', handWritten(knex, DIALECT))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const port = (server.address() as AddressInfo).port
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const send = (path: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const headers = BODY === undefined ? {} : { 'content-type': 'application/json' }
      http
        .request({ port, path, agent, method: METHOD, headers }, (res) => {
          res.resume()
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`${path} answered ${res.statusCode}`))))
        })
        .on('error', reject)
        .end(BODY)
    })

  const count = async (path: string, sites: Map<string, number> | null): Promise<number> => {
    for (let warm = 0; warm < 200; warm++) await send(path)
    let promises = 0
    const hook = createHook({
      init(_id, type) {
        if (type !== 'PROMISE') return
        promises++
        const site = sites && routerSite()
        if (site) sites.set(site, (sites.get(site) ?? 0) + 1)
      },
    }).enable()
    for (let request = 0; request < COUNTED; request++) await send(path)
    hook.disable()
    return promises / COUNTED
  }

  const sites = new Map<string, number>()
  const router = await count(`/api${ROUTER_URL}`, sites)
  const hand = await count(`/hand${HAND_URL}`, null)
  console.log(`${DIALECT} ${METHOD} ${ROUTER_URL}: ${router.toFixed(1)} promises a request; hand-written ${hand.toFixed(1)}`)
  console.log(`made in the router's code (per request, by the first frame under lib/):`)
  for (const [site, made] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, SHOWN)) {
    console.log(`${(made / COUNTED).toFixed(1).padStart(6)}  ${site}`)
  }
  agent.destroy()
  server.close()
  await knex.destroy()
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
