// Picks the catalog reader of a knex instance's database: the way in for readCollections and checkCollections.
import type { Knex } from 'knex'
import type { CatalogReader, CatalogTable } from './catalog'
import { dialectOf, type DialectName } from '../dialects'
import { readMysqlCatalog } from './mysql-catalog'
import { readPostgresCatalog } from './postgres-catalog'
import { readSqliteCatalog } from './sqlite-catalog'

export type { CatalogColumn, CatalogForeignKey, CatalogTable, DeleteAction } from './catalog'

const READERS: Readonly<Record<DialectName, CatalogReader>> = {
  sqlite: readSqliteCatalog,
  postgres: readPostgresCatalog,
  mysql: readMysqlCatalog,
}

/** Every table and view of the database (PostgreSQL: of `schema`, default `current_schema()`), sorted by name. */
export async function readCatalog(knex: Knex, schema?: string): Promise<CatalogTable[]> {
  const tables = await READERS[dialectOf(knex).name](knex, schema)
  return tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
