// Test support: the one way specs assert an error answer: its status, the `{ errors }` envelope, each error's code,
// and for INVALID_QUERY the reason and that no SQL was sent.
import type { Express } from 'express'
import request from 'supertest'
import type { ErrorCode } from '../../lib'
import type { DialectContext } from './dialects'

/** One entry of the `{ errors }` envelope. */
export interface RenderedError {
  message: string
  extensions: { code: ErrorCode; [key: string]: unknown }
}

/** What the assertions read of an HTTP answer: a supertest response, or a spec's own record of one. */
export interface Answered {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

/**
 * Asserts a JSON answer with `status` whose body is nothing but a non-empty `errors` list, each entry exactly
 * `{ message, extensions }` with a non-empty message and `code`. Answers the list. Use it where one request may
 * report several errors (FAILED_VALIDATION gives one per field); otherwise use `expectError`.
 */
export function expectErrors(response: Answered, status: number, code: ErrorCode): RenderedError[] {
  // The body rides along with the status, so an unexpected answer shows what it was.
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { errors: expect.any(Array) } })
  expect(response.headers['content-type']).toMatch(/^application\/json/)
  const body = response.body as { errors: RenderedError[] }
  expect(Object.keys(body)).toEqual(['errors'])
  expect(body.errors.length).toBeGreaterThan(0)
  for (const error of body.errors) {
    expect(Object.keys(error).sort()).toEqual(['extensions', 'message'])
    expect(typeof error.message).toBe('string')
    expect(error.message.length).toBeGreaterThan(0)
    expect(error.extensions.code).toBe(code)
  }
  return body.errors
}

/** `expectErrors` for an answer that holds exactly one error; answers that error. */
export function expectError(response: Answered, status: number, code: ErrorCode): RenderedError {
  const errors = expectErrors(response, status, code)
  expect(errors).toHaveLength(1)
  return errors[0]!
}

/**
 * Asserts one 400 INVALID_QUERY, exactly `{ message: "Invalid query. <reason>.", extensions: { code, reason } }`,
 * whose reason names every one of `mentions`, given while parsing: `statements` (counted around the request) must
 * be zero. Answers the reason.
 */
export function expectInvalidQuery(response: Answered, statements: number, mentions: readonly string[]): string {
  const error = expectError(response, 400, 'INVALID_QUERY')
  const reason = error.extensions.reason as string
  expect(error).toEqual({ message: `Invalid query. ${reason}.`, extensions: { code: 'INVALID_QUERY', reason: expect.any(String) } })
  for (const mention of mentions) expect(reason).toContain(mention)
  expect(statements).toBe(0)
  return reason
}

/** GETs `url` while counting statements, then applies `expectInvalidQuery`. */
export async function getInvalidQuery(ctx: DialectContext, app: Express, url: string, mentions: readonly string[]): Promise<string> {
  const { result, count } = await ctx.countQueries(() => request(app).get(url))
  return expectInvalidQuery(result, count, mentions)
}
