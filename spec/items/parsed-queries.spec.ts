// A query string is parsed once per caller view once it repeats: the same request from a caller who sees the same
// fields and rows reuses the parsed query, a caller with other rules gets their own, and what may read the request's moment or
// caller (`$NOW`, `$CURRENT_USER`), a beforeRead hook or a SEARCH body is parsed every time. The whole suite
// also runs with checkCaches on; the last spec shows that check can fail.
import type { Request } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import type { CollectionDefinition, ItemsContext } from '../../lib'
import { checkCaches } from '../../lib/cache-checks'
import * as parser from '../../lib/query/parse-query'
import { ParsedQueries } from '../../lib/query/query-cache'
import type { Query } from '../../lib/query/query'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'

type Row = Record<string, unknown>
const ids = (response: request.Response): unknown[] => (response.body as { data: Row[] }).data.map((item) => item.id)
const contextFromHeader = (req: Request): ItemsContext => JSON.parse(req.get('x-caller') ?? '{}') as ItemsContext

/** The fixture collections, `articles` with these extra options. */
const articlesWith = (extra: Partial<CollectionDefinition>): Record<string, CollectionDefinition> => ({
  ...collections,
  articles: { ...collections.articles, ...extra } as CollectionDefinition,
})

forEachDialect((ctx) => {
  describe('parsed queries', () => {
    beforeAll(() => ctx.reset())

    /** How many times the router parses a query while `run` runs, with the check (which parses again) off. */
    async function parsesDuring(run: () => Promise<unknown>): Promise<number> {
      const parse = jest.spyOn(parser, 'parseQuery')
      checkCaches(false)
      try {
        await run()
        return parse.mock.calls.length
      } finally {
        checkCaches(true)
        parse.mockRestore()
      }
    }

    const storedIds = async (where: Row): Promise<unknown[]> =>
      (await ctx.knex('articles').where(where).orderBy('id').pluck('id')).map(Number)

    it('keeps a query string parsed once it comes again, for callers who see the same', async () => {
      const app = createApp(ctx.knex)
      const url = '/api/items/articles?filter[status][_eq]=published&sort=id&fields=id,title&limit=5'
      const parses = await parsesDuring(async () => {
        for (let run = 0; run < 4; run += 1) await request(app).get(url).expect(200)
      })
      // The first request's parse is not kept: most one-off query strings never come again.
      expect(parses).toBe(2)
    })

    it('keeps the queries that repeat through a stream of one-off query strings', async () => {
      const queries = new ParsedQueries(3)
      let parses = 0
      const parse = (): Promise<Query> => Promise.resolve({ limit: (parses += 1) } as unknown as Query)
      checkCaches(false)
      try {
        for (const key of ['a', 'b', 'a', 'b']) await queries.parse(key, parse)
        expect(parses).toBe(4)
        // Ten times the capacity, each once: kept, they would have evicted `a` and `b`.
        for (let one = 0; one < 30; one += 1) await queries.parse(`one-off ${one}`, parse)
        expect(parses).toBe(34)
        await queries.parse('a', parse)
        await queries.parse('b', parse)
        expect(parses).toBe(34)
      } finally {
        checkCaches(true)
      }
    })

    it('keeps each caller view apart: a rule on $CURRENT_USER gives each user their own parse and rows', async () => {
      const app = createApp(ctx.knex, {
        collections: articlesWith({ access: { read: { filter: { author: { _eq: '$CURRENT_USER' } } } } }),
        context: contextFromHeader,
      })
      const url = '/api/items/articles?fields=id&sort=id&limit=-1'
      const as = (user: number) => request(app).get(url).set('x-caller', JSON.stringify({ user }))
      const parses = await parsesDuring(async () => {
        for (const user of [3, 5, 3, 5, 3, 5]) expect(ids(await as(user))).toEqual(await storedIds({ author: user }))
      })
      // Each user's first two requests parse (see above), the third reuses their own.
      expect(parses).toBe(4)
    })

    it('parses every time what may name a variable, what a beforeRead hook may rewrite, and a SEARCH', async () => {
      const plain = createApp(ctx.knex)
      const hooked = createApp(ctx.knex, { collections: articlesWith({ hooks: { beforeRead: () => undefined } }) })
      const twice = async (send: () => request.Test): Promise<number> =>
        parsesDuring(async () => {
          await send().expect(200)
          await send().expect(200)
        })
      expect(await twice(() => request(plain).get('/api/items/articles?filter[published_at][_lte]=$NOW&fields=id'))).toBe(2)
      expect(await twice(() => request(plain).get('/api/items/articles?filter[published_at][_lte]=%24NOW&fields=id'))).toBe(2)
      expect(await twice(() => request(hooked).get('/api/items/articles?fields=id'))).toBe(2)
      expect(
        await twice(() =>
          request(plain)
            .search('/api/items/articles')
            .send({ query: { fields: ['id'] } }),
        ),
      ).toBe(2)
    })

    it('throws, with checkCaches on, when a kept query no longer equals a fresh parse', async () => {
      const queries = new ParsedQueries()
      const fresh = (): Promise<Query> => Promise.resolve({ limit: 5 } as unknown as Query)
      await queries.parse('key', fresh)
      const kept = await queries.parse('key', fresh)
      ;(kept as { limit: number }).limit = 6
      await expect(queries.parse('key', fresh)).rejects.toThrow('differs from a fresh parse')
    })
  })
})
