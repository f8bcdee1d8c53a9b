// The second router process of spec/realtime/processes.spec.ts: the fixtures' router on the spec's database, with
// realtime attached through the broker the spec names. Prints its port once listening; stops when stdin ends.
import express from 'express'
import knexFactory from 'knex'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createClient } from 'redis'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, createPostgresBroker, createRedisBroker, type PostgresBrokerClient, type RealtimeBroker } from '../../lib'
import { tokenCaller } from '../support/realtime'

export interface ProcessSetup {
  readonly knex: object
  readonly engine: 'postgres' | 'redis'
  readonly channel: string
  /** For the PostgreSQL broker. */
  readonly pg: object
}

// pg ships no types of its own; the broker names the part of its Client it uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (config: object) => PostgresBrokerClient }

export function brokerFor(setup: ProcessSetup): RealtimeBroker {
  const logger = { error: () => undefined }
  return setup.engine === 'postgres'
    ? createPostgresBroker({ client: () => new Client(setup.pg), channel: setup.channel, logger })
    : createRedisBroker({ client: createClient({ url: 'redis://127.0.0.1:6379' }), channel: setup.channel, logger })
}

async function main(): Promise<void> {
  const setup = JSON.parse(process.env.REALTIME_PROCESS!) as ProcessSetup
  const knex = knexFactory(setup.knex)
  const router = createItemsRouter({ knex, collections, defaultAccess: true, logger: { error: () => undefined, warn: () => undefined } })
  const server = createServer(express().use('/api', router))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const realtime = router.attachRealtime(server, { path: '/api/websocket', authenticate: tokenCaller, broker: brokerFor(setup) })
  await realtime.ready
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`)
  process.stdin.resume()
  process.stdin.on('end', () => {
    void realtime.close().then(async () => {
      server.closeAllConnections()
      server.close()
      await knex.destroy()
      process.exit(0)
    })
  })
}

if (require.main === module) void main()
