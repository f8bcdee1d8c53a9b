// examples/pg-notify-events.ts on PostgreSQL: one router's writes reach a listener on another connection, as
// they would reach another process; events too large for one NOTIFY arrive as keys, split under the limit.
import { randomUUID } from 'node:crypto'
import type { Express } from 'express'
import express from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsEvent } from '../../lib'
import { forwardEvents, listenToEvents, MAX_PAYLOAD_BYTES, notifications, type ForwardedEvent } from '../../examples/pg-notify-events'
import { recordingLogger } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'

// One channel per run: other runs on this machine notify on the same server.
const CHANNEL = `items_events_spec_${randomUUID().replace(/-/g, '')}`

forEachDialect((ctx) => {
  if (ctx.name !== 'postgres') {
    it.skip('LISTEN/NOTIFY is PostgreSQL only', () => undefined)
    return
  }

  let app: Express
  let heard: ForwardedEvent[]
  let stopListening: () => Promise<void>
  let stopForwarding: () => void
  let listener: Knex

  beforeAll(async () => {
    const router = createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections, logger: recordingLogger() })
    app = express().use('/api', router)
    stopForwarding = forwardEvents(router.events, ctx.knex, CHANNEL, 'process-a')
    heard = []
    // A knex instance of its own, as another process would have.
    listener = knexFactory(knexConfig('postgres'))
    stopListening = await listenToEvents(listener, CHANNEL, (event) => heard.push(event))
  })
  afterAll(async () => {
    stopForwarding()
    await stopListening()
    await listener.destroy()
  })
  beforeEach(async () => {
    await ctx.reset()
    heard.length = 0
  })

  const arrival = async (count: number): Promise<ForwardedEvent[]> => {
    for (let waited = 0; heard.length < count && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
    return heard
  }

  it('delivers a write to a listener on another connection', async () => {
    const created = await request(app).post('/api/items/authors').send({ name: 'Heard' })
    expect(created.status).toBe(200)
    const id = created.body.data.id as number
    expect((await request(app).delete(`/api/items/authors/${id}`)).status).toBe(204)
    expect(await arrival(2)).toEqual([
      { action: 'create', collection: 'authors', keys: [id], payloads: [{ name: 'Heard' }], origin: 'process-a' },
      { action: 'delete', collection: 'authors', keys: [id], payloads: [], origin: 'process-a' },
    ])
  })

  it('sends no notification for a write that rolled back', async () => {
    expect(
      (
        await request(app)
          .post('/api/items/articles')
          .send([{ title: 'ok' }, { title: null }])
      ).status,
    ).toBe(400)
    await request(app).post('/api/items/authors').send({ name: 'After' })
    const events = await arrival(1)
    expect(events.map((event) => event.collection)).toEqual(['authors'])
  })

  it('sends the keys of a write too large for one notification, in parts under the limit', async () => {
    const body = 'x'.repeat(3000)
    const created = await request(app)
      .post('/api/items/authors')
      .send(Array.from({ length: 40 }, (_, index) => ({ name: `Big ${index}`, bio: body })))
    expect(created.status).toBe(200)
    const events = await arrival(1)
    expect(events.every((event) => event.payloads === undefined)).toBe(true)
    expect(events.flatMap((event) => event.keys)).toEqual(created.body.data.map((item: { id: number }) => item.id))
  })

  it('keeps every notification of many keys under the limit', () => {
    const event: ItemsEvent = {
      action: 'update',
      collection: 'samples',
      keys: Array.from({ length: 2000 }, (_, index) => `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`),
      payloads: [],
      context: {},
    }
    const parts = notifications(event, 'p')
    expect(parts.length).toBeGreaterThan(1)
    for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES)
    expect(parts.flatMap((part) => (JSON.parse(part) as ForwardedEvent).keys)).toEqual(event.keys)
  })
})
