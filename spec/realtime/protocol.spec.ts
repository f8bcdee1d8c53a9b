// The realtime protocol on one process, on every database: authentication (handshake and URL token),
// subscriptions in both query forms, init, events after REST writes, unsubscribe, heartbeat and errors.
import request from 'supertest'
import WebSocket from 'ws'
import { once } from 'node:events'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient, type RealtimeHost } from '../support/realtime'

forEachDialect((ctx) => {
  let host: RealtimeHost
  const open: TestClient[] = []
  const client = async (token: string | null = 'token-admin', url = host.wsUrl): Promise<TestClient> => {
    const made = await TestClient.open(url, token ?? undefined)
    open.push(made)
    return made
  }

  beforeAll(async () => {
    host = await startRealtimeHost(ctx.knex, { authTimeout: 300 })
  })
  afterAll(() => host.close())
  beforeEach(() => ctx.reset())
  afterEach(() => open.splice(0).forEach((each) => each.close()))

  describe('authentication', () => {
    it('accepts a token in an auth message', async () => {
      const ws = await client(null)
      expect(await ws.ask({ type: 'auth', access_token: 'token-admin', uid: 'a' })).toEqual({ type: 'auth', status: 'ok', uid: 'a' })
    })

    it('accepts a token in the URL, with no auth message', async () => {
      const ws = await client(null, `${host.wsUrl}?access_token=token-admin`)
      const init = await ws.ask({ type: 'subscribe', collection: 'authors', uid: 's', query: { fields: ['id'], limit: 1 } })
      expect(init).toEqual({ type: 'subscription', event: 'init', data: [{ id: 1 }], uid: 's' })
    })

    it('refuses the upgrade with 401 for a wrong token in the URL', async () => {
      const socket = new WebSocket(`${host.wsUrl}?access_token=nope`)
      socket.on('error', () => undefined)
      const [, response] = (await once(socket, 'unexpected-response')) as [unknown, { statusCode: number; resume(): void }]
      expect(response.statusCode).toBe(401)
      response.resume()
    })

    it('answers a refused token with AUTH_FAILED and closes with 4401', async () => {
      const ws = await client(null)
      ws.send({ type: 'auth', access_token: 'nope', uid: 'bad' })
      expect(await ws.next()).toEqual({
        type: 'auth',
        status: 'error',
        error: { code: 'AUTH_FAILED', message: 'The token was refused' },
        uid: 'bad',
      })
      expect(await ws.closedWith()).toEqual({ code: 4401, reason: 'AUTH_FAILED' })
    })

    it('answers a message before authentication with AUTH_FAILED and closes with 4401', async () => {
      const ws = await client(null)
      ws.send({ type: 'subscribe', collection: 'authors', uid: 'early' })
      expect(await ws.next()).toMatchObject({ type: 'auth', status: 'error', error: { code: 'AUTH_FAILED' }, uid: 'early' })
      expect((await ws.closedWith()).code).toBe(4401)
    })

    it('closes a connection that does not authenticate in time with AUTH_TIMEOUT (4408)', async () => {
      const ws = await client(null)
      expect(await ws.next()).toMatchObject({ type: 'auth', status: 'error', error: { code: 'AUTH_TIMEOUT' } })
      expect(await ws.closedWith()).toEqual({ code: 4408, reason: 'AUTH_TIMEOUT' })
    })
  })

  describe('subscriptions', () => {
    it('sends init as the query reads, in its JSON form and in its query-string form alike', async () => {
      const ws = await client()
      const query = { fields: ['id', 'name', 'articles'], filter: { id: { _lte: 3 } }, sort: ['-id'], limit: 2 }
      const json = await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'json', query })
      const text = await ws.ask({
        type: 'subscribe',
        collection: 'authors',
        uid: 'text',
        query: { fields: 'id,name,articles', filter: JSON.stringify(query.filter), sort: '-id', limit: '2' },
      })
      const rest = await request(host.server).get('/api/items/authors?fields=id,name,articles&filter[id][_lte]=3&sort=-id&limit=2')
      expect(json).toEqual({ type: 'subscription', event: 'init', data: rest.body.data, uid: 'json' })
      expect(text).toEqual({ ...json, uid: 'text' })
      expect((json.data as unknown[]).length).toBe(2)
    })

    it('sends create, update and delete after REST writes, keys in their JSON type', async () => {
      const ws = await client()
      await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'all', query: { fields: ['id', 'name'], limit: 1 } })
      const created = await request(host.server).post('/api/items/authors').send({ name: 'Live' })
      const id = created.body.data.id as number
      expect(await ws.answer('all')).toEqual({ type: 'subscription', event: 'create', data: [{ id, name: 'Live' }], uid: 'all' })
      await request(host.server).patch(`/api/items/authors/${id}`).send({ name: 'Live!' }).expect(200)
      expect(await ws.answer('all')).toEqual({ type: 'subscription', event: 'update', data: [{ id, name: 'Live!' }], uid: 'all' })
      await request(host.server).delete(`/api/items/authors/${id}`).expect(204)
      expect(await ws.answer('all')).toEqual({ type: 'subscription', event: 'delete', data: [id], uid: 'all' })
    })

    it('sends a batch write as one message with every item, in the subscription sort', async () => {
      const ws = await client()
      await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'sorted', query: { fields: ['name'], sort: ['-name'], limit: 1 } })
      await request(host.server)
        .post('/api/items/authors')
        .send([{ name: 'Batch A' }, { name: 'Batch B' }])
        .expect(200)
      expect(await ws.answer('sorted')).toEqual({
        type: 'subscription',
        event: 'create',
        data: [{ name: 'Batch B' }, { name: 'Batch A' }],
        uid: 'sorted',
      })
    })

    it('sends a subscription to one event only that event, and its init without data', async () => {
      const ws = await client()
      expect(await ws.ask({ type: 'subscribe', collection: 'authors', event: 'update', uid: 'upd', query: { fields: ['id'] } })).toEqual({
        type: 'subscription',
        event: 'init',
        uid: 'upd',
      })
      await request(host.server).post('/api/items/authors').send({ name: 'Unheard' }).expect(200)
      await request(host.server).patch('/api/items/authors/2').send({ bio: 'heard' }).expect(200)
      expect(await ws.answer('upd')).toEqual({ type: 'subscription', event: 'update', data: [{ id: 2 }], uid: 'upd' })
      expect(await ws.quiet('upd')).toEqual([])
    })

    it('ends a subscription on unsubscribe, and every one on an unsubscribe without uid', async () => {
      const ws = await client()
      await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'one', query: { limit: 1 } })
      await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'two', query: { limit: 1 } })
      expect(await ws.ask({ type: 'unsubscribe', uid: 'one' })).toEqual({ type: 'subscription', event: 'unsubscribe', uid: 'one' })
      await request(host.server).patch('/api/items/authors/1').send({ bio: 'x' }).expect(200)
      expect(await ws.answer('two')).toMatchObject({ event: 'update' })
      expect(ws.frames.filter((frame) => frame.uid === 'one' && frame.event === 'update')).toEqual([])
      ws.send({ type: 'unsubscribe' })
      expect(await ws.next()).toEqual({ type: 'subscription', event: 'unsubscribe' })
      expect(host.realtime.subscriptions).toBe(0)
      await request(host.server).patch('/api/items/authors/1').send({ bio: 'y' }).expect(200)
      expect(await ws.quiet('two')).toEqual([])
    })
  })

  describe('heartbeat', () => {
    it('answers ping with pong', async () => {
      const ws = await client()
      expect(await ws.ask({ type: 'ping', uid: 'p' })).toEqual({ type: 'pong', uid: 'p' })
    })

    it('pings, keeps a client that answers and closes one that does not (4000)', async () => {
      const fast = await startRealtimeHost(ctx.knex, { heartbeatInterval: 150 })
      try {
        const answering = await TestClient.open(fast.wsUrl, 'token-admin')
        const silent = await TestClient.open(fast.wsUrl, 'token-admin')
        answering.socket.on('message', (data) => {
          if ((JSON.parse(data.toString()) as { type: string }).type === 'ping') answering.send({ type: 'pong' })
        })
        expect(await silent.next((frame) => frame.type === 'ping')).toEqual({ type: 'ping' })
        expect(await silent.closedWith()).toEqual({ code: 4000, reason: 'HEARTBEAT_TIMEOUT' })
        expect(answering.closed).toBeNull()
        expect(await answering.ask({ type: 'ping', uid: 'still' })).toEqual({ type: 'pong', uid: 'still' })
        answering.close()
      } finally {
        await fast.close()
      }
    })
  })

  describe('errors', () => {
    it('answers every bad message with its uid and keeps the connection and its subscriptions', async () => {
      const ws = await client()
      await ws.ask({ type: 'subscribe', collection: 'authors', uid: 'kept', query: { fields: ['id'], limit: 1 } })
      const cases: [Record<string, unknown>, Record<string, unknown>][] = [
        [
          { type: 'subscribe', collection: 'nope', uid: 'e1' },
          { type: 'subscribe', code: 'FORBIDDEN' },
        ],
        [
          { type: 'subscribe', collection: 'authors', uid: 'e2', query: { filter: { nosuch: { _eq: 1 } } } },
          { type: 'subscribe', code: 'INVALID_QUERY' },
        ],
        [
          { type: 'subscribe', collection: 'authors', uid: 'e3', query: { fields: ['password_hash'] } },
          { type: 'subscribe', code: 'INVALID_QUERY' },
        ],
        [
          { type: 'subscribe', collection: 'authors', uid: 'e4', event: 'bogus' },
          { type: 'subscribe', code: 'INVALID_PAYLOAD' },
        ],
        [
          { type: 'subscribe', uid: 'e5' },
          { type: 'subscribe', code: 'INVALID_PAYLOAD' },
        ],
        [
          { type: 'subscribe', collection: 'authors', uid: 'kept' },
          { type: 'subscribe', code: 'INVALID_PAYLOAD' },
        ],
        [
          { type: 'subscribe', collection: 'authors', uid: 'e7', query: { aggregate: { count: '*' } } },
          { type: 'subscribe', code: 'INVALID_QUERY' },
        ],
        [
          { type: 'bogus', uid: 'e8' },
          { type: 'bogus', code: 'INVALID_PAYLOAD' },
        ],
        [{ uid: 'e9' }, { type: 'server', code: 'INVALID_PAYLOAD' }],
      ]
      for (const [message, expected] of cases) {
        const answer = await ws.ask(message as Record<string, unknown> & { uid: string })
        expect({ type: answer.type, status: answer.status, code: (answer.error as { code: string }).code, uid: answer.uid }).toEqual({
          type: expected.type,
          status: 'error',
          code: expected.code,
          uid: message.uid,
        })
      }
      ws.send('not json')
      expect(await ws.next()).toMatchObject({ type: 'server', status: 'error', error: { code: 'INVALID_PAYLOAD' } })
      await request(host.server).patch('/api/items/authors/1').send({ bio: 'z' }).expect(200)
      expect(await ws.answer('kept')).toEqual({ type: 'subscription', event: 'update', data: [{ id: 1 }], uid: 'kept' })
      expect(ws.closed).toBeNull()
    })
  })
})
