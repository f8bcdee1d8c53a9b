// Realtime's bounds, on every database: connections, subscriptions per connection, message size, a slow
// consumer's send buffer, and shutdown; a connection past a bound is closed with its code, the others go on.
import { createItemsRouter } from '../../lib'
import { collections } from '../../fixtures/schema'
import { createServer } from 'node:http'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient, type RealtimeHost } from '../support/realtime'

forEachDialect((ctx) => {
  const hosts: RealtimeHost[] = []
  const clients: TestClient[] = []
  const host = async (options: Parameters<typeof startRealtimeHost>[1]): Promise<RealtimeHost> => {
    const started = await startRealtimeHost(ctx.knex, options)
    hosts.push(started)
    return started
  }
  const client = async (at: RealtimeHost, token: string | null = 'token-admin'): Promise<TestClient> => {
    const opened = await TestClient.open(at.wsUrl, token ?? undefined)
    clients.push(opened)
    return opened
  }

  beforeAll(() => ctx.reset())
  afterEach(async () => {
    clients.splice(0).forEach((each) => each.close())
    await Promise.all(hosts.splice(0).map((each) => each.close()))
  })

  it('closes a connection past maxConnections with 1013, and keeps the others', async () => {
    const at = await host({ maxConnections: 2 })
    const first = await client(at)
    await client(at)
    const third = await client(at, null)
    expect(await third.closedWith()).toEqual({ code: 1013, reason: 'TOO_MANY_CONNECTIONS' })
    expect(await first.ask({ type: 'ping', uid: 'p' })).toEqual({ type: 'pong', uid: 'p' })
    expect(at.realtime.connections).toBe(2)
  })

  it('refuses a subscription past maxSubscriptions with LIMIT_EXCEEDED and its uid, and keeps the others', async () => {
    const at = await host({ maxSubscriptions: 2 })
    const ws = await client(at)
    await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'a', query: { fields: ['id'], limit: 1 } })
    await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'b', query: { fields: ['id'], limit: 1 } })
    expect(await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'c' })).toEqual({
      type: 'subscribe',
      status: 'error',
      error: { code: 'LIMIT_EXCEEDED', message: 'A connection holds at most 2 subscriptions' },
      uid: 'c',
    })
    await ws.ask({ type: 'unsubscribe', uid: 'a' })
    expect(await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'c', query: { fields: ['id'], limit: 1 } })).toMatchObject({
      event: 'init',
    })
  })

  it('closes a connection that sends a message past maxMessageBytes with 1009, and no other', async () => {
    const at = await host({ maxMessageBytes: 1024 })
    const other = await client(at)
    const ws = await client(at)
    ws.send({ type: 'ping', uid: 'x'.repeat(2000) })
    expect((await ws.closedWith()).code).toBe(1009)
    expect(await other.ask({ type: 'ping', uid: 'p' })).toEqual({ type: 'pong', uid: 'p' })
  })

  it('closes a client that reads slower than its messages come with 4429, rather than buffering them', async () => {
    const at = await host({ maxBufferedBytes: 64 * 1024, maxSubscriptions: 1000 })
    const ws = await client(at)
    ws.socket.pause()
    // Each init is a page of 100 articles: far more than the socket's buffers hold once the client stops reading.
    for (let index = 0; index < 400 && at.realtime.connections > 0; index++) {
      ws.send({ type: 'subscribe', collection: 'articles', uid: `s${index}`, query: { fields: ['*'], limit: 100 } })
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    ws.socket.resume()
    expect(await ws.closedWith(10_000)).toEqual({ code: 4429, reason: 'SLOW_CONSUMER' })
  })

  it('closes every connection with 1001 on close(), and answers no upgrade after it', async () => {
    const at = await host({})
    const ws = await client(at)
    await at.realtime.close()
    expect(await ws.closedWith()).toEqual({ code: 1001, reason: 'SHUTDOWN' })
    expect(at.realtime.connections).toBe(0)
  })

  it('refuses options that cannot work when attaching', () => {
    const router = createItemsRouter({ knex: ctx.knex, collections })
    const server = createServer()
    expect(() => router.attachRealtime(server)).toThrow(/authenticate is needed unless publicAccess/)
    expect(() => router.attachRealtime(server, { publicAccess: true, maxConnection: 5 } as object)).toThrow(
      /maxConnection is not an option/,
    )
    expect(() => router.attachRealtime(server, { publicAccess: true, maxSubscriptions: 0 })).toThrow(
      /maxSubscriptions must be a whole number/,
    )
    expect(server.listenerCount('upgrade')).toBe(0)
  })
})
