// Cursor pagination: walking a sorted list page by page with `cursor` yields exactly the list in one piece, for
// any sort (nullable, descending, several fields, relations, functions); a cursor cannot be altered, forged or
// carried to another sort, and never widens what the caller may read.
import type { Express } from 'express'
import fc from 'fast-check'
import request from 'supertest'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { getInvalidQuery } from '../support/expect-error'

interface Answer {
  data: Array<{ id: number }>
  meta: { next_cursor: string | null }
}

/** Guards the walk against a cursor that never ends: more pages than rows means a loop. */
const MOST_PAGES = 400

/** The ids of every page of `query`, following next_cursor from the first page until it is null. */
async function walk(app: Express, query: string, pageSize: number): Promise<number[]> {
  const ids: number[] = []
  let cursor: string | null = null
  for (let page = 0; page < MOST_PAGES; page++) {
    const next: string = cursor === null ? '&meta=next_cursor' : `&cursor=${encodeURIComponent(cursor)}`
    const response = await request(app).get(`/api/items/articles?${query}&fields=id&limit=${pageSize}${next}`)
    expect(response.status).toBe(200)
    const body = response.body as Answer
    ids.push(...body.data.map((item) => item.id))
    if (body.meta.next_cursor === null) return ids
    cursor = body.meta.next_cursor
  }
  throw new Error(`The walk of "${query}" did not end after ${MOST_PAGES} pages`)
}

/** The list in one request (300 articles fit in maxLimit); sort itself is checked by the sort specs. */
async function whole(app: Express, query: string): Promise<number[]> {
  const response = await request(app).get(`/api/items/articles?${query}&fields=id&limit=-1`)
  expect(response.status).toBe(200)
  return (response.body as Answer).data.map((item) => item.id)
}

const SORTS = [
  'id',
  '-id',
  'rating',
  '-rating',
  'rating,-published_at',
  '-published_at,title',
  'title',
  '-title',
  'author',
  'author.name,-rating',
  '-author.name',
  '-parent.title',
  '-count(comments),id',
  'year(published_at),-id',
  'status',
]

/** Fields of `articles` a random sort picks from: nullable numbers, dates, text, relations. */
const SORT_FIELDS = ['status', 'rating', 'published_at', 'title', 'author', 'parent', 'author.name', 'count(comments)', 'id']

