// The peer `npm run bench` measures the router against besides the hand-written handlers: Feathers 5 over
// `@feathersjs/knex`, what a Node developer would pick for a REST service over the same tables instead. One
// service per table, with Feathers' defaults (no pagination, its own query syntax, its Express 4 app), serving the
// shapes it can: plain lists with filter, sort and select; one item by key; create, patch and remove one.
// It runs in the bench's process, on the bench's knex instance, and listens on a port of its own.
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { feathers } from '@feathersjs/feathers'
import express, { errorHandler, json, rest } from '@feathersjs/express'
import { KnexService } from '@feathersjs/knex'
import type { Knex } from 'knex'

/** A table of the bench's own for the removes, which must find a row to remove on both sides. */
export const SCRATCH_TABLE = 'bench_scratch'

/** The scratch table's collection, beside the fixtures' for the router. */
export const scratchCollection = {
  fields: {
    id: { type: 'integer', primaryKey: true },
    title: { type: 'string', maxLength: 100 },
  },
} as const

export async function createScratchTable(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists(SCRATCH_TABLE)
  await knex.schema.createTable(SCRATCH_TABLE, (table) => {
    table.integer('id').primary()
    table.string('title', 100)
  })
}

/** Adds the scratch rows of keys `from` to `to` (excluded) that are not there yet. */
export async function seedScratch(knex: Knex, from: number, to: number): Promise<void> {
  for (let first = from; first < to; first += 400) {
    const rows = Array.from({ length: Math.min(400, to - first) }, (_, i) => ({ id: first + i, title: `Scratch ${first + i}` }))
    await knex(SCRATCH_TABLE).insert(rows).onConflict('id').ignore()
  }
}

/** Starts the Feathers app on a port of its own; resolves to its base URL and a way to close it. */
export async function startFeathers(knex: Knex): Promise<{ base: string; close: () => void }> {
  const app = express(feathers())
  app.use(json({ limit: '5mb' }))
  app.configure(rest())
  app.use('articles', new KnexService({ Model: knex, name: 'articles' }))
  app.use(SCRATCH_TABLE, new KnexService({ Model: knex, name: SCRATCH_TABLE }))
  app.use(errorHandler({ logger: false }))
  const server: Server = await app.listen(0)
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}
