// Errors cost less than the request, on every database: a name of 10,000 characters in sort, filter or fields,
// or of 500,000 in a SEARCH body, is echoed cut to 100 characters and an ellipsis, and no error answer passes a
// few KB.
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors } from '../support/expect-error'

/** What "a few KB" means here: the largest error answer these requests may cost. */
const MAX_ERROR_BYTES = 4096

const longName = (length: number): string => `n${'a'.repeat(length - 2)}z`

function expectSmall(response: request.Response, name: string): void {
  const errors = expectErrors(response, 400, response.body.errors?.[0]?.extensions?.code)
  expect(Buffer.byteLength(response.text)).toBeLessThanOrEqual(MAX_ERROR_BYTES)
  // The name is recognisable by its first 100 characters, and never repeated whole.
  expect(response.text).toContain(`${name.slice(0, 100)}…`)
  expect(response.text).not.toContain(name.slice(0, 101))
  expect(errors.length).toBeGreaterThan(0)
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  const name = longName(10_000)
  it.each([
    ['sort', `/api/items/articles?sort=${name}`],
    ['filter', `/api/items/articles?filter[${name}][_eq]=1`],
    ['fields', `/api/items/articles?fields=id,${name}`],
    ['a relational fields path', `/api/items/articles?fields=author.${name}`],
    ['aggregate', `/api/items/articles?aggregate[sum]=${name}`],
  ])('answers a 10,000-character name in %s with a small 400', async (_label, url) => {
    expectSmall(await request(app).get(url), name)
  })

  it('answers a 500,000-character name in a SEARCH body with a small 400', async () => {
    const huge = longName(500_000)
    for (const query of [{ fields: [huge] }, { filter: { [huge]: { _eq: 1 } } }, { sort: [huge] }]) {
      expectSmall(await request(app).search('/api/items/articles').send({ query }), huge)
    }
  })

  it('answers a 500,000-character unknown field in a payload with a small 400', async () => {
    const huge = longName(500_000)
    const response = await request(app)
      .post('/api/items/authors')
      .send({ name: 'A', [huge]: 1 })
    expect(response.status).toBe(400)
    expect(Buffer.byteLength(response.text)).toBeLessThanOrEqual(MAX_ERROR_BYTES)
    expect(response.text).not.toContain(huge.slice(0, 101))
  })
})
