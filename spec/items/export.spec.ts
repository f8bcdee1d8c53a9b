// export=json|csv|ndjson: the list's rows (same filter, sort, fields and access rules) streamed as a download in
// chunks, bounded by maxExportRows instead of maxLimit; a client that leaves stops the reading.
import type { Express, Request } from 'express'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import type { Item } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { getInvalidQuery } from '../support/expect-error'

/** RFC 4180 records: quoted cells may hold commas, doubled quotes and line breaks; lines end in CRLF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  const endCell = (): void => {
    row.push(cell)
    cell = ''
  }
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    const next = text[i + 1]
    if (quoted && char === '"' && next === '"') {
      cell += '"'
      i++
    } else if (char === '"') quoted = !quoted
    else if (quoted) cell += char
    else if (char === ',') endCell()
    else if (char === '\r' && next === '\n') {
      endCell()
      rows.push(row)
      row = []
      i++
    } else cell += char
  }
  expect({ unterminated: row.length > 0 || cell !== '' }).toEqual({ unterminated: false })
  return rows
}

/** A list item as its CSV cells: null empty, nested values as JSON text. */
const asCells = (item: Item, columns: readonly string[]): string[] =>
  columns.map((column) => {
    const value = item[column]
    if (value === null || value === undefined) return ''
    return typeof value === 'object' ? JSON.stringify(value) : String(value)
  })

const QUERY = 'filter[status][_neq]=archived&sort=-rating,title&fields=id,title,rating,published_at,tags,author.name,comments'

