// Test support: runs a suite once per database dialect, each against its own freshly created and seeded tables.
import type { Knex } from 'knex'
import { resetTables, type SeedOptions } from '../../fixtures/seed'
import { dialectOf, type DialectName } from '../../lib/dialects'
import { openFixtures, selectedDialects, UNREACHABLE_ENV } from './databases'
import { isServerProbe } from './server-probes'

export interface QueryCount<T> {
  result: T
  /** The statements the request sent: the router's questions about the server (see server-probes) left out. */
  count: number
  sql: string[]
  /** The router's questions about the server sent meanwhile: once per router, before its first request. */
  probes: string[]
}

export interface DialectContext {
  readonly name: DialectName
  /** Set in `beforeAll`; reading it earlier (at describe time) throws. */
  readonly knex: Knex
  /** Deletes every fixture row and seeds again (for `beforeEach` in specs that write). */
  reset(options?: SeedOptions): Promise<void>
  /**
   * Runs `fn` and reports the statements this knex instance sent meanwhile (transaction BEGIN/COMMIT included), and
   * apart from them the router's questions about the server.
   */
  countQueries<T>(fn: () => Promise<T>): Promise<QueryCount<T>>
}

interface OwnedContext extends DialectContext {
  open(): Promise<void>
  close(): Promise<void>
}

function createContext(name: DialectName): OwnedContext {
  let instance: Knex | undefined
  const knex = (): Knex => {
    if (!instance) throw new Error(`The ${name} knex instance is only available inside hooks and tests`)
    return instance
  }
  return {
    name,
    get knex() {
      return knex()
    },
    reset: (options) => resetTables(knex(), options),
    async countQueries(fn) {
      const sql: string[] = []
      const probes: string[] = []
      const listener = (query: { sql: string }): void => {
        if (isServerProbe(query.sql)) probes.push(query.sql)
        else sql.push(query.sql)
      }
      knex().on('query', listener)
      try {
        const result = await fn()
        return { result, count: sql.length, sql, probes }
      } finally {
        knex().off('query', listener)
      }
    },
    async open() {
      instance = await openFixtures(name)
    },
    async close() {
      await instance?.destroy()
      instance = undefined
    },
  }
}

/** Reasons recorded by the global setup, by dialect; empty when it did not run. */
function unreachableDialects(): Partial<Record<DialectName, string>> {
  const raw = process.env[UNREACHABLE_ENV]
  return raw ? (JSON.parse(raw) as Partial<Record<DialectName, string>>) : {}
}

/**
 * Declares `describe(<dialect>, ...)` for every selected dialect. The reachability check has to happen in the
 * global setup: jest collects tests synchronously, so a skip cannot wait for a connection attempt here.
 */
export function forEachDialect(suite: (ctx: DialectContext) => void): void {
  // Set by jest.config.js for the `unit` project, which must run with no database server and no global setup.
  if ((globalThis as { ITEMS_UNIT_PROJECT?: unknown }).ITEMS_UNIT_PROJECT === true) {
    throw new Error('forEachDialect in a unit spec: take this file out of UNIT_SPECS in jest.config.js')
  }
  const unreachable = unreachableDialects()
  for (const name of selectedDialects()) {
    const reason = unreachable[name]
    if (reason && process.env.CI !== 'true') {
      describe.skip(name, () => suite(createContext(name)))
      continue
    }
    describe(name, () => {
      const ctx = createContext(name)
      beforeAll(async () => {
        if (reason) throw new Error(`${reason}. CI=true, so database suites must not be skipped.`)
        await ctx.open()
      })
      afterAll(() => ctx.close())
      suite(ctx)
    })
  }
}

/**
 * Whether a read by id through `knex` folds its key lists into the item's own statement (ServerTraits.foldedKeys):
 * everywhere but on SQLite's own connection, and on MySQL where the server has the aggregate.
 */
export async function foldsKeyLists(knex: Knex): Promise<boolean> {
  const traits = await dialectOf(knex).serverTraits?.(knex)
  return (traits?.foldedKeys ?? Number.POSITIVE_INFINITY) > 0
}
