import express from 'express'
import knexFactory from 'knex'
import { knexConfig } from '../spec/support/databases'
import { collections } from '../fixtures/schema'
import { seedTables } from '../fixtures/seed'
import { createTables } from '../fixtures/tables'
import { createItemsRouter } from '../lib'
async function main() {
  const knex = knexFactory(knexConfig('sqlite'))
  await createTables(knex); await seedTables(knex)
  const app = express(); app.use('/api', createItemsRouter({ knex, collections }))
  const server = app.listen(0); await new Promise(r=>server.once('listening', r))
  const base = `http://127.0.0.1:${(server.address() as any).port}`
  knex.on('query', (q: any) => console.log('  SQL', q.sql.slice(0, 250), JSON.stringify(q.bindings ?? []).slice(0, 80)))
  for (const [m, p, b] of [['PATCH','/api/items/articles/42?fields=id,title,rating',{rating:4}],['POST','/api/items/articles?fields=id,title,status,rating',{title:'x',status:'published',rating:3}],['POST','/api/items/articles?fields=id',[{title:'x',status:'published',rating:3},{title:'y',status:'published',rating:3}]]] as any) {
    console.log(m, p)
    const r = await fetch(base + p, { method: m, headers: {'content-type':'application/json'}, body: JSON.stringify(b) })
    console.log(r.status, (await r.text()).slice(0, 200))
  }
  server.close(); await knex.destroy()
}
main()
