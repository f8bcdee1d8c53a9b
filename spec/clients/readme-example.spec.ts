// The guide's "@directus/sdk" section (docs/guide/openapi-and-clients.md) quotes examples/sdk-client.ts verbatim, and that code answers the seeded data on every database.
import express from 'express'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { readWithSdk } from '../../examples/sdk-client'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createItemsRouter } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { runnableBlock } from '../docs/doc-blocks'

const root = join(__dirname, '..', '..')

it('the guide quotes examples/sdk-client.ts as it is', () => {
  const example = readFileSync(join(root, 'examples', 'sdk-client.ts'), 'utf8')
  // The file's first line is its role comment for readers of the repository; the guide quotes the code after it.
  expect(runnableBlock('sdk-client').code).toBe(example.slice(example.indexOf('\n') + 1))
})

forEachDialect((ctx) => {
  let server: Server
  let url: string
  beforeAll(async () => {
    const app = express()
    app.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections, logger: recordingLogger() }))
    server = app.listen(0, '127.0.0.1')
    await once(server, 'listening')
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`
  })
  afterAll(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
  })

  it('readWithSdk answers the seeded data', async () => {
    const authorName = (id: number | null) => seed.authors.find((author) => author.id === id)?.name
    const { topRated, perStatus, found } = await readWithSdk(url)
    const top = seed.articles
      .filter((row) => row.status === 'published' && authorName(row.author)?.startsWith('A'))
      .sort((a, b) => (a.rating === null ? 1 : 0) - (b.rating === null ? 1 : 0) || (b.rating ?? 0) - (a.rating ?? 0) || a.id - b.id)
      .slice(0, 3)
    expect(top).toHaveLength(3)
    expect(topRated).toEqual(top.map(({ id, title, author }) => ({ id, title, author: { name: authorName(author) } })))
    expect(perStatus).toEqual(
      [...new Set(seed.articles.map((row) => row.status))].sort().map((status) => ({
        status,
        count: seed.articles.filter((row) => row.status === status).length,
      })),
    )
    const matching = seed.articles.filter((row) => row.title.toLowerCase().includes('bridge')).slice(0, 5)
    expect(matching.length).toBeGreaterThan(0)
    expect(found).toEqual(matching.map(({ id, title }) => ({ id, title })))
  })
})
