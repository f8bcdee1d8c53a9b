// Test support: checks the write suites share, so "nothing was written" is asserted the same way everywhere.
import type { Express } from 'express'
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
