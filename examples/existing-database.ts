// The second demo: a SQLite database another program wrote (raw DDL, dates written by knex and by SQLite's own
// clock, a CHECK, a self reference, a table without a key), served as it is with readCollections().
// `npm run start:existing`; DEMO_DB=path keeps the file between runs.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import { createItemsRouter, readCollections } from '../lib'
import { openSqlite } from './sqlite-knex'

const DDL = [
  `create table "Customers" (id integer primary key, "fullName" varchar(120) not null, email varchar(200) unique,
     joined_at datetime default CURRENT_TIMESTAMP not null)`,
  `create table categories (id integer primary key, name varchar(80) not null,
     parent_id integer references categories(id) on delete restrict)`,
  `create table orders (id integer primary key, customer_id integer not null references "Customers"(id) on delete cascade,
     status varchar(16) not null default 'open' check (status in ('open', 'paid', 'shipped')),
     total numeric(10, 2) not null check (total >= 0), placed_at datetime)`,
  // No primary key: readCollections leaves it out and says so.
  `create table audit_log (at datetime, line text)`,
]

/** Creates and fills the tables the way another program would have: raw SQL, and JS Dates through knex. */
export async function createLegacyTables(knex: Knex): Promise<void> {
  for (const statement of DDL) await knex.raw(statement)
  await knex('Customers').insert([{ fullName: 'Ada Lovelace', email: 'ada@example.com' }, { fullName: 'Alan Turing' }])
  await knex('categories').insert([{ name: 'Books' }, { name: 'Science', parent_id: 1 }])
  // One row per insert: knex binds a JS Date as epoch milliseconds then (a multi-row insert would inline it as
  // local-time text instead).
  const orders = [
    { customer_id: 1, status: 'paid', total: '19.90', placed_at: new Date('2025-06-01T10:00:00Z') },
    { customer_id: 1, total: '5.00', placed_at: new Date('2025-06-15T08:30:00Z') },
    { customer_id: 2, status: 'shipped', total: '120.00', placed_at: new Date('2025-07-02T17:45:00Z') },
  ]
  for (const order of orders) await knex('orders').insert(order)
}

/** The app: whatever the database holds, read once at startup. */
export async function createExistingDatabaseApp(knex: Knex): Promise<Express> {
  const app = express()
  // Writes open to anyone who reaches the app, as in a demo: put authentication or access rules before going live.
  app.use('/api', createItemsRouter({ knex, collections: await readCollections(knex), defaultAccess: true }))
  return app
}

const EXAMPLES = [
  '/api/items/Customers?fields=id,fullName,joined_at,orders.total',
  '/api/items/orders?filter[placed_at][_gte]=2025-06-10T00:00:00&fields=id,total,placed_at,customer_id.fullName',
  '/api/items/categories?fields=id,name,categories.name',
  '/api/items/orders?groupBy=month(placed_at)&aggregate[sum]=total',
]

async function main(): Promise<void> {
  const knex = openSqlite(process.env.DEMO_DB)
  if (!(await knex.schema.hasTable('orders'))) await createLegacyTables(knex)
  const app = await createExistingDatabaseApp(knex)
  const port = Number(process.env.PORT ?? 3000)
  const host = process.env.HOST ?? '127.0.0.1'
  const server = app.listen(port, host, () => {
    const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`
    console.log(`express-items-router over an existing SQLite database on ${base}\n\nTry:`)
    for (const path of EXAMPLES) console.log(`  curl '${base}${encodeURI(path)}'`)
    console.log(`\nRefused by the database's CHECK, answered 400 CONSTRAINT_VIOLATION:`)
    console.log(`  curl -X POST ${base}/api/items/orders -H 'Content-Type: application/json' -d '{"customer_id":1,"total":"-1"}'`)
  })
  const stop = (): void => {
    server.close(() => void knex.destroy())
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
