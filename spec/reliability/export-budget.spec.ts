// Exports share the process: a client that stops reading stops the reading of its rows (backpressure), one that
// never reads is cut off after exportIdleTimeout, and maxConcurrentExports bounds the exports running at once
// (503 TOO_MANY_EXPORTS with Retry-After past it), each place given back however its export ends.
import express, { type Express } from 'express'
import http from 'node:http'
import type net from 'node:net'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsRouterOptions } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { createLargeRows, LARGE_BODY, largeRows, serveOnSocket, stalledClient } from '../support/stalled-export'

const TABLE = 'export_blobs'
const ROWS = 40
/** One row per chunk, so that each chunk read is a statement of its own to count. */
const EXPORT = `/api/items/${TABLE}?fields=id,body&limit=-1&export=csv`

const blobs = {
  [TABLE]: largeRows,
  // A collection whose table does not exist: its export fails at its first statement.
  missing_table: { fields: { id: { type: 'integer', primaryKey: true, autoIncrement: true } } },
} as const

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The whole answer of a plain GET over the socket. */
function get(path: string, url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ socketPath: path, path: url }, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
      })
      .on('error', reject)
  })
}

/** The status of a small export once it is not 503 any more, asking every 100 ms at most `attempts` times. */
async function statusWithin(path: string, attempts: number): Promise<number> {
  let status = 503
  for (let attempt = 0; attempt < attempts && status === 503; attempt++) {
    await sleep(100)
    status = (await get(path, `/api/items/${TABLE}?fields=id&limit=1&export=csv`)).status
  }
  return status
}

forEachDialect((ctx) => {
  describe('export budget and backpressure', () => {
    const appWith = (options: Partial<ItemsRouterOptions> = {}): Express => {
      const app = express()
      const router = createItemsRouter({
        knex: ctx.knex,
        collections: { ...collections, ...blobs },
        logger: recordingLogger(),
        defaultAccess: true,
        maxLoadedRows: 1,
        ...options,
      })
      app.use('/api', router)
      return app
    }

    /** Statements that read the export's table, counted while `run` runs and until none has come for a while. */
    async function chunkReads(run: () => Promise<void>): Promise<number> {
      let reads = 0
      const counter = ({ sql }: { sql: string }): void => {
        if (sql.includes(TABLE)) reads++
      }
      ctx.knex.on('query', counter)
      try {
        await run()
        // Until the reads settle: a loaded machine may take its time to fill the buffers.
        let settled = -1
        for (let wait = 0; wait < 25 && settled !== reads; wait++) {
          settled = reads
          await sleep(300)
        }
        return reads
      } finally {
        ctx.knex.off('query', counter)
      }
    }

    beforeAll(async () => {
      await createLargeRows(ctx.knex, TABLE, ROWS)
    })

    afterAll(async () => {
      await ctx.knex.schema.dropTableIfExists(TABLE)
    })

    it('stops reading rows while the client takes none, and reads on when it does', async () => {
      const { path, close } = await serveOnSocket(appWith())
      try {
        let full = ''
        const whole = await chunkReads(async () => {
          full = (await get(path, EXPORT)).body
        })
        expect(full.split('\r\n').length).toBe(ROWS + 2)
        let client: net.Socket | undefined
        const stalled = await chunkReads(async () => {
          const { socket, head } = await stalledClient(path, EXPORT)
          client = socket
          expect(head).toMatch(/^HTTP\/1\.1 200/)
        })
        // The kernel holds a couple of rows, Node one chunk more: far from the whole table.
        expect(stalled).toBeLessThan(whole / 2)
        let received = 0
        client!.on('data', (data: Buffer) => (received += data.length))
        const ended = new Promise((resolve) => client!.once('end', resolve))
        client!.resume()
        await ended
        expect(received).toBeGreaterThan(LARGE_BODY.length * (ROWS - 1))
      } finally {
        await close()
      }
    })

    it('answers 503 TOO_MANY_EXPORTS with Retry-After past maxConcurrentExports; other requests go on', async () => {
      const app = appWith({ maxConcurrentExports: 1 })
      const { path, close } = await serveOnSocket(app)
      try {
        const { socket } = await stalledClient(path, EXPORT)
        const refused = await get(path, EXPORT)
        expect(refused.status).toBe(503)
        expect(refused.headers['retry-after']).toBe('1')
        expect(JSON.parse(refused.body)).toEqual({
          errors: [
            {
              message: '1 exports are running, the most maxConcurrentExports allows; try again shortly.',
              extensions: { code: 'TOO_MANY_EXPORTS', limit: 1 },
            },
          ],
        })
        const listed = await request(app).get(`/api/items/${TABLE}?fields=id&limit=1`)
        expect(listed.status).toBe(200)
        expect(listed.body.data).toHaveLength(1)
        socket.destroy()
      } finally {
        await close()
      }
    })

    it('gives the place back when the client leaves mid-download', async () => {
      const { path, close } = await serveOnSocket(appWith({ maxConcurrentExports: 1 }))
      try {
        const { socket } = await stalledClient(path, EXPORT)
        expect((await get(path, EXPORT)).status).toBe(503)
        socket.destroy()
        // The server hears of the close on its own time; the place comes back with it.
        expect(await statusWithin(path, 50)).toBe(200)
      } finally {
        await close()
      }
    })

    it('gives the place back when the export fails', async () => {
      const app = appWith({ maxConcurrentExports: 1 })
      for (let attempt = 0; attempt < 3; attempt++) {
        const failed = await request(app).get('/api/items/missing_table?limit=-1&export=csv')
        expect(failed.status).toBeGreaterThanOrEqual(400)
      }
      const exported = await request(app).get(`/api/items/${TABLE}?fields=id&limit=-1&export=csv`)
      expect(exported.status).toBe(200)
      expect(exported.text.split('\r\n')).toHaveLength(ROWS + 2)
    })

    it('cuts a client that takes nothing for exportIdleTimeout and gives its place back', async () => {
      const { path, close } = await serveOnSocket(appWith({ maxConcurrentExports: 1, exportIdleTimeout: 200 }))
      try {
        const { socket } = await stalledClient(path, EXPORT)
        // The client neither reads nor leaves; the place comes back once the server cuts it off.
        expect(await statusWithin(path, 100)).toBe(200)
        socket.destroy()
      } finally {
        await close()
      }
    })
  })
})
