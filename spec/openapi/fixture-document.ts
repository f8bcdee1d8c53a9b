// The OpenAPI document of the fixture collections, built without a database connection (knex connects lazily).
import knexFactory from 'knex'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type OpenApiDocument } from '../../lib'

export function fixtureDocument(): OpenApiDocument {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  try {
    return createItemsRouter({ knex, collections, openapi: { title: 'Fixture items' } }).openapi({ serverUrl: '/api' })
  } finally {
    void knex.destroy()
  }
}
