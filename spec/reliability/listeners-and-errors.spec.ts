// Listeners cannot hurt each other or the response, and unexpected errors are logged with the request's method,
// path and id (never bound values), answered with that id, or handed to the host's error middleware on request.
import express, { type ErrorRequestHandler, type Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsRouter, type ItemsRouterOptions } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'

const GHOSTS: ItemsRouterOptions['collections'] = {
  ghosts: { table: 'no_such_table', fields: { id: { type: 'integer', primaryKey: true }, token: { type: 'string' } } },
}

/** A logger that keeps messages and errors side by side. */
function messageLogger(): ItemsRouterOptions['logger'] & { entries: Array<{ message: string; error: unknown }> } {
  const entries: Array<{ message: string; error: unknown }> = []
  return { entries, error: (message, error) => entries.push({ message, error }), warn: () => undefined }
}

interface Host {
  app: Express
  router: ItemsRouter
  logger: ReturnType<typeof messageLogger>
  hostErrors: unknown[]
}

const flush = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20))

forEachDialect((ctx) => {
  function host(options: Partial<ItemsRouterOptions> = {}): Host {
    const logger = messageLogger()
    const hostErrors: unknown[] = []
    const router = createItemsRouter({
      knex: ctx.knex,
      defaultAccess: true,
      collections: { ...collections, ...GHOSTS },
      logger,
      ...options,
    })
    const app = express()
    app.use('/api', router)
    const hostHandler: ErrorRequestHandler = (error, _req, res, _next) => {
      hostErrors.push(error)
      res.status(502).json({ host: true })
    }
    app.use(hostHandler)
    return { app, router, logger, hostErrors }
  }

  describe('event listeners', () => {
    beforeEach(() => ctx.reset())

    it('a listener that throws does not stop the listeners after it, nor the response; the failure is logged', async () => {
      const { app, router, logger } = host()
      const heard: string[] = []
      router.events.on('items.create', () => {
        throw new Error('first listener broke')
      })
      router.events.on('items.create', () => heard.push('second'))
      router.events.on('authors.items.create', () => heard.push('collection'))
      const response = await request(app).post('/api/items/authors').send({ name: 'Listener' })
      expect(response.status).toBe(200)
      expect(heard).toEqual(['second', 'collection'])
      expect(logger.entries.map((entry) => entry.message)).toEqual(['express-items-router: a listener of "items.create" failed'])
      expect((logger.entries[0]!.error as Error).message).toBe('first listener broke')
    })

    it('an async listener that rejects is logged and the others run', async () => {
      const { app, router, logger } = host()
      const heard: string[] = []
      router.events.on('items.update', async () => {
        await Promise.resolve()
        throw new Error('async listener broke')
      })
      router.events.on('items.update', () => heard.push('after'))
      const response = await request(app).patch('/api/items/authors/1').send({ name: 'Renamed' })
      expect(response.status).toBe(200)
      await flush()
      expect(heard).toEqual(['after'])
      expect(logger.entries).toHaveLength(1)
      expect((logger.entries[0]!.error as Error).message).toBe('async listener broke')
    })

    it('once listeners still run once', async () => {
      const { app, router } = host()
      let calls = 0
      router.events.once('items.delete', () => calls++)
      await request(app).delete('/api/items/comments/1')
      await request(app).delete('/api/items/comments/2')
      expect(calls).toBe(1)
    })
  })

  describe('unexpected errors', () => {
    it('are logged with method, path and a generated request id, which the 500 carries', async () => {
      const { app, logger } = host()
      const response = await request(app).get('/api/items/ghosts?filter[token][_eq]=secret-token-42')
      const error = expectError(response, 500, 'INTERNAL_SERVER_ERROR')
      const requestId = error.extensions.requestId as string
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/)
      expect(response.headers['x-request-id']).toBe(requestId)
      expect(logger.entries).toHaveLength(1)
      expect(logger.entries[0]!.message).toBe(`express-items-router: unexpected error in GET /api/items/ghosts (request ${requestId})`)
    })

    // SQLite's statements carry no marker: nothing could cancel them by it.
    if (ctx.name !== 'sqlite') {
      it('carry the id the failed statement was marked with, so the log line leads to the statement', async () => {
        const { app } = host()
        const { result: response, sql } = await ctx.countQueries(() => request(app).get('/api/items/ghosts'))
        const requestId = expectError(response, 500, 'INTERNAL_SERVER_ERROR').extensions.requestId as string
        expect(sql.some((statement) => statement.startsWith(`/* items-router ${requestId} */`))).toBe(true)
      })
    }

    it('honour an incoming X-Request-Id', async () => {
      const { app, logger } = host()
      const response = await request(app).get('/api/items/ghosts').set('X-Request-Id', 'req-abc.123')
      expect(expectError(response, 500, 'INTERNAL_SERVER_ERROR').extensions.requestId).toBe('req-abc.123')
      expect(logger.entries[0]!.message).toContain('(request req-abc.123)')
    })

    it('replace an X-Request-Id that is too long or not printable', async () => {
      const { app } = host()
      const response = await request(app).get('/api/items/ghosts').set('X-Request-Id', 'x'.repeat(201))
      expect(expectError(response, 500, 'INTERNAL_SERVER_ERROR').extensions.requestId).toMatch(/^[0-9a-f-]{36}$/)
    })

    it('are logged without the values bound to the failed statement', async () => {
      const { app, logger } = host()
      await request(app).get('/api/items/ghosts?filter[token][_eq]=secret-token-42')
      await request(app).post('/api/items/ghosts').send({ id: 1, token: 'secret-token-43' })
      expect(logger.entries).toHaveLength(2)
      for (const { error } of logger.entries) {
        const logged = error as Error & Record<string, unknown>
        const text = `${logged.message} ${logged.stack ?? ''} ${JSON.stringify({ ...logged })}`
        expect(text).not.toContain('secret-token')
      }
    })

    it('go to the host error middleware with passUnexpectedErrors, still logged, with requestId set', async () => {
      const { app, logger, hostErrors } = host({ passUnexpectedErrors: true })
      const response = await request(app).get('/api/items/ghosts').set('X-Request-Id', 'host-1')
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 502, body: { host: true } })
      expect(hostErrors).toHaveLength(1)
      expect((hostErrors[0] as { requestId?: unknown }).requestId).toBe('host-1')
      expect(logger.entries).toHaveLength(1)
    })

    it('client errors never reach the host error middleware', async () => {
      const { app, hostErrors } = host({ passUnexpectedErrors: true })
      expectError(await request(app).get('/api/items/articles?limit=abc'), 400, 'INVALID_QUERY')
      expectError(await request(app).get('/api/items/%E0%A4%A'), 404, 'ROUTE_NOT_FOUND')
      expect(hostErrors).toEqual([])
    })
  })
})
