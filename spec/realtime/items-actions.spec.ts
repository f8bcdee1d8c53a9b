// `items` messages over the socket, on every database: read, create, update and delete through the caller's
// access rules, as the HTTP routes run them, each answer with its uid.
import { collections } from '../../fixtures/schema'
import type { AccessDecision, ItemsContext } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient, type RealtimeHost } from '../support/realtime'

const admin = (context: ItemsContext): AccessDecision => context.role === 'admin'
const restricted = {
  ...collections,
  authors: {
    ...collections.authors,
    access: {
      read: (context: ItemsContext): AccessDecision =>
        context.role === 'admin' ? true : { fields: ['id', 'name'], filter: { id: { _lte: 3 } } },
      create: true,
      update: admin,
      delete: admin,
    },
  },
}

forEachDialect((ctx) => {
  let host: RealtimeHost
  const open: TestClient[] = []
  const client = async (role: string): Promise<TestClient> => {
    const made = await TestClient.open(host.wsUrl, `token-${role}`)
    open.push(made)
    return made
  }

  beforeAll(async () => {
    host = await startRealtimeHost(ctx.knex, {}, { collections: restricted })
  })
  afterAll(() => host.close())
  beforeEach(() => ctx.reset())
  afterEach(() => open.splice(0).forEach((each) => each.close()))

  it("reads through the caller's fields and rows", async () => {
    const reader = await client('reader')
    expect(
      await reader.ask({ type: 'items', action: 'read', collection: 'authors', query: { fields: ['*'], sort: ['id'] }, uid: 'r' }),
    ).toEqual({
      type: 'items',
      data: [1, 2, 3].map((id) => ({ id, name: expect.any(String) })),
      uid: 'r',
    })
    const hidden = await reader.ask({ type: 'items', action: 'read', collection: 'authors', id: 4, uid: 'one' })
    expect(hidden).toMatchObject({ type: 'items', status: 'error', error: { code: 'NOT_FOUND' }, uid: 'one' })
  })

  it('creates, updates and deletes as the HTTP routes do, refusing what the rules refuse', async () => {
    const reader = await client('reader')
    const boss = await client('admin')
    const created = await boss.ask({
      type: 'items',
      action: 'create',
      collection: 'authors',
      data: { name: 'Over the socket' },
      query: { fields: ['id', 'name'] },
      uid: 'c',
    })
    const { id } = created.data as { id: number }
    expect(created).toEqual({ type: 'items', data: { id, name: 'Over the socket' }, uid: 'c' })
    expect(await reader.ask({ type: 'items', action: 'update', collection: 'authors', id, data: { name: 'No' }, uid: 'u' })).toMatchObject({
      type: 'items',
      status: 'error',
      error: { code: 'FORBIDDEN' },
      uid: 'u',
    })
    expect(
      await boss.ask({
        type: 'items',
        action: 'update',
        collection: 'authors',
        id,
        data: { name: 'Yes' },
        query: { fields: ['name'] },
        uid: 'u2',
      }),
    ).toEqual({
      type: 'items',
      data: { name: 'Yes' },
      uid: 'u2',
    })
    expect(
      await boss.ask({ type: 'items', action: 'create', collection: 'authors', data: { email: 'no name' }, uid: 'bad' }),
    ).toMatchObject({
      type: 'items',
      status: 'error',
      uid: 'bad',
    })
    expect(await boss.ask({ type: 'items', action: 'delete', collection: 'authors', id, uid: 'd' })).toEqual({
      type: 'items',
      data: id,
      uid: 'd',
    })
  })
})
