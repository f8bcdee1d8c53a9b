// Test support: the assertions shared by the suites that send bad or filtered queries.
import type { Express } from 'express'
import request from 'supertest'
import type { DialectContext } from './dialects'

export type Key = number | string

/** What a spec needs of an HTTP answer. */
export interface Answered {
  readonly status: number
  readonly body: { errors?: Array<{ extensions?: { reason?: unknown } }> } | unknown
}

/**
 * Asserts a 400 INVALID_QUERY whose reason names every one of `mentions`, given while parsing: `statements`
 * (counted around the request) must be zero. Answers the reason.
 */
export function expectInvalidQuery(response: Answered, statements: number, mentions: readonly string[]): string {
  expect(response.status).toBe(400)
  const body = response.body as { errors?: Array<{ extensions?: { reason?: unknown } }> }
  const reason = body.errors?.[0]?.extensions?.reason as string
  expect(response.body).toEqual({
    errors: [{ message: `Invalid query. ${reason}.`, extensions: { code: 'INVALID_QUERY', reason: expect.any(String) } }],
  })
  for (const mention of mentions) expect(reason).toContain(mention)
  expect(statements).toBe(0)
  return reason
}

/** GETs `url` while counting statements, then applies `expectInvalidQuery`. */
export async function getInvalidQuery(ctx: DialectContext, app: Express, url: string, mentions: readonly string[]): Promise<string> {
  const { result, count } = await ctx.countQueries(() => request(app).get(url))
  return expectInvalidQuery(result, count, mentions)
}

/** The ids a list request answers (every row unless `query` sets a limit), or its status and errors. */
export async function listIds(app: Express, collection: string, query: string): Promise<{ status: number; ids?: Key[]; errors?: unknown }> {
  const all = /(^|&)limit=/.test(query) ? '' : 'limit=-1&'
  const response = await request(app).get(`/api/items/${collection}?fields=id&${all}${query}`)
  return response.status === 200
    ? { status: 200, ids: (response.body.data as Array<{ id: Key }>).map((row) => row.id) }
    : { status: response.status, errors: response.body.errors }
}
