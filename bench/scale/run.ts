// npm run bench:scale — by hand, not in CI; needs root, postgresql, pgbouncer, haproxy, mariadb-server and
// galera-4. Runs the mixed workload and the races through HAProxy over 1, 2 and 4 app processes, against
// PostgreSQL (primary + streaming replica behind PgBouncer in transaction mode) and a 3-node Galera cluster,
// and prints the table RESULTS.md quotes (also written to $TMPDIR/bench-scale-last-run.md).
import { readFileSync, mkdtempSync, chmodSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import knexFactory, { type Knex } from 'knex'
import { seed, seedTables } from '../../fixtures/seed'
import { createTables } from '../../fixtures/tables'
import { createIdempotencyTable, createVersionsTable } from '../../lib'
import { appProcesses, balancer, BALANCER_PORT, GALERA, galeraCluster, PG, postgresCluster, sleep, type Running } from './servers'
import { mixedWorkload, newTally, singletonRace, versionRace, type RaceResult } from './workload'

const SECONDS = Number(process.env.SCALE_SECONDS ?? '10')
const CLIENTS = Number(process.env.SCALE_CLIENTS ?? '16')
const COUNTS = [1, 2, 4]
const quiet = { log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined } }

/** CPU time (user + system, ms) the processes used so far, from /proc (clock ticks of 10 ms). */
function cpuMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return sum + (Number(fields[11]) + Number(fields[12])) * 10
  }, 0)
}

async function waitFor(check: () => Promise<unknown>, tries = 600): Promise<void> {
  for (let attempt = 0; attempt < tries; attempt++) {
    try {
      await check()
      return
    } catch {
      await sleep(100)
    }
  }
  throw new Error('a server did not come up')
}

async function prepare(knex: Knex): Promise<void> {
  await createTables(knex)
  await seedTables(knex)
  await createVersionsTable(knex)
  await createIdempotencyTable(knex)
}

interface Topology {
  readonly name: string
  /** The environment of app process `index`. */
  readonly env: (index: number) => Record<string, string>
  /** Rows of the singleton collection now, and a way to delete them (on the primary, waiting for replicas). */
  readonly settingsRows: () => Promise<number>
  readonly clearSettings: () => Promise<void>
  /** Names the singleton race when the topology starts it from an existing row. */
  readonly singletonRace?: string
  /** A topology's own check, run through the balancer at each process count. */
  readonly check?: (base: string) => Promise<RaceResult>
}

interface Row {
  topology: string
  processes: number
  requests: number
  perSecond: number
  cpuPerRequest: number
  errors: number
  ryw: number
  stale: number
  races: RaceResult[]
  samples: Record<string, number>
  logged: number
}

async function measure(topology: Topology, dir: string): Promise<Row[]> {
  const apps = await appProcesses([0, 1, 2, 3].map(topology.env))
  const rows: Row[] = []
  try {
    for (const count of COUNTS) {
      const lb: Running = await balancer(dir, count)
      try {
        const base = `http://127.0.0.1:${BALANCER_PORT}/api`
        await mixedWorkload(base, CLIENTS, 1, seed.articles.length)
        const before = cpuMs(apps.pids.slice(0, count))
        const tally = await mixedWorkload(base, CLIENTS, SECONDS, seed.articles.length)
        const cpu = cpuMs(apps.pids.slice(0, count)) - before
        const raceTally = newTally()
        const races = [
          await singletonRace(base, raceTally, topology.settingsRows, topology.clearSettings, 5, topology.singletonRace),
          await versionRace(base, raceTally, 9),
          ...(topology.check ? [await topology.check(base)] : []),
        ]
        const logged = await Promise.all(
          [58101, 58102, 58103, 58104]
            .slice(0, count)
            .map(
              async (port) => (await (await fetch(`http://127.0.0.1:${port}/failures`)).json()) as { count: number; failures: unknown[] },
            ),
        )
        for (const { failures } of logged) if (failures.length > 0) console.log(JSON.stringify(failures.slice(0, 3)))
        const row: Row = {
          topology: topology.name,
          processes: count,
          requests: tally.requests,
          perSecond: tally.requests / tally.seconds,
          cpuPerRequest: cpu / tally.requests,
          errors: tally.errors + raceTally.errors,
          ryw: tally.ryw + raceTally.ryw,
          stale: tally.stale,
          races,
          samples: { ...tally.samples, ...raceTally.samples },
          logged: logged.reduce((sum, { count: n }) => sum + n, 0),
        }
        console.log(JSON.stringify(row))
        rows.push(row)
      } finally {
        await lb.stop()
      }
    }
  } finally {
    await apps.stop()
  }
  return rows
}

