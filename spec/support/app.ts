// Test support: a host Express app with the router mounted under /api, and a host route behind it.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsRouterOptions } from '../../lib'

/** A silent logger that keeps what it was told, so specs can assert that a 500 was logged. */
export function recordingLogger(): ItemsRouterOptions['logger'] & { errors: unknown[] } {
  const errors: unknown[] = []
  return { errors, error: (_message, error) => errors.push(error), warn: () => undefined }
}

/** The fixtures' app; writes are open (`defaultAccess: true`) unless `options` says otherwise. */
export function createApp(knex: Knex, options: Partial<ItemsRouterOptions> = {}): Express {
  const app = express()
  app.use('/api', createItemsRouter({ knex, collections, logger: recordingLogger(), defaultAccess: true, ...options }))
  // Requests the router does not serve must reach the host's own routes.
  app.get('/api/health', (_req, res) => {
    res.json({ ok: true })
  })
  return app
}
