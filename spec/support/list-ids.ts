// Test support: the ids a list request answers, for the suites that compare filtered lists with the seed.
import type { Express } from 'express'
import request from 'supertest'

export type Key = number | string

/** The ids a list request answers (every row unless `query` sets a limit), or its status and errors. */
export async function listIds(app: Express, collection: string, query: string): Promise<{ status: number; ids?: Key[]; errors?: unknown }> {
  const all = /(^|&)limit=/.test(query) ? '' : 'limit=-1&'
  const response = await request(app).get(`/api/items/${collection}?fields=id&${all}${query}`)
  return response.status === 200
    ? { status: 200, ids: (response.body.data as Array<{ id: Key }>).map((row) => row.id) }
    : { status: response.status, errors: response.body.errors }
}
