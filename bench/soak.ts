// Soak test: mixed reads and writes at high concurrency against each database on its own server instance, with a
// database restart in the middle; prints errors outside the restart window, p99 latency, RSS, and an audit that
// every write answered 2xx is stored exactly once. Run with `npm run bench:soak` (SOAK_MS, SOAK_DIALECTS).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, chmodSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import { collections } from '../fixtures/schema'
import { rebuildTables } from '../fixtures/seed'
import { createItemsRouter, prepareSqliteConnection } from '../lib'
import { mysqlConfig, postgresConfig, type Timeouts } from '../examples/knex-config'

const DURATION_MS = Number(process.env.SOAK_MS ?? 60_000)
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 50)
const DIALECTS = (process.env.SOAK_DIALECTS ?? 'sqlite,postgres,mysql').split(',')
const PG_PORT = 5440
const MYSQL_PORT = 3340
/** After the database is back, requests get this long to find working connections before errors count. */
const GRACE_MS = 2_000
const TIMEOUTS: Timeouts = { connectMs: 2_000, acquireMs: 5_000, queryMs: 5_000, idleMs: 5_000 }

interface Server {
  knex: Knex
  /** Restarts the database; resolves when it accepts connections again. Null: nothing to restart. */
  restart: (() => Promise<void>) | null
  stop(): Promise<void>
}

/** knex logs every failed connection attempt; during a restart that is hundreds of lines saying the same. */
const quiet = { log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined } }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const asUser = (user: string, command: string, args: string[]): string =>
  execFileSync('runuser', ['-u', user, '--', command, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

async function waitFor(check: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      await check()
      return
    } catch {
      await sleep(100)
    }
  }
  throw new Error('the database did not come up')
}

