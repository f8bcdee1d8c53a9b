// sqliteReader(): SQLite reads on worker threads. A read request's statements run on a reader thread while the
// event loop serves other requests; writes and their read-backs stay on the host's connection; a read past
// statementTimeout, or of a client that left, is stopped by ending its thread. SQLite only (a database file).
import { mkdtempSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import express, { type Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { ConfigError, createItemsRouter, prepareSqliteConnection, sqliteReader, type Collections, type ItemsRouterOptions } from '../../lib'
import { recordingLogger } from '../support/app'
import { statementsOf } from '../support/statements-of'
import { selectedDialects } from '../support/databases'

/** Rows enough that a relational count over them keeps a reader thread busy for a few hundred ms. */
const ROWS = 300_000

const collections: Collections = {
  rx_items: {
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      label: { type: 'string' },
      parent: { type: 'integer', references: 'rx_items' },
      children: { type: 'o2m', collection: 'rx_items', foreignKey: 'parent' },
    },
  },
}

/** Counts every row's children: no index serves it, so the statement reads the whole table. */
const SLOW_READ = '/api/items/rx_items?sort=-count(children)&limit=1&fields=id'

const openFile = (filename: string): Knex =>
  knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      afterCreate: (connection: unknown, done: (error: Error | null, connection: unknown) => void) => {
        prepareSqliteConnection(connection)
        done(null, connection)
      },
    },
  })

/** Resolves when the reader sends its next statement to a thread. */
const nextStatement = (reader: Knex): Promise<void> => new Promise((resolve) => reader.once('query', () => resolve()))

const suite = selectedDialects().includes('sqlite') ? describe : describe.skip

