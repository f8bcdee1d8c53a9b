// Writes that wait for a delivery under way, on every database: a waiting write of the same action as the one
// before it joins that one (one read, one message with the items of both), and writes of other actions keep
// their order. The changes come from a broker, as several NOTIFY messages read in one chunk would.
import type { RealtimeBroker, RealtimeBrokerHandlers, RealtimeChange } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient, type RealtimeHost } from '../support/realtime'

forEachDialect((ctx) => {
  let host: RealtimeHost
  let ws: TestClient
  let handlers: RealtimeBrokerHandlers
  const broker: RealtimeBroker = {
    start: async (given) => {
      handlers = given
    },
    publish: async () => undefined,
    stop: async () => undefined,
  }
  /** Changes from "another process", all in one tick. */
  const arrive = (...changes: RealtimeChange[]): void => changes.forEach((change) => handlers.change(change))
  const ids = (frame: Record<string, unknown>): number[] => (frame.data as { id: number }[]).map((item) => item.id)

  beforeAll(async () => {
    await ctx.reset()
    host = await startRealtimeHost(ctx.knex, { broker })
    await host.realtime.ready
  })
  afterAll(() => host.close())
  beforeEach(async () => {
    ws = await TestClient.open(host.wsUrl, 'token-admin')
    await ws.ask({
      type: 'subscribe',
      collection: 'articles',
      uid: 's',
      query: { fields: ['id', 'rating'], filter: { id: { _lte: 4 } }, sort: ['id'] },
    })
  })
  afterEach(() => ws.close())

  it('delivers waiting updates of one collection as one message', async () => {
    arrive(
      { action: 'update', collection: 'articles', keys: [2] },
      { action: 'update', collection: 'articles', keys: [1, 2] },
      { action: 'update', collection: 'articles', keys: [3] },
    )
    const frame = await ws.answer('s')
    expect(frame).toMatchObject({ type: 'subscription', event: 'update', uid: 's' })
    expect(ids(frame)).toEqual([1, 2, 3])
    expect(await ws.quiet('s')).toEqual([])
  })

  it('keeps writes of another action apart, in the order they came', async () => {
    arrive(
      { action: 'update', collection: 'articles', keys: [1] },
      { action: 'create', collection: 'articles', keys: [4] },
      { action: 'update', collection: 'articles', keys: [2] },
    )
    const frames = [await ws.answer('s'), await ws.answer('s'), await ws.answer('s')]
    expect(frames.map((frame) => [frame.event, ids(frame)])).toEqual([
      ['update', [1]],
      ['create', [4]],
      ['update', [2]],
    ])
    expect(await ws.quiet('s')).toEqual([])
  })
})
