// The demo: an embedded SQLite database seeded from fixtures/, served by createItemsRouter under /api.
import express from 'express'
import { collections } from '../fixtures/schema'
import { seedTables } from '../fixtures/seed'
import { createTables } from '../fixtures/tables'
import { createItemsRouter } from '../lib'
import { openSqlite } from './sqlite-knex'

const EXAMPLES = [
  '/api/items/articles?limit=5&fields=id,title,rating',
  '/api/items/articles?filter[status][_eq]=published&sort=-rating,title&limit=10&meta=*',
  '/api/items/articles?filter={"_or":[{"rating":{"_gte":5}},{"title":{"_icontains":"über"}}]}&fields=id,title,rating',
  '/api/items/articles?search=bridge&fields=id,title',
  '/api/items/authors/1',
  '/api/items/samples?limit=1',
  '/api/items/settings',
  '/api/items/articles?fields=id,title,author.name,comments.body&deep[comments][_limit]=2&limit=3',
  '/api/items/articles?groupBy=status&aggregate[count]=*',
  '/api/versions',
]

/** Links to the example reads and the OpenAPI document. */
function indexPage(): string {
  // Percent-encoded: Node's HTTP parser answers a bare 400 to raw non-ASCII (`über`) or spaces in a URL.
  const links = [...EXAMPLES, '/api/openapi.json'].map((path) => {
    const href = encodeURI(path)
    return `<li><a href="${escapeHtml(href)}">${escapeHtml(path)}</a></li>`
  })
  return `<!doctype html>
<title>express-items-router demo</title>
<h1>express-items-router demo</h1>
<p>An Items API over an embedded SQLite database, mounted at <code>/api</code>. Reads to try:</p>
<ul>
${links.join('\n')}
</ul>
<p>Writes, content versions and the rest: see the documentation in <code>docs/</code>.</p>
`
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!)
}

async function main(): Promise<void> {
  const knex = openSqlite(process.env.DEMO_DB)
  if (!(await knex.schema.hasTable('articles'))) {
    await createTables(knex)
    await seedTables(knex, { settings: true })
  }

  const app = express()
  app.use('/api', createItemsRouter({ knex, collections, defaultAccess: true, openapi: true }))
  // The address the demo prints answers: a page of links to try, at `/` and at the mount path.
  app.get(['/', '/api'], (_req, res) => {
    res.type('html').send(indexPage())
  })
  const port = Number(process.env.PORT ?? 3000)
  // Loopback unless asked: a demo with open writes should not be reachable from the network by default.
  const host = process.env.HOST ?? '127.0.0.1'
  const server = app.listen(port, host, () => {
    const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    console.log(`express-items-router demo on ${base} (SQLite, seeded from fixtures/): open it for a page of links\n\nTry:`)
    for (const path of EXAMPLES) console.log(`  curl '${base}${encodeURI(path)}'`)
    console.log(`\nWrite:\n  curl -X POST ${base}/api/items/authors -H 'Content-Type: application/json' -d '{"name":"Ada"}'`)
    console.log(`\nA draft of article 1 (articles and settings are versioned):`)
    console.log(
      `  curl -X POST ${base}/api/versions -H 'Content-Type: application/json' -d '{"key":"draft","collection":"articles","item":1}'`,
    )
    console.log(`  curl -X POST ${base}/api/versions/1/save -H 'Content-Type: application/json' -d '{"title":"New title"}'`)
    console.log(`  curl '${base}/api/items/articles/1?version=draft&fields=id,title'`)
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