suite('sqliteReader', () => {
  let dir: string
  let knex: Knex
  let reader: Knex

  const app = (options: Partial<ItemsRouterOptions> = {}): Express => {
    const host = express()
    host.use(
      '/api',
      createItemsRouter({ knex, defaultAccess: true, collections, logger: recordingLogger(), replica: { knex: reader }, ...options }),
    )
    host.get('/host/ping', (_req, res) => {
      res.json({ pong: true })
    })
    return host
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'items-reader-'))
    knex = openFile(join(dir, 'app.db'))
    await knex.raw('PRAGMA journal_mode = WAL')
    await knex.raw('create table rx_items (id integer primary key autoincrement, label text, parent integer)')
    await knex.raw(
      `insert into rx_items (id, label, parent) with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS}) ` +
        `select i, 'item ' || i, (i * 7919) % ${ROWS} + 1 from n`,
    )
    reader = sqliteReader(knex)
  })
  afterAll(async () => {
    await reader.destroy()
    await knex.destroy()
    rmSync(dir, { recursive: true, force: true })
  })

  it('refuses an in-memory database and a file outside WAL mode, naming what to change', async () => {
    const memory = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    const rollback = openFile(join(dir, 'rollback.db'))
    try {
      expect(() => sqliteReader(memory)).toThrow(ConfigError)
      expect(() => sqliteReader(memory)).toThrow(/in-memory database/)
      await rollback.raw('create table t (id integer primary key)')
      expect(() => sqliteReader(rollback)).toThrow(/WAL mode \(it is in "delete" mode\)/)
      expect(() => sqliteReader(knex, { threads: 0 })).toThrow(/threads/)
      expect(() => sqliteReader(reader)).toThrow(/host knex instance/)
    } finally {
      await memory.destroy()
      await rollback.destroy()
    }
  })

  it('answers reads as the host connection does, every statement on the reader', async () => {
    const withReader = app()
    const without = express().use('/api', createItemsRouter({ knex, defaultAccess: true, collections, logger: recordingLogger() }))
    const reads = [
      '/api/items/rx_items?limit=3&fields=id,label,parent.label,children&sort=-id&meta=*',
      '/api/items/rx_items/17?fields=*,children.label',
      '/api/items/rx_items?aggregate[count]=*&filter[id][_lt]=100',
      '/api/items/rx_items?search=item%2042&limit=5&fields=id',
      '/api/items/rx_items?filter[label][_icontains]=ITEM%2012&limit=2',
    ]
    const seen = await statementsOf(knex, reader, async () => {
      for (const path of reads) {
        const [on, off] = [await request(withReader).get(path), await request(without).get(path)]
        expect(on.status).toBe(200)
        expect(on.body).toEqual(off.body)
      }
    })
    // Each read ran once on each side: the router without a reader used the host's connection.
    expect(seen.replica.length).toBeGreaterThanOrEqual(reads.length)
    expect(seen.primary.length).toBe(seen.replica.length)
  })

  it("folds a read by id's key lists into its one statement on the reader, where each statement crosses to a thread", async () => {
    const withReader = app()
    const without = express().use('/api', createItemsRouter({ knex, defaultAccess: true, collections, logger: recordingLogger() }))
    const path = '/api/items/rx_items/17' // `*`: its `children` keys
    const on = await statementsOf(knex, reader, () => request(withReader).get(path).expect(200))
    const off = await statementsOf(knex, reader, () => request(without).get(path).expect(200))
    expect({ reader: on.replica.length, host: on.primary.length }).toEqual({ reader: 1, host: 0 })
    // On the host's own connection, a statement is a call with no round trip to spare: the item, then its keys.
    expect({ reader: off.replica.length, host: off.primary.length }).toEqual({ reader: 0, host: 2 })
    expect((await request(withReader).get(path)).body).toEqual((await request(without).get(path)).body)
  })

  it('keeps writes and their read-back on the host connection, and reads them at once afterwards', async () => {
    const served = app()
    const seen = await statementsOf(knex, reader, async () => {
      const patched = await request(served).patch('/api/items/rx_items/5?fields=label').send({ label: 'renamed' })
      expect(patched.body).toEqual({ data: { label: 'renamed' } })
    })
    expect(seen.replica).toEqual([])
    expect(seen.primary.some((sql) => /^update/i.test(sql))).toBe(true)
    expect((await request(served).get('/api/items/rx_items/5?fields=label')).body).toEqual({ data: { label: 'renamed' } })
  })

  it('serves other requests while a read runs on its thread', async () => {
    const served = app()
    const order: string[] = []
    const started = nextStatement(reader)
    const slow = request(served)
      .get(SLOW_READ)
      .then((response) => {
        order.push('slow read')
        return response
      })
    await started
    const ping = await request(served).get('/host/ping')
    order.push('host route')
    expect(ping.body).toEqual({ pong: true })
    expect((await slow).body).toEqual({ data: [{ id: 1 }] })
    expect(order).toEqual(['host route', 'slow read'])
  })

  it('without a reader, the same read holds every other request until it ends', async () => {
    const served = express()
      .use('/api', createItemsRouter({ knex, defaultAccess: true, collections, logger: recordingLogger() }))
      .get('/host/ping', (_req, res) => {
        res.json({ pong: true })
      })
    const order: string[] = []
    const started = new Promise<void>((resolve) => knex.once('query', () => resolve()))
    const slow = request(served)
      .get(SLOW_READ)
      .then(() => order.push('slow read'))
    await started
    await request(served)
      .get('/host/ping')
      .then(() => order.push('host route'))
    await slow
    expect(order).toEqual(['slow read', 'host route'])
  })

  it('stops a read past statementTimeout by ending its thread: 504, and the next read runs on a new thread', async () => {
    const served = app({ statementTimeout: 20 })
    // knex's pool finds the ended thread dead when it is next handed out, and replaces it.
    const pool = (
      reader.client as { pool: { on(event: string, fn: () => void): void; removeListener(event: string, fn: () => void): void } }
    ).pool
    let replaced = 0
    const onDestroyed = (): void => void (replaced += 1)
    pool.on('destroySuccess', onDestroyed)
    try {
      const timedOut = await request(served).get(SLOW_READ)
      expect(timedOut.status).toBe(504)
      expect(timedOut.body.errors[0].extensions.code).toBe('QUERY_TIMEOUT')
      // Through a router of the default limit, on the same reader: the new thread's first statement may take
      // longer than 20 ms on a loaded machine, which is not what this spec is about.
      const next = await request(app()).get('/api/items/rx_items/3?fields=id,label')
      expect(next.body).toEqual({ data: { id: 3, label: 'item 3' } })
      expect(replaced).toBe(1)
    } finally {
      pool.removeListener('destroySuccess', onDestroyed)
    }
  })

  it('ends the thread of a read whose client left, instead of letting the statement run to its end', async () => {
    const server = app().listen(0, '127.0.0.1')
    try {
      await new Promise((resolve) => server.once('listening', resolve))
      const { port } = server.address() as AddressInfo
      const ended = new Promise<unknown>((resolve) => reader.once('query-error', resolve))
      const started = nextStatement(reader)
      const client = get(`http://127.0.0.1:${port}${SLOW_READ}`)
      client.on('error', () => undefined)
      await started
      // Well inside the statement's few hundred ms: by now it runs on its thread.
      await new Promise((resolve) => setTimeout(resolve, 50))
      client.destroy()
      expect(await ended).toMatchObject({ code: 'ITEMS_READER_STOPPED' })
      expect((await request(server).get('/api/items/rx_items/4?fields=id')).body).toEqual({ data: { id: 4 } })
    } finally {
      server.close()
    }
  })
})