/**
 * A statement past statementTimeout behind PgBouncer: the request answers 504 and the statement is stopped on
 * the server too. knex cancels by the backend pid pg learnt at connect, which behind the pooler is PgBouncer's
 * own; without the router's cancel by marker the statement would wait on, holding a server connection.
 */
async function cancelledBehindPooler(base: string, primary: Knex): Promise<RaceResult> {
  const failures: string[] = []
  const rounds = 3
  for (let round = 0; round < rounds; round++) {
    const trx = await primary.transaction()
    try {
      await trx('articles').where({ id: 2 }).forUpdate().select('id')
      const answer = await fetch(`${base}/items/articles/2`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ rating: 100 + round }),
      })
      await sleep(500)
      const [waiting] = (
        (await primary.raw(
          "select count(*)::int as n from pg_stat_activity where query like '/* items-router %' and state = 'active' and wait_event_type = 'Lock'",
        )) as {
          rows: { n: number }[]
        }
      ).rows
      if (answer.status !== 504) failures.push(`round ${round}: answered ${answer.status}, not 504`)
      if (waiting!.n > 0) failures.push(`round ${round}: ${waiting!.n} statement(s) still waiting on the server after the 504`)
    } finally {
      await trx.rollback()
    }
  }
  const [article] = (await primary('articles').where({ id: 2 }).select('rating')) as { rating: number }[]
  if (article!.rating >= 100) failures.push('a cancelled write landed after all')
  return { name: 'statementTimeout behind PgBouncer: 504 and the statement stopped on the server', rounds, failures }
}

async function postgresRows(dir: string): Promise<Row[]> {
  const cluster = postgresCluster(dir)
  const direct = (port: number, database: string): Knex =>
    knexFactory({ client: 'pg', connection: { host: '127.0.0.1', port, user: 'postgres', database }, pool: { min: 0, max: 2 }, ...quiet })
  try {
    const admin = direct(PG.primary, 'postgres')
    await admin.raw('create database scale')
    await admin.destroy()
    const primary = direct(PG.primary, 'scale')
    await prepare(primary)
    const replica = direct(PG.replica, 'scale')
    await waitFor(async () => {
      const [row] = (await replica('articles').count({ n: '*' })) as { n: string }[]
      if (Number(row!.n) !== seed.articles.length) throw new Error('replica behind')
    })
    const through = (database: string): string => JSON.stringify({ host: '127.0.0.1', port: PG.bouncer, user: 'postgres', database })
    try {
      return await measure(
        {
          name: 'PostgreSQL primary + streaming replica, PgBouncer (transaction mode)',
          env: () => ({
            SCALE_STATEMENT_TIMEOUT: '5000',
            SCALE_CLIENT: 'pg',
            SCALE_PRIMARY: through('scale'),
            SCALE_REPLICA: through('scale_replica'),
            SCALE_POOL: '8',
          }),
          settingsRows: async () => Number(((await primary('settings').count({ n: '*' })) as { n: string }[])[0]!.n),
          check: (base) => cancelledBehindPooler(base, primary),
          clearSettings: async () => {
            await primary('settings').delete()
            await waitFor(async () => {
              if (Number(((await replica('settings').count({ n: '*' })) as { n: string }[])[0]!.n) !== 0) throw new Error('replica behind')
            })
          },
        },
        dir,
      )
    } finally {
      await primary.destroy()
      await replica.destroy()
    }
  } finally {
    await cluster.stop()
  }
}

