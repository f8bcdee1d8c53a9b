// Work whose client has gone away is dropped: a write whose before hook never settles rolls back and gives back
// its connection once its client leaves (the hook's signal fires), and requests still waiting for a connection
// leave the pool's queue, so a later request gets an answer instead of queueing behind them.
import type { Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import type { CollectionDefinition, HookMeta } from '../../lib'
import { createApp } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'

/** Creates in flight at once, for a pool of one connection: the first holds it, the others queue. */
const ABANDONED = 12
/** Long enough that waiting for the hooks' time limit cannot pass for dropping them. */
const HOOK_TIMEOUT_MS = 60_000
/** How long a client waits before it gives up and closes its connection. */
const CLIENT_PATIENCE_MS = 300

const hanging = (): Promise<never> => new Promise<never>(() => undefined)

forEachDialect((ctx) => {
  /** A pool of one connection (SQLite's own already is: its in-memory database lives in it). */
  let single: Knex
  let own: Knex | undefined
  beforeAll(() => {
    own = ctx.name === 'sqlite' ? undefined : knexFactory({ ...knexConfig(ctx.name), pool: { min: 0, max: 1 } })
    single = own ?? ctx.knex
  })
  afterAll(() => own?.destroy())
  beforeEach(() => ctx.reset())

  const authorCount = async (): Promise<number> => Number((await ctx.knex('authors').count({ n: '*' }))[0]!.n)

  it('drops creates whose before hook never settles once their clients leave, and serves the next request', async () => {
    const signals: AbortSignal[] = []
    const configured: Record<string, CollectionDefinition> = {
      ...collections,
      authors: {
        ...collections.authors!,
        hooks: {
          beforeCreate: (_item: unknown, { signal }: HookMeta) => {
            signals.push(signal)
            return hanging()
          },
        },
      },
    }
    const app: Express = createApp(single, { collections: configured, hookTimeout: HOOK_TIMEOUT_MS })
    const before = await authorCount()
    const gone = await Promise.allSettled(
      Array.from({ length: ABANDONED }, (_, index) =>
        request(app)
          .post('/api/items/authors')
          .send({ name: `Abandoned ${index}` })
          .timeout(CLIENT_PATIENCE_MS),
      ),
    )
    expect(gone.map((outcome) => outcome.status)).toEqual(gone.map(() => 'rejected'))

    // The hooks' time limit is a minute away: only dropped work lets this read through now.
    const read = await request(app)
      .get('/api/items/authors?limit=1')
      .timeout(HOOK_TIMEOUT_MS / 4)
    expect(read.status).toBe(200)
    // The hook that held the connection saw its signal fire; the creates queued behind it never ran theirs.
    expect(signals.length).toBeGreaterThan(0)
    expect(signals.length).toBeLessThan(ABANDONED / 2)
    expect(signals.every((signal) => signal.aborted)).toBe(true)
    // Every abandoned create rolled back.
    expect(await authorCount()).toBe(before)
  }, 30_000)
})
