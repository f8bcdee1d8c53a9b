// Benchmarks representative requests over HTTP on each reachable database and prints throughput, latency,
// statements per request and memory. Run with `npm run bench` (BENCH_DIALECTS=sqlite narrows it).
import type { AddressInfo } from 'node:net'
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import type { DialectName } from '../lib/repository/dialects'
import { ensureDatabase, knexConfig, probe, selectedDialects } from '../spec/support/databases'
import { collections } from '../fixtures/schema'
import { seedTables } from '../fixtures/seed'
import { createTables, dropTables } from '../fixtures/tables'
import { createItemsRouter } from '../lib'

// The specs' databases and connection settings (PG_URL, MYSQL_URL), under a run name of their own so that a
// benchmark never drops the tables of a jest run on the same servers.
process.env.ITEMS_TEST_RUN ??= 'bench'

const DURATION_MS = Number(process.env.BENCH_MS ?? 3000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)

/** The fixture collections behind typical rules: an async row rule with narrowed fields, related scopes, an update filter. */
const RULED = {
  ...collections,
  articles: {
    ...collections.articles,
    access: {
      read: async () => ({ filter: { rating: { _gte: 1 } }, fields: ['id', 'title', 'status', 'author', 'comments'] }),
      update: { filter: { status: { _neq: 'archived' } }, fields: ['title'], presets: { status: 'draft' } },
    },
  },
  authors: { ...collections.authors, access: { read: { fields: ['name'] } } },
  comments: { ...collections.comments, access: { read: { filter: { votes: { _gte: 0 } } } } },
}

const REQUESTS: ReadonlyArray<{ name: string; method: string; path: string; body?: unknown }> = [
  { name: 'list 100 articles (fields=*, o2m keys)', method: 'GET', path: '/api/items/articles' },
  { name: 'list 100, fields=*,author.*,comments.*', method: 'GET', path: '/api/items/articles?limit=100&fields=*,author.*,comments.*' },
  {
    name: 'list 25, relational filter + sort',
    method: 'GET',
    path: '/api/items/articles?filter[comments][votes][_gt]=90&sort=-author.name&limit=25&fields=id,title,author.name',
  },
  { name: 'groupBy year + count', method: 'GET', path: '/api/items/articles?groupBy=year(published_at)&aggregate[count]=*' },
  {
    name: 'list 25, filter + sort + meta',
    method: 'GET',
    path: '/api/items/articles?filter[status][_eq]=published&filter[rating][_gte]=3&sort=-rating,title&limit=25&meta=*&fields=id,title,rating',
  },
  { name: 'search, 10 rows', method: 'GET', path: '/api/items/articles?search=bridge&limit=10&fields=id,title' },
  { name: 'read one', method: 'GET', path: '/api/items/articles/42?fields=id,title,author' },
  { name: 'update one', method: 'PATCH', path: '/api/items/articles/42?fields=id', body: { rating: 4 } },
  // The same reads and write through access rules (see RULED below): what resolving and applying them costs.
  {
    name: 'ruled: list 100, fields=*,author.*,comments.*',
    method: 'GET',
    path: '/ruled/items/articles?limit=100&fields=*,author.*,comments.*',
  },
  { name: 'ruled: update one', method: 'PATCH', path: '/ruled/items/articles/42?fields=id', body: { title: 'Ruled' } },
]

interface Result {
  requests: number
  perSecond: number
  p50: number
  p95: number
  statements: number
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN
}

async function measure(base: string, request: (typeof REQUESTS)[number], knex: Knex): Promise<Result> {
  const init: RequestInit = {
    method: request.method,
    headers: request.body === undefined ? {} : { 'content-type': 'application/json' },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  }
  let statements = 0
  const count = (): void => {
    statements += 1
  }
  // One request alone first, to count its statements without concurrency noise.
  knex.on('query', count)
  const probe = await fetch(base + request.path, init)
  if (!probe.ok) throw new Error(`${request.name}: HTTP ${probe.status} ${await probe.text()}`)
  knex.off('query', count)

  const latencies: number[] = []
  const end = performance.now() + DURATION_MS
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const start = performance.now()
      const response = await fetch(base + request.path, init)
      await response.arrayBuffer()
      latencies.push(performance.now() - start)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    statements,
  }
}

async function benchDialect(name: DialectName): Promise<void> {
  const unreachable = await probe(name)
  if (unreachable) {
    console.log(`\n${name}: skipped (${unreachable})`)
    return
  }
  await ensureDatabase(name)
  const knex = knexFactory(knexConfig(name))
  await dropTables(knex)
  await createTables(knex)
  await seedTables(knex)
  const app = express()
  app.use('/api', createItemsRouter({ knex, collections }))
  app.use('/ruled', createItemsRouter({ knex, collections: RULED, context: () => ({ user: 1, role: 'editor' }) }))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  console.log(`\n${name} (${CONCURRENCY} concurrent clients, ${DURATION_MS} ms per request)`)
  console.log('request'.padEnd(44), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'SQL/req'.padStart(8))
  const heapBefore = process.memoryUsage().heapUsed
  for (const request of REQUESTS) {
    const result = await measure(base, request, knex)
    console.log(
      request.name.padEnd(44),
      result.perSecond.toFixed(0).padStart(8),
      result.p50.toFixed(2).padStart(8),
      result.p95.toFixed(2).padStart(8),
      String(result.statements).padStart(8),
    )
  }
  global.gc?.()
  const heapAfter = process.memoryUsage().heapUsed
  console.log(
    `heap: ${(heapBefore / 2 ** 20).toFixed(1)} MiB before, ${(heapAfter / 2 ** 20).toFixed(1)} MiB after; rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
  )
  server.close()
  await dropTables(knex)
  await knex.destroy()
}

async function main(): Promise<void> {
  for (const name of selectedDialects('BENCH_DIALECTS')) await benchDialect(name)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
