// One process of the scale-out harness: the fixture collections served under /api over the topology's
// primary (and replica) given in the environment. Started N times by bench/scale/run.ts behind HAProxy.
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import { collections } from '../../fixtures/schema'
import type * as Library from '../../lib'

// SCALE_LIB: another build of the library (e.g. /work/main/lib) to compare against.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- chosen at run time
const { createItemsRouter } = require(process.env.SCALE_LIB ?? '../../lib') as typeof Library
const quiet = { log: { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined } }
const client = process.env.SCALE_CLIENT === 'mysql2' ? 'mysql2' : 'pg'
/** Galera applies other nodes' writes asynchronously: `wsrep_sync_wait` makes a read wait for them first. */
const syncWait = Number(process.env.SCALE_SYNC_WAIT ?? '0')

function connect(connection: string): Knex {
  return knexFactory({
    client,
    connection: JSON.parse(connection) as Knex.StaticConnectionConfig,
    pool: {
      min: 0,
      max: Number(process.env.SCALE_POOL ?? '8'),
      ...(client === 'mysql2' && syncWait > 0
        ? {
            afterCreate: (
              conn: { query(sql: string, done: (error: Error | null) => void): void },
              done: (error: Error | null, conn: unknown) => void,
            ) => conn.query(`SET SESSION wsrep_sync_wait = ${syncWait}`, (error) => done(error, conn)),
          }
        : {}),
    },
    acquireConnectionTimeout: 10_000,
    ...quiet,
  })
}

const knex = connect(process.env.SCALE_PRIMARY!)
const replica = process.env.SCALE_REPLICA && process.env.SCALE_WITHOUT_REPLICA !== '1' ? connect(process.env.SCALE_REPLICA) : undefined
const failures: unknown[] = []
const app = express()
app.use(
  '/api',
  createItemsRouter({
    knex,
    collections,
    defaultAccess: true,
    ...(replica ? { replica: { knex: replica } } : {}),
    statementTimeout: Number(process.env.SCALE_STATEMENT_TIMEOUT ?? '10000'),
    ...(process.env.SCALE_TRANSACTION_ATTEMPTS ? { transactionAttempts: Number(process.env.SCALE_TRANSACTION_ATTEMPTS) } : {}),
    logger: { error: (message, error) => failures.push([message, String(error)]), warn: () => undefined },
  }),
)
app.get('/failures', (_req, res) => {
  res.json({ pid: process.pid, failures: failures.slice(0, 20), count: failures.length })
})
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'))
process.on('SIGTERM', () => {
  server.close()
  void Promise.all([knex.destroy(), replica?.destroy()]).then(() => process.exit(0))
})
