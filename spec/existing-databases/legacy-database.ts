// Test support: a knex instance per dialect on a database of its own holding the legacy schema (PostgreSQL: the
// schema `legacy` of the worker's database, reached through `searchPath`; MySQL: a database beside the worker's).
import type { Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'
import { openSchema, schemaDatabase } from '../support/databases'
import { createLegacySchema, dropLegacySchema } from './legacy-schema'

export const legacyMysqlDatabase = (): string => schemaDatabase('legacy')

/** Opens a knex on the legacy schema, created afresh; `worker` is the suite's own knex (the worker's database). */
export async function openLegacyDatabase(name: DialectName, worker: Knex, sqliteFile?: string): Promise<Knex> {
  const knex = await openSchema(name, 'legacy', worker, sqliteFile)
  await createLegacySchema(knex, name)
  return knex
}

export async function closeLegacyDatabase(name: DialectName, knex: Knex | undefined): Promise<void> {
  if (!knex) return
  await dropLegacySchema(knex, name)
  await knex.destroy()
}
