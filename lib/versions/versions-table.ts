// The content-versions table: its DDL for host migrations, and its definition as an internal collection.
import type { Knex } from 'knex'
import { createTableOnce } from '../execute/create-table-once'
import { dialectOf } from '../dialects'
import type { CollectionDefinition } from '../types'

export const DEFAULT_VERSIONS_TABLE = 'items_versions'

/**
 * Creates the table that holds content versions, if it does not exist. Dates are ISO-8601 UTC text and the
 * delta JSON text, so the table is the same on every database.
 */
export async function createVersionsTable(knex: Knex, table: string = DEFAULT_VERSIONS_TABLE): Promise<void> {
  const dialect = dialectOf(knex)
  await createTableOnce(knex, table, (t) => {
    t.increments('id')
    // The unique (collection, item, key) must tell "Draft" from "draft", as every other comparison does.
    dialect.exactStringColumn(t, 'key', 64).notNullable()
    t.string('name', 255)
    dialect.exactStringColumn(t, 'collection', 64).notNullable()
    dialect.exactStringColumn(t, 'item', 255).notNullable()
    t.string('hash', 64)
    t.text('delta')
    t.string('date_created', 24)
    t.string('date_updated', 24)
    t.unique(['collection', 'item', 'key'])
  })
}

/** The table as a collection, so `/versions` is read with the same parser, filters and loader as items. */
export function versionsCollection(table: string): CollectionDefinition {
  return {
    table,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      key: { type: 'string', nullable: false, maxLength: 64 },
      name: { type: 'string', maxLength: 255 },
      collection: { type: 'string', nullable: false, maxLength: 64 },
      // Answered as null for a draft of a new item (stored as NEW_ITEM, see versions-service.ts).
      item: { type: 'string', maxLength: 255 },
      hash: { type: 'string', maxLength: 64 },
      delta: { type: 'json' },
      date_created: { type: 'timestamp' },
      date_updated: { type: 'timestamp' },
    },
  }
}
