// Test support: a knex instance per dialect on a database of its own holding the legacy schema (PostgreSQL: the
// schema `legacy` of the worker's database, reached through `searchPath`; MySQL: a database beside the worker's).
import knexFactory, { type Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'
import { knexConfig, workerDatabase } from '../support/databases'
import { createLegacySchema, dropLegacySchema } from './legacy-schema'

export const legacyMysqlDatabase = (): string => `${workerDatabase()}_legacy`

export function legacyConfig(name: DialectName, sqliteFile = ':memory:'): Knex.Config {
  const config = knexConfig(name)
  if (name === 'postgres') return { ...config, searchPath: ['legacy'] }
  if (name === 'mysql') return { ...config, connection: { ...(config.connection as object), database: legacyMysqlDatabase() } }
  return { ...config, connection: { filename: sqliteFile } }
}

/** Opens a knex on the legacy schema, created afresh; `worker` is the suite's own knex (the worker's database). */
export async function openLegacyDatabase(name: DialectName, worker: Knex, sqliteFile?: string): Promise<Knex> {
  if (name === 'mysql') await worker.raw('create database if not exists ?? character set utf8mb4', [legacyMysqlDatabase()])
  const knex = knexFactory(legacyConfig(name, sqliteFile))
  await createLegacySchema(knex, name)
  return knex
}

export async function closeLegacyDatabase(name: DialectName, knex: Knex | undefined): Promise<void> {
  if (!knex) return
  await dropLegacySchema(knex, name)
  await knex.destroy()
}