forEachDialect((ctx) => {
  describe('export', () => {
    let app: Express
    let list: Item[]
    beforeAll(async () => {
      app = createApp(ctx.knex)
      list = (await request(app).get(`/api/items/articles?${QUERY}&limit=-1`)).body.data as Item[]
      expect(list.length).toBeGreaterThan(100)
    })

    it('streams csv: a header of the fields, then one RFC 4180 row per item, relations as JSON text', async () => {
      const response = await request(app).get(`/api/items/articles?${QUERY}&limit=-1&export=csv`)
      expect(response.status).toBe(200)
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
      expect(response.headers['content-disposition']).toBe('attachment; filename="articles.csv"')
      const columns = ['id', 'title', 'rating', 'published_at', 'tags', 'author', 'comments']
      expect(parseCsv(response.text)).toEqual([columns, ...list.map((item) => asCells(item, columns))])
      expect(response.text).toContain('"[""') // a JSON array in a cell has its quotes doubled
    })

    it('streams json as one array and ndjson as one object per line, equal to the list', async () => {
      const json = await request(app).get(`/api/items/articles?${QUERY}&limit=-1&export=json`)
      expect(json.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(json.headers['content-disposition']).toBe('attachment; filename="articles.json"')
      expect(JSON.parse(json.text)).toEqual(list)
      const ndjson = await request(app).get(`/api/items/articles?${QUERY}&limit=-1&export=ndjson`).buffer(true)
      expect(ndjson.headers['content-type']).toBe('application/x-ndjson; charset=utf-8')
      const lines = ndjson.text.split('\n')
      expect(lines.pop()).toBe('')
      expect(lines.map((line) => JSON.parse(line) as Item)).toEqual(list)
    })

    it('exports an empty list as a header, an empty array, or nothing', async () => {
      const none = '/api/items/articles?fields=id,title&filter[id][_lt]=0&export='
      expect((await request(app).get(`${none}csv`)).text).toBe('id,title\r\n')
      expect((await request(app).get(`${none}json`)).text).toBe('[]')
      expect((await request(app).get(`${none}ndjson`).buffer(true)).text).toBe('')
    })

    it('keeps limit, offset and the default page size of the list', async () => {
      const page = (await request(app).get(`/api/items/articles?${QUERY}&limit=7&offset=3`)).body.data as Item[]
      const exported = await request(app).get(`/api/items/articles?${QUERY}&limit=7&offset=3&export=json`)
      expect(JSON.parse(exported.text)).toEqual(page)
      const byDefault = await request(app).get('/api/items/articles?fields=id&export=json')
      expect(JSON.parse(byDefault.text)).toHaveLength(100)
    })

    it('reads in chunks within maxLoadedRows, relations per chunk, halving a chunk whose relations pass it', async () => {
      // The most-commented article has 44 comments: it fits alone, not with 59 others.
      const small = createApp(ctx.knex, { maxLoadedRows: 60 })
      const { result, sql } = await ctx.countQueries(() => request(small).get(`/api/items/articles?${QUERY}&limit=-1&export=json`))
      expect(JSON.parse(result.text)).toEqual(list)
      // Each chunk: its rows, its authors, its comments; never more than 60 rows of articles at a time.
      const chunks = sql.filter((statement) => /from .articles./.test(statement))
      expect(chunks.length).toBeGreaterThanOrEqual(Math.ceil(list.length / 60))
      expect(chunks.length).toBeLessThan(list.length)
    })

    it('reads 1,000 rows per chunk, 200 on SQLite, whose reads are slices of the event loop', async () => {
      const { result, sql } = await ctx.countQueries(() => request(app).get('/api/items/articles?fields=id&limit=-1&export=json'))
      const rows = (JSON.parse(result.text) as Item[]).length
      const chunk = ctx.name === 'sqlite' ? 200 : 1000
      // The last chunk is the first one shorter than a whole chunk, empty when the rows fill the one before.
      expect(sql.filter((statement) => /from .articles./.test(statement))).toHaveLength(Math.floor(rows / chunk) + 1)
    })

    it('is bounded by maxExportRows, not maxLimit: -1 exports as many as it allows, more is a 400', async () => {
      const bounded = createApp(ctx.knex, { maxLimit: 10, defaultLimit: 10, maxExportRows: 250 })
      expect(JSON.parse((await request(bounded).get('/api/items/articles?fields=id&limit=-1&export=json')).text)).toHaveLength(250)
      expect((await request(bounded).get('/api/items/articles?fields=id&limit=-1')).body.data).toHaveLength(10)
      await getInvalidQuery(ctx, bounded, '/api/items/articles?fields=id&limit=251&export=csv', ['250', 'maxExportRows'])
    })

    it('answers a bad request with its error status before any byte, as the list does', async () => {
      await getInvalidQuery(ctx, app, '/api/items/articles?export=xml', ['"export"', 'csv'])
      await getInvalidQuery(ctx, app, '/api/items/articles?export=csv&fields=nope', ['nope'])
      await getInvalidQuery(ctx, app, '/api/items/articles?export=csv&version=draft', ['"version"'])
    })

    it('exports aggregates as their groups', async () => {
      const response = await request(app).get('/api/items/articles?aggregate[count]=*&groupBy=status&export=csv')
      const rows = parseCsv(response.text)
      expect(rows[0]).toEqual(['status', 'count'])
      const total = rows.slice(1).reduce((sum, [, count]) => sum + Number(count), 0)
      expect(total).toBe(seed.articles.length)
    })

    it("applies the caller's access rules: their rows, never hidden or denied fields", async () => {
      const scoped = createApp(ctx.knex, {
        context: (req: Request) => ({ user: Number(req.get('x-user')) }),
        collections: {
          ...collections,
          articles: {
            ...collections.articles,
            access: { read: { filter: { author: { _eq: '$CURRENT_USER' } }, fields: ['id', 'title', 'author'] } },
          },
        },
      })
      const response = await request(scoped)
        .get('/api/items/articles?fields=*,author.*&limit=-1&export=ndjson')
        .set('x-user', '3')
        .buffer(true)
      const items = response.text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Item)
      expect(items.map((item) => item.id)).toEqual(seed.articles.filter((row) => row.author === 3).map((row) => row.id))
      for (const item of items) {
        expect(Object.keys(item)).toEqual(['id', 'title', 'author'])
        expect(item.author).not.toHaveProperty('password_hash')
      }
      const denied = await request(scoped).get('/api/items/articles?fields=rating&export=csv').set('x-user', '3')
      // A field outside the caller's view is unknown to them, as in the list.
      expect(denied.status).toBe(400)
    })

    it('stops reading when the client leaves: no statement runs after the chunk in flight', async () => {
      // One row per chunk: 300 statements if the export ran to its end.
      const server = http.createServer(createApp(ctx.knex, { maxLoadedRows: 1 })).listen(0)
      const { port } = server.address() as AddressInfo
      let statements = 0
      let atAbort = 0
      const client = http.get(`http://127.0.0.1:${port}/api/items/articles?fields=id&limit=-1&export=ndjson`)
      const counter = (): void => {
        statements++
        if (statements === 5) {
          atAbort = statements
          client.destroy()
        }
      }
      client.on('error', () => undefined)
      ctx.knex.on('query', counter)
      try {
        for (let wait = 0; wait < 100 && atAbort === 0; wait++) await new Promise((resolve) => setTimeout(resolve, 100))
        expect(atAbort).toBe(5)
        // Until no statement came for a while (a loaded machine may take its time to notice the close).
        let settled = -1
        for (let wait = 0; wait < 25 && settled !== statements; wait++) {
          settled = statements
          await new Promise((resolve) => setTimeout(resolve, 200))
        }
        expect(statements).toBe(settled)
        expect(statements - atAbort).toBeLessThan(50)
        expect(statements).toBeLessThan(seed.articles.length)
      } finally {
        ctx.knex.off('query', counter)
        await new Promise((resolve) => server.close(resolve))
      }
    })
  })
})
