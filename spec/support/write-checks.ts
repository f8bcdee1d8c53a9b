// Test support: checks the write suites share, so "nothing was written" is asserted the same way everywhere.
import type { Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import type { DialectContext } from './dialects'

/** Rows in `table` (matching `where`), counted behind the API's back. */
export async function rowCount(ctx: DialectContext, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const [row] = await ctx.knex(table).where(where).count({ n: '*' })
  return Number(row!.n)
}

/** Rows of `collection` as the API counts them. */
export async function apiCount(app: Express, collection: string): Promise<number> {
  const response = await request(app).get(`/api/items/${collection}?limit=0&meta=total_count`)
  expect(response.status).toBe(200)
  return (response.body as { meta: { total_count: number } }).meta.total_count
}

/** Both views must agree: the API could hide rows a broken transaction left behind. */
export async function expectCounts(app: Express, ctx: DialectContext, collection: string, expected: number): Promise<void> {
  expect(await apiCount(app, collection)).toBe(expected)
  expect(await rowCount(ctx, collection)).toBe(expected)
}

/** A property spec's write: its payload, how the API is sent it, and how plain SQL writes the same from the seed. */
export interface WriteAgainstSql {
  readonly payload: unknown
  send(): PromiseLike<request.Response>
  bySql(trx: Knex.Transaction): Promise<void>
}

/**
 * The API answers `write` with 200 (a failure shows the payload beside the answer), and leaves the tables as
 * `write.bySql` does from the same `seed`, compared through `contents`, which must not depend on assigned keys.
 */
export async function expectWrittenAsBySql(
  knex: Knex,
  { seed, contents }: { seed(knex: Knex): Promise<void>; contents(knex: Knex): Promise<unknown> },
  write: WriteAgainstSql,
): Promise<void> {
  await seed(knex)
  const response = await write.send()
  const { payload } = write
  expect({ status: response.status, body: response.status === 200 ? null : response.body, payload }).toEqual({
    status: 200,
    body: null,
    payload,
  })
  const written = await contents(knex)
  await seed(knex)
  await knex.transaction((trx) => write.bySql(trx))
  expect(written).toEqual(await contents(knex))
}