async function postgresServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-pg-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  const bin = execFileSync('ls', ['/usr/lib/postgresql'], { encoding: 'utf8' }).trim().split('\n').pop()!
  const ctl = `/usr/lib/postgresql/${bin}/bin/pg_ctl`
  asUser('postgres', `/usr/lib/postgresql/${bin}/bin/initdb`, ['-D', data, '-A', 'trust', '-U', 'postgres'])
  const start = (): string =>
    asUser('postgres', ctl, [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-o',
      `-p ${PG_PORT} -k ${dir} -c listen_addresses=127.0.0.1`,
      '-w',
      'start',
    ])
  start()
  const knex = knexFactory({
    ...postgresConfig({ host: '127.0.0.1', port: PG_PORT, user: 'postgres', database: 'postgres' }, TIMEOUTS, 10),
    ...quiet,
  })
  return {
    knex,
    restart: async () => {
      asUser('postgres', ctl, ['-D', data, '-m', 'fast', '-w', 'stop'])
      await sleep(1_000)
      start()
    },
    stop: async () => {
      await knex.destroy()
      asUser('postgres', ctl, ['-D', data, '-m', 'fast', '-w', 'stop'])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function mysqlServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-my-'))
  chmodSync(dir, 0o777)
  const data = join(dir, 'data')
  execFileSync('mariadb-install-db', [`--datadir=${data}`, '--user=mysql', '--auth-root-authentication-method=normal', '--skip-test-db'], {
    stdio: 'ignore',
  })
  let child: ChildProcess | null = null
  const start = (): void => {
    child = spawn(
      'mariadbd',
      [
        `--datadir=${data}`,
        `--port=${MYSQL_PORT}`,
        `--socket=${join(dir, 'sock')}`,
        '--bind-address=127.0.0.1',
        '--user=mysql',
        `--pid-file=${join(dir, 'pid')}`,
        '--skip-log-bin',
        '--innodb-buffer-pool-size=64M',
      ],
      { stdio: 'ignore' },
    )
  }
  const stopServer = async (): Promise<void> => {
    const running = child
    if (!running) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGTERM')
    await exited
    child = null
  }
  start()
  const admin = knexFactory({
    client: 'mysql2',
    connection: { host: '127.0.0.1', port: MYSQL_PORT, user: 'root' },
    pool: { min: 0, max: 1 },
  })
  await waitFor(() => admin.raw('select 1'))
  await admin.raw('create database if not exists soak character set utf8mb4')
  await admin.destroy()
  const knex = knexFactory({
    ...mysqlConfig({ host: '127.0.0.1', port: MYSQL_PORT, user: 'root', database: 'soak', charset: 'utf8mb4' }, TIMEOUTS, 10),
    ...quiet,
  })
  return {
    knex,
    restart: async () => {
      await stopServer()
      await sleep(1_000)
      start()
      await waitFor(() => knex.raw('select 1'))
    },
    stop: async () => {
      await knex.destroy()
      await stopServer()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function sqliteServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-sqlite-'))
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: join(dir, 'soak.db') },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate: (db: { pragma(sql: string): void }, done: (error: Error | null, db: unknown) => void) => {
        db.pragma('journal_mode = WAL')
        db.pragma('foreign_keys = ON')
        prepareSqliteConnection(db)
        done(null, db)
      },
    },
  })
  return {
    knex,
    restart: null,
    stop: async () => {
      await knex.destroy()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

interface Outcome {
  start: number
  end: number
  status: number
  /** The author a create asked for, and the key it was answered with. */
  created?: { name: string; id?: number }
}

async function soak(name: string, server: Server): Promise<void> {
  const { knex } = server
  await waitFor(() => knex.raw('select 1'))
  await rebuildTables(knex)
  const app = express()
  app.use('/api', createItemsRouter({ knex, defaultAccess: true, collections, logger: { error: () => undefined, warn: () => undefined } }))
  const http = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => http.once('listening', resolve))
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api`

  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  const { rss: rssStart, heapUsed: heapStart } = process.memoryUsage()
  const outcomes: Outcome[] = []
  const started = Date.now()
  let window: { from: number; to: number } | null = null
  let sequence = 0

  async function one(): Promise<void> {
    const roll = Math.random()
    const start = Date.now()
    let outcome: Outcome
    try {
      if (roll < 0.6) {
        const path =
          roll < 0.3 ? '/items/articles?limit=10&fields=id,title,author.name' : `/items/articles/${1 + Math.floor(Math.random() * 200)}`
        const response = await fetch(base + path)
        await response.arrayBuffer()
        outcome = { start, end: Date.now(), status: response.status }
      } else if (roll < 0.9) {
        const author = `soak-${name}-${sequence++}`
        const response = await fetch(`${base}/items/authors`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: author }),
        })
        const body = (await response.json().catch(() => null)) as { data?: { id?: number } } | null
        outcome = { start, end: Date.now(), status: response.status, created: { name: author, id: body?.data?.id } }
      } else {
        const response = await fetch(`${base}/items/articles/${1 + Math.floor(Math.random() * 20)}`, {
          method: 'PATCH',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ rating: Math.floor(Math.random() * 5) + 1 }),
        })
        await response.arrayBuffer()
        outcome = { start, end: Date.now(), status: response.status }
      }
    } catch {
      outcome = { start, end: Date.now(), status: 0 }
    }
    outcomes.push(outcome)
  }

  const workers = Array.from({ length: CONCURRENCY }, async () => {
    while (Date.now() - started < DURATION_MS) await one()
  })
  const restarting = (async () => {
    if (!server.restart) return
    await sleep(DURATION_MS / 2)
    const from = Date.now()
    await server.restart()
    window = { from, to: Date.now() + GRACE_MS }
  })()
  await Promise.all([...workers, restarting])
  http.close()

  gc?.()
  const { rss: rssEnd, heapUsed: heapEnd } = process.memoryUsage()
  const inWindow = (outcome: Outcome): boolean => window !== null && outcome.end >= window.from && outcome.start <= window.to
  const failed = outcomes.filter((outcome) => outcome.status < 200 || outcome.status >= 300)
  const outside = failed.filter((outcome) => !inWindow(outcome))
  const latencies = outcomes
    .filter((outcome) => !inWindow(outcome))
    .map((outcome) => outcome.end - outcome.start)
    .sort((a, b) => a - b)
  const p99 = latencies[Math.floor(latencies.length * 0.99)] ?? 0

  // Audit: every create answered 2xx is stored exactly once, under the key it was answered with.
  const stored = new Map<string, number[]>()
  for (const row of (await knex('authors').where('name', 'like', `soak-${name}-%`).select('id', 'name')) as {
    id: number
    name: string
  }[]) {
    stored.set(row.name, [...(stored.get(row.name) ?? []), Number(row.id)])
  }
  const acknowledged = outcomes.filter((outcome) => outcome.created && outcome.status === 200)
  const lost = acknowledged.filter((outcome) => {
    const ids = stored.get(outcome.created!.name) ?? []
    return ids.length !== 1 || ids[0] !== outcome.created!.id
  })
  const byStatus = new Map<number, number>()
  for (const outcome of failed) byStatus.set(outcome.status, (byStatus.get(outcome.status) ?? 0) + 1)
  console.log(
    JSON.stringify({
      dialect: name,
      seconds: DURATION_MS / 1000,
      concurrency: CONCURRENCY,
      requests: outcomes.length,
      restartWindowMs: window ? (window as { from: number; to: number }).to - (window as { from: number; to: number }).from : null,
      errorsInWindow: failed.length - outside.length,
      errorsOutsideWindow: outside.length,
      errorStatuses: Object.fromEntries(byStatus),
      p99Ms: p99,
      rssStartMb: Math.round(rssStart / 1e6),
      rssEndMb: Math.round(rssEnd / 1e6),
      // RSS keeps what V8 and the allocator once took; the live heap after a GC shows whether anything is kept.
      heapStartMb: Math.round(heapStart / 1e6),
      heapEndMb: Math.round(heapEnd / 1e6),
      acknowledgedCreates: acknowledged.length,
      auditFailures: lost.length,
    }),
  )
}

const SERVERS: Record<string, () => Promise<Server>> = { sqlite: sqliteServer, postgres: postgresServer, mysql: mysqlServer }

async function main(): Promise<void> {
  for (const name of DIALECTS) {
    const server = await SERVERS[name]!()
    try {
      await soak(name, server)
    } finally {
      await server.stop()
    }
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
