// The query strings the documentation shows (blocks marked `<!-- queries: collection -->`, one per line, each
// followed by what it shows) are read by the router as the text says: each answers 200 over the fixtures.
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { docBlocks } from './doc-blocks'

interface DocQuery {
  readonly where: string
  readonly collection: string
  readonly query: string
}

function docQueries(): DocQuery[] {
  return docBlocks().flatMap((block) => {
    const collection = /^queries: (\w+)$/.exec(block.marker ?? '')?.[1]
    if (collection === undefined) return []
    return block.code
      .split('\n')
      .map((line, index) => ({ line, where: `${block.file}:${block.line + 1 + index}` }))
      .filter(({ line }) => line.trim() !== '')
      .map(({ line, where }) => {
        if (!line.startsWith('?')) throw new Error(`${where}: a queries block holds query strings only`)
        // What the line shows stands after two spaces or more.
        return { where, collection, query: line.split(/\s{2,}/)[0]! }
      })
  })
}

const QUERIES = docQueries()

it('finds the documentation query strings', () => {
  expect(QUERIES.length).toBeGreaterThan(20)
})

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  it('answers every documentation query string with 200', async () => {
    const failed: string[] = []
    for (const { where, collection, query } of QUERIES) {
      // Percent-encoded as a client sends it: Node's HTTP parser refuses raw non-ASCII in a URL.
      const response = await request(app).get(`/api/items/${collection}${encodeURI(query)}`)
      if (response.status !== 200) failed.push(`${where} ${query}: ${response.status} ${JSON.stringify(response.body)}`)
    }
    expect(failed).toEqual([])
  })
})