async function galeraRows(dir: string, syncWait: number): Promise<Row[]> {
  const node = (port: number, database?: string): Knex =>
    knexFactory({
      client: 'mysql2',
      connection: { host: '127.0.0.1', port, user: 'root', ...(database ? { database } : {}), charset: 'utf8mb4' },
      pool: {
        min: 0,
        max: 2,
        afterCreate: (conn: { query(sql: string, done: (e: Error | null) => void): void }, done: (e: Error | null, c: unknown) => void) =>
          conn.query('SET SESSION wsrep_sync_wait = 1', (e) => done(e, conn)),
      },
      ...quiet,
    })
  const cluster = await galeraCluster(dir, async (port) => {
    const probe = node(port)
    try {
      await waitFor(async () => {
        const [[state]] = (await probe.raw("show status like 'wsrep_local_state_comment'")) as [{ Value: string }[]]
        if (state?.Value !== 'Synced') throw new Error('not synced')
      }, 1200)
    } finally {
      await probe.destroy()
    }
  })
  try {
    const admin = node(GALERA[0]!.port)
    await admin.raw('create database if not exists scale character set utf8mb4')
    await admin.destroy()
    const first = node(GALERA[0]!.port, 'scale')
    await prepare(first)
    const connection = (index: number): string =>
      JSON.stringify({ host: '127.0.0.1', port: GALERA[index % 3]!.port, user: 'root', database: 'scale', charset: 'utf8mb4' })
    try {
      return await measure(
        {
          name: `MariaDB Galera, 3 nodes, process i on node i mod 3, wsrep_sync_wait=${syncWait}`,
          env: (index) => ({
            SCALE_CLIENT: 'mysql2',
            SCALE_PRIMARY: connection(index),
            SCALE_SYNC_WAIT: String(syncWait),
            SCALE_POOL: '8',
          }),
          settingsRows: async () => Number(((await first('settings').count({ n: '*' })) as { n: number }[])[0]!.n),
          // GET_LOCK is node-local on Galera: the first row's fixed key (1) is what keeps creators on two nodes to
          // one row (see RESULTS.md). By default the row is created up front and the race updates it from every
          // node; SCALE_EMPTY_SINGLETON=1 races the create itself.
          ...(process.env.SCALE_EMPTY_SINGLETON === '1'
            ? { clearSettings: async () => void (await first('settings').delete()) }
            : {
                singletonRace: 'singleton: concurrent PATCHes of its existing row from every node keep one row',
                clearSettings: async () => {
                  await first('settings').delete()
                  await first('settings').insert({ site_name: 'seeded' })
                },
              }),
        },
        dir,
      )
    } finally {
      await first.destroy()
    }
  } finally {
    await cluster.stop()
  }
}

function report(rows: readonly Row[]): string {
  const lines = [
    `Run ${new Date().toISOString()}: ${CLIENTS} concurrent clients, ${SECONDS} s per process count, through HAProxy.`,
    '',
    '| topology | processes | requests | req/s | app CPU ms/req | errors | RYW violations | stale plain reads | races | 500s logged |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.topology} | ${row.processes} | ${row.requests} | ${row.perSecond.toFixed(0)} | ${row.cpuPerRequest.toFixed(2)} | ${row.errors} | ${row.ryw} | ${row.stale} | ${row.races.map((race) => `${race.rounds - race.failures.length}/${race.rounds}`).join(', ')} | ${row.logged} |`,
    ),
    '',
    ...rows.flatMap((row) => [
      ...Object.entries(row.samples).map(([kind, count]) => `- ${row.topology}, ${row.processes} processes: ${count} × ${kind}`),
      ...row.races.flatMap((race) =>
        race.failures.map((failure) => `- ${row.topology}, ${row.processes} processes, ${race.name}: ${failure}`),
      ),
    ]),
  ]
  return lines.join('\n')
}

async function main(): Promise<void> {
  const only = process.env.SCALE_ONLY
  const dir = mkdtempSync(join(tmpdir(), 'scale-'))
  chmodSync(dir, 0o777)
  const rows: Row[] = []
  try {
    if (!only || only === 'postgres') rows.push(...(await postgresRows(dir)))
    if (!only || only === 'galera') {
      for (const syncWait of (process.env.SCALE_SYNC_WAITS ?? '0,1').split(',').map(Number)) {
        rows.push(...(await galeraRows(join(dir, `galera-${syncWait}`), syncWait)))
      }
    }
  } finally {
    const text = report(rows)
    console.log(text)
    writeFileSync(join(tmpdir(), 'bench-scale-last-run.md'), `${text}\n`)
    if (process.env.SCALE_KEEP !== '1') rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
