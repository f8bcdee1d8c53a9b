// @directus/sdk's realtime(), unchanged, against the router on every database: subscribe, events after REST
// writes, unsubscribe and items over the socket. Node 20 has no global WebSocket: the SDK takes ws's.
import { createDirectus, createItem, realtime, rest, staticToken } from '@directus/sdk'
import WebSocket from 'ws'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, type RealtimeHost } from '../support/realtime'

interface Author {
  id: number
  name: string
}

forEachDialect((ctx) => {
  let host: RealtimeHost

  beforeAll(async () => {
    host = await startRealtimeHost(ctx.knex)
  })
  afterAll(() => host.close())
  beforeEach(() => ctx.reset())

  const sdk = (authMode: 'handshake' | 'strict') =>
    createDirectus<{ authors: Author[] }>(`${host.url}/api`, { globals: { WebSocket } })
      .with(staticToken('token-admin'))
      .with(rest())
      // The SDK puts /websocket at the root of the URL; under a mount path it is given the whole URL.
      .with(realtime({ url: host.wsUrl, authMode, reconnect: false }))

  /**
   * Every message the subscription's iterator yields, collected as a `for await` loop would. `count` waits for the
   * nth (up to 20 s: a loaded CI machine has taken over 5 s to deliver one).
   */
  function collect(subscription: AsyncGenerator<unknown>): {
    messages: Record<string, unknown>[]
    count(n: number): Promise<Record<string, unknown>[]>
  } {
    const messages: Record<string, unknown>[] = []
    void (async () => {
      for await (const message of subscription) messages.push(message as Record<string, unknown>)
    })()
    return {
      messages,
      async count(n) {
        for (let waited = 0; messages.length < n && waited < 20000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
        return messages
      },
    }
  }

  it.each(['handshake', 'strict'] as const)(
    'subscribes with a filter and hears only the REST writes it matches (%s authentication)',
    async (authMode) => {
      const client = sdk(authMode)
      await client.connect()
      try {
        const { subscription, unsubscribe } = await client.subscribe('authors', {
          query: { fields: ['id', 'name'], filter: { name: { _starts_with: 'SDK' } } },
        })
        const heard = collect(subscription)
        expect(await heard.count(1)).toEqual([{ type: 'subscription', event: 'init', data: [], uid: '1' }])
        await client.request(createItem('authors', { name: 'Other' }))
        const { id } = await client.request(createItem('authors', { name: 'SDK one' }))
        expect(await heard.count(2)).toEqual([
          { type: 'subscription', event: 'init', data: [], uid: '1' },
          { type: 'subscription', event: 'create', data: [{ id, name: 'SDK one' }], uid: '1' },
        ])
        unsubscribe()
        await client.request(createItem('authors', { name: 'SDK two' }))
        await new Promise((resolve) => setTimeout(resolve, 200))
        expect(heard.messages.map((message) => message.event)).toEqual(['init', 'create', 'unsubscribe'])
      } finally {
        client.disconnect()
      }
    },
  )

  it('delivers create, update and delete to the iterator, for REST writes and items over the socket', async () => {
    const client = sdk('handshake')
    await client.connect()
    try {
      const { subscription, unsubscribe } = await client.subscribe('authors', { query: { fields: ['id', 'name'], limit: 1 } })
      const heard = collect(subscription)
      await heard.count(1)
      const { id } = await client.request(createItem('authors', { name: 'Heard' }))
      await heard.count(2)
      client.sendMessage({ type: 'items', action: 'update', collection: 'authors', id, data: { name: 'Heard!' } })
      // The delete waits for the update's message: sent earlier, it could remove the row before the update's
      // delivery reads it, and the update would then rightly reach the client as the item leaving (a delete).
      expect((await heard.count(3))[2]).toEqual({ type: 'subscription', event: 'update', data: [{ id, name: 'Heard!' }], uid: '1' })
      client.sendMessage({ type: 'items', action: 'delete', collection: 'authors', id })
      expect((await heard.count(4)).slice(1)).toEqual([
        { type: 'subscription', event: 'create', data: [{ id, name: 'Heard' }], uid: '1' },
        { type: 'subscription', event: 'update', data: [{ id, name: 'Heard!' }], uid: '1' },
        { type: 'subscription', event: 'delete', data: [id], uid: '1' },
      ])
      unsubscribe()
    } finally {
      client.disconnect()
    }
  })

  it('answers items actions sent with sendMessage', async () => {
    const client = sdk('handshake')
    await client.connect()
    try {
      const answer = new Promise((resolve) => {
        const stop = client.onWebSocket('message', (message: { type?: string }) => {
          if (message.type === 'items') {
            stop()
            resolve(message)
          }
        })
      })
      client.sendMessage({ type: 'items', action: 'read', collection: 'authors', query: { fields: ['id'], sort: ['id'], limit: 2 } })
      expect(await answer).toEqual({ type: 'items', data: [{ id: 1 }, { id: 2 }], uid: '1' })
    } finally {
      client.disconnect()
    }
  })
})
