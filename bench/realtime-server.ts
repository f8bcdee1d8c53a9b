// A router process of `npm run bench:realtime` (bench/realtime.ts forks one or two): the fixtures' router with
// realtime attached, and a broker when the bench names one. It serves the bench's WebSocket clients and answers
// the bench's orders over IPC: write one item (timing the write from the order to its commit, in this process's
// own clock), report the heap after a full collection, its CPU time so far, and an echo to time the IPC itself.
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient } from 'redis'
import { collections } from '../fixtures/schema'
import { dropTables } from '../fixtures/tables'
import {
  createItemsRouter,
  createPostgresBroker,
  createRedisBroker,
  type AccessDecision,
  type ItemsContext,
  type PostgresBrokerClient,
  type RealtimeBroker,
} from '../lib'
import type { DialectName } from '../lib/dialects'
import { knexConfig, openFixtures, pgConnection } from '../spec/support/databases'

export interface ServerSetup {
  readonly dialect: DialectName
  /** Build and seed the fixture tables (the first process on a database), or use those another process built. */
  readonly fixtures: boolean
  readonly broker: { readonly engine: 'postgres' | 'redis'; readonly channel: string } | null
}

export type ServerOrder =
  | { readonly type: 'start'; readonly setup: ServerSetup }
  | { readonly type: 'echo' }
  | { readonly type: 'target' }
  | { readonly type: 'write'; readonly key: number; readonly rating: number }
  | { readonly type: 'memory' }
  | { readonly type: 'cpu' }
  | { readonly type: 'stop' }

export interface Memory {
  readonly heap: number
  readonly rss: number
  readonly external: number
  readonly connections: number
  readonly subscriptions: number
}

/** The article the bench writes: published, by an author with other articles, and two authors who did not write it. */
export interface Target {
  readonly key: number
  readonly author: number
  readonly others: readonly number[]
}

/**
 * The callers' view of articles: the admin reads everything, a reader the published ones and four fields, an
 * author their own articles. The bench's tokens (`admin`, `reader`, `author:<id>`) name them.
 */
function readArticles(context: ItemsContext): AccessDecision {
  if (context.role === 'admin') return true
  if (context.role === 'reader') return { fields: ['id', 'title', 'status', 'rating'], filter: { status: { _eq: 'published' } } }
  return { filter: { author: { _eq: context.user as number } } }
}

export function callerOf(token: string): ItemsContext | null {
  if (token === 'admin' || token === 'reader') return { role: token }
  const author = /^author:(\d+)$/.exec(token)
  return author ? { role: 'author', user: Number(author[1]) } : null
}

const benchCollections = {
  ...collections,
  articles: { ...collections.articles, access: { read: readArticles, create: true, update: true, delete: true } },
}

// pg ships no types of its own; the broker names the part of its Client it uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (config: object) => PostgresBrokerClient }

function brokerFor(broker: NonNullable<ServerSetup['broker']>): RealtimeBroker {
  const logger = { error: (...args: unknown[]) => console.error(...args) }
  return broker.engine === 'postgres'
    ? createPostgresBroker({ client: () => new Client(pgConnection('postgres')), channel: broker.channel, logger })
    : createRedisBroker({ client: createClient({ url: 'redis://127.0.0.1:6379' }), channel: broker.channel, logger })
}

/** A collection after another, twice: what the first frees may only be collectable by the second. */
async function collected(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    global.gc?.()
    await new Promise((resolve) => setImmediate(resolve))
  }
}

async function start(setup: ServerSetup) {
  const knex: Knex = setup.fixtures ? await openFixtures(setup.dialect) : knexFactory(knexConfig(setup.dialect))
  const quiet = { error: (...args: unknown[]) => console.error(...args), warn: () => undefined }
  // HTTP writes act as the admin; socket callers as their token says.
  const router = createItemsRouter({ knex, collections: benchCollections, logger: quiet, context: () => ({ role: 'admin' }) })
  const server = createServer(express().use('/api', router))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  // Registered before realtime attaches, so it runs first among the listeners of the same committed write.
  let committedAt: number | null = null
  let awaited: number | null = null
  router.events.on('items.update', (event) => {
    if (event.collection === 'articles' && event.keys.includes(awaited!)) committedAt = performance.now()
  })
  const realtime = router.attachRealtime(server, {
    path: '/api/websocket',
    authenticate: (token) => callerOf(token),
    maxConnections: 5000,
    // No pings: an idle subscription costs its memory only, and no heartbeat lands in a timed round.
    heartbeatInterval: 0,
    ...(setup.broker ? { broker: brokerFor(setup.broker) } : {}),
  })
  await realtime.ready

  return {
    port: (server.address() as AddressInfo).port,
    async target(): Promise<Target> {
      const rows = (await knex('articles').whereNotNull('author').select('id', 'author', 'status').orderBy('id')) as {
        id: number
        author: number
        status: string
      }[]
      const chosen = rows.find((row) => row.status === 'published')!
      const others = [...new Set(rows.map((row) => row.author))].filter((author) => author !== chosen.author).slice(0, 2)
      return { key: chosen.id, author: chosen.author, others }
    },
    /** Writes `rating` to the item through HTTP; answers the time from the order to the commit, in this clock. */
    async write(key: number, rating: number): Promise<{ sinceOrder: number }> {
      const ordered = performance.now()
      committedAt = null
      awaited = key
      const response = await fetch(`${base}/api/items/articles/${key}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rating }),
      })
      await response.arrayBuffer()
      if (!response.ok || committedAt === null) throw new Error(`the write answered ${response.status}`)
      return { sinceOrder: committedAt - ordered }
    },
    async memory(): Promise<Memory> {
      await collected()
      const { heapUsed, rss, external } = process.memoryUsage()
      return { heap: heapUsed, rss, external, connections: realtime.connections, subscriptions: realtime.subscriptions }
    },
    async stop(): Promise<void> {
      await realtime.close()
      server.closeAllConnections()
      server.close()
      if (setup.fixtures && setup.dialect !== 'sqlite') await dropTables(knex)
      await knex.destroy()
    },
  }
}

type Started = Awaited<ReturnType<typeof start>>

async function answer(order: ServerOrder, started: Started | null): Promise<unknown> {
  if (order.type === 'echo') return null
  if (order.type === 'cpu') {
    const used = process.cpuUsage()
    return (used.user + used.system) / 1000
  }
  if (started === null) throw new Error(`"${order.type}" before "start"`)
  switch (order.type) {
    case 'target':
      return started.target()
    case 'write':
      return started.write(order.key, order.rating)
    case 'memory':
      return started.memory()
    default:
      throw new Error(`unknown order ${order.type}`)
  }
}

if (require.main === module) {
  let started: Started | null = null
  process.on('message', (message: { id: number; order: ServerOrder }) => {
    const { id, order } = message
    const work = async (): Promise<unknown> => {
      if (order.type === 'start') {
        started = await start(order.setup)
        return { port: started.port }
      }
      if (order.type === 'stop') {
        await started?.stop()
        setImmediate(() => process.exit(0))
        return null
      }
      return answer(order, started)
    }
    work().then(
      (value) => process.send?.({ id, value }),
      (error: unknown) => process.send?.({ id, error: String((error as Error)?.stack ?? error) }),
    )
  })
}
