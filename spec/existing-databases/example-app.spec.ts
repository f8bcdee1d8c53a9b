// The second demo (examples/existing-database.ts) serves a database it did not create, through readCollections:
// its answers agree with plain SQL on the same file, and the database's own refusals are 4xx.
import type { Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createExistingDatabaseApp, createLegacyTables } from '../../examples/existing-database'
import { openSqlite } from '../../examples/sqlite-knex'
import { expectError } from '../support/expect-error'

describe('examples/existing-database.ts (SQLite)', () => {
  let knex: Knex
  let app: Express
  const warnings: string[] = []

  beforeAll(async () => {
    knex = openSqlite()
    await createLegacyTables(knex)
    const warn = console.warn
    console.warn = (line: string) => warnings.push(line)
    try {
      app = await createExistingDatabaseApp(knex)
    } finally {
      console.warn = warn
    }
  })

  afterAll(async () => {
    await knex.destroy()
  })

  it('reports the table without a primary key instead of serving it', async () => {
    expect(warnings.some((line) => line.includes('audit_log'))).toBe(true)
    expectError(await request(app).get('/api/items/audit_log'), 404, 'ROUTE_NOT_FOUND')
  })

  it('reads dates written by knex and by CURRENT_TIMESTAMP as ISO text, and relations both ways', async () => {
    const response = await request(app).get('/api/items/Customers').query({ fields: 'id,fullName,joined_at,orders.total', sort: 'id' })
    expect(response.status).toBe(200)
    const [ada, alan] = response.body.data as { fullName: string; joined_at: string; orders: { total: string }[] }[]
    expect(ada?.orders.map((order) => order.total).sort()).toEqual(['19.90', '5.00'])
    expect(alan?.orders).toEqual([{ total: '120.00' }])
    const stored = (await knex('Customers').where({ id: 1 }).first<{ joined_at: string }>('joined_at'))!.joined_at
    expect(ada?.joined_at).toBe(stored.replace(' ', 'T'))
  })

  it('filters an epoch-millisecond column by a date and time as plain SQL does by its integer', async () => {
    const response = await request(app)
      .get('/api/items/orders')
      .query({ filter: { placed_at: { _gte: '2025-06-10T00:00:00' } }, fields: 'id,placed_at', sort: 'id' })
    expect(response.status).toBe(200)
    const expected = await knex('orders').where('placed_at', '>=', Date.parse('2025-06-10T00:00:00Z')).orderBy('id').pluck('id')
    expect((response.body.data as { id: number }[]).map((row) => row.id)).toEqual(expected)
    expect((response.body.data as { placed_at: string }[])[0]?.placed_at).toBe('2025-06-15T08:30:00')
  })

  it('answers the CHECK, the enum and the restricted delete with 4xx and writes nothing', async () => {
    const before = await knex('orders').count<{ n: number }[]>({ n: '*' })
    expectError(await request(app).post('/api/items/orders').send({ customer_id: 1, total: '-1' }), 400, 'CONSTRAINT_VIOLATION')
    expectError(await request(app).post('/api/items/orders').send({ customer_id: 1, total: '1', status: 'lost' }), 400, 'FAILED_VALIDATION')
    expect(await knex('orders').count<{ n: number }[]>({ n: '*' })).toEqual(before)
    expectError(await request(app).delete('/api/items/categories/1'), 400, 'INVALID_FOREIGN_KEY')
    expect(await knex('categories').pluck('id')).toEqual([1, 2])
  })
})
