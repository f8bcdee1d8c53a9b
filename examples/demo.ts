// The demo: an embedded SQLite database seeded from fixtures/, served by createItemsRouter under /api.
import express from 'express'
import knexFactory from 'knex'
import { collections } from '../fixtures/schema'
import { seedTables } from '../fixtures/seed'
import { createTables } from '../fixtures/tables'
import { createItemsRouter } from '../lib'

const EXAMPLES = [
  '/api/items/articles?limit=5&fields=id,title,rating',
  '/api/items/articles?filter[status][_eq]=published&sort=-rating,title&limit=10&meta=*',
  '/api/items/articles?filter={"_or":[{"rating":{"_gte":5}},{"title":{"_icontains":"über"}}]}&fields=id,title,rating',
  '/api/items/articles?search=bridge&fields=id,title',
  '/api/items/authors/1',
  '/api/items/samples?limit=1',
  '/api/items/settings',
]

async function main(): Promise<void> {
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename: process.env.DEMO_DB ?? ':memory:' },
    useNullAsDefault: true,
    // One connection: an in-memory database exists once per connection.
    pool: { min: 1, max: 1, afterCreate: (db: { pragma(sql: string): void }, done: () => void) => (db.pragma('foreign_keys = ON'), done()) },
  })
  if (!(await knex.schema.hasTable('articles'))) {
    await createTables(knex)
    await seedTables(knex, { settings: true })
  }

  const app = express()
  app.use('/api', createItemsRouter({ knex, collections }))
  const port = Number(process.env.PORT ?? 3000)
  const server = app.listen(port, () => {
    const base = `http://localhost:${port}`
    console.log(`express-items-router demo on ${base} (SQLite, seeded from fixtures/)\n\nTry:`)
    for (const path of EXAMPLES) console.log(`  curl -g '${base}${path}'`)
    console.log(`\nWrite:\n  curl -X POST ${base}/api/items/authors -H 'Content-Type: application/json' -d '{"name":"Ada"}'`)
  })
  const stop = (): void => {
    server.close(() => void knex.destroy())
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