forEachDialect((ctx) => {
  describe('cursor pagination', () => {
    let app: Express
    beforeAll(() => {
      app = createApp(ctx.knex)
    })

    it.each(SORTS)('walks sort=%s page by page to exactly the whole list', async (sort) => {
      const query = `sort=${sort}`
      expect(await walk(app, query, 17)).toEqual(await whole(app, query))
    })

    it('walks any sort, at any page size, to exactly the whole list (property)', async () => {
      const sortEntry = fc.tuple(fc.constantFrom(...SORT_FIELDS), fc.boolean()).map(([field, desc]) => `${desc ? '-' : ''}${field}`)
      await fc.assert(
        fc.asyncProperty(fc.array(sortEntry, { minLength: 1, maxLength: 3 }), fc.integer({ min: 7, max: 90 }), async (sort, size) => {
          const query = `sort=${sort.join(',')}&filter[status][_neq]=archived`
          expect(await walk(app, query, size)).toEqual(await whole(app, query))
        }),
        { numRuns: 12 },
      )
    })

    it('gives no next_cursor after the last page, nor for an empty list', async () => {
      const last = await request(app).get(`/api/items/articles?fields=id&limit=${seed.articles.length + 1}&meta=next_cursor`)
      expect(last.body.meta).toEqual({ next_cursor: null })
      const empty = await request(app).get('/api/items/articles?fields=id&filter[id][_lt]=0&meta=next_cursor')
      expect(empty.body).toEqual({ data: [], meta: { next_cursor: null } })
    })

    it('keeps the other meta beside next_cursor', async () => {
      const response = await request(app).get('/api/items/articles?fields=id&limit=5&meta=filter_count,next_cursor')
      expect(response.body.meta).toEqual({ filter_count: seed.articles.length, next_cursor: expect.any(String) })
    })

    it('starts a page after the cursor with an index range on the key alone', async () => {
      const first = await request(app).get('/api/items/articles?fields=id&limit=5&meta=next_cursor')
      const { result, sql } = await ctx.countQueries(() =>
        request(app).get(`/api/items/articles?fields=id&limit=5&cursor=${first.body.meta.next_cursor as string}`),
      )
      expect(result.body.data).toEqual([6, 7, 8, 9, 10].map((id) => ({ id })))
      expect(sql).toHaveLength(1)
      expect(sql[0]).toMatch(/where \(\(.articles.\..id. > (\?|\$1)\)\)/)
      expect(sql[0]).not.toMatch(/offset/i)
    })

    describe('refuses a cursor it did not give out for this list', () => {
      let cursor: string
      beforeAll(async () => {
        cursor = (await request(app).get('/api/items/articles?fields=id&sort=-rating&limit=5&meta=next_cursor')).body.meta.next_cursor
      })

      const alter = (text: string, at: number): string => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1)

      it('altered in its keys or its signature', async () => {
        const [payload, signature] = cursor.split('.') as [string, string]
        for (const altered of [`${alter(payload, 2)}.${signature}`, `${payload}.${alter(signature, 5)}`]) {
          await getInvalidQuery(ctx, app, `/api/items/articles?sort=-rating&cursor=${altered}`, ['"cursor"'])
        }
      })

      it('forged with keys of another type', async () => {
        const [, signature] = cursor.split('.') as [string, string]
        const forged = Buffer.from(JSON.stringify([{ _gt: 1 }, 'x'])).toString('base64url')
        await getInvalidQuery(ctx, app, `/api/items/articles?sort=-rating&cursor=${forged}.${signature}`, ['"cursor"'])
      })

      it('used with another sort or collection', async () => {
        await getInvalidQuery(ctx, app, `/api/items/articles?sort=rating&cursor=${cursor}`, ['"cursor"'])
        await getInvalidQuery(ctx, app, `/api/items/articles?cursor=${cursor}`, ['"cursor"'])
        await getInvalidQuery(ctx, app, `/api/items/comments?sort=-votes&cursor=${cursor}`, ['"cursor"'])
      })

      it('signed by another router (another cursorSecret)', async () => {
        const other = createApp(ctx.knex, { cursorSecret: 'another-secret-of-at-least-thirty-two-characters' })
        await getInvalidQuery(ctx, other, `/api/items/articles?sort=-rating&cursor=${cursor}`, ['"cursor"'])
      })

      it('that is not a cursor at all, or combined with offset, page or aggregate', async () => {
        for (const junk of ['', 'abc', 'a.b.c', '.', `${'x'.repeat(9000)}.y`]) {
          await getInvalidQuery(ctx, app, `/api/items/articles?sort=-rating&cursor=${junk}`, ['"cursor"'])
        }
        for (const extra of ['sort=-rating&offset=5', 'sort=-rating&page=2', 'aggregate[count]=*']) {
          await getInvalidQuery(ctx, app, `/api/items/articles?cursor=${cursor}&${extra}`, ['"cursor"'])
        }
      })
    })

    it("applies the caller's access rules on every page, whoever's cursor it is", async () => {
      const scoped = createApp(ctx.knex, {
        cursorSecret: 'shared-secret-of-at-least-thirty-two-characters!',
        collections: {
          ...(await import('../../fixtures/schema')).collections,
          articles: {
            ...(await import('../../fixtures/schema')).collections.articles,
            access: { read: { filter: { author: { _eq: 3 } } } },
          },
        },
      })
      const open = createApp(ctx.knex, { cursorSecret: 'shared-secret-of-at-least-thirty-two-characters!' })
      const own = seed.articles.filter((row) => row.author === 3).map((row) => row.id)
      expect(await walk(scoped, 'sort=-rating', 4)).toEqual(await whole(scoped, 'sort=-rating'))
      expect(new Set(await walk(scoped, 'sort=-rating', 4))).toEqual(new Set(own))
      // A cursor from a caller who sees everything moves the start, never the scope.
      const wide = await request(open).get('/api/items/articles?fields=id&sort=id&limit=2&meta=next_cursor')
      const page = await request(scoped).get(
        `/api/items/articles?fields=id,author&sort=id&limit=-1&cursor=${wide.body.meta.next_cursor as string}`,
      )
      expect(page.body.data).toEqual(own.filter((id) => id > 2).map((id) => ({ id, author: 3 })))
    })
  })
})
