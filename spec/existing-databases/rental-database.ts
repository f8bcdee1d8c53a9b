// Test support: a knex instance per dialect on a database of its own holding the rental schema (PostgreSQL: the
// schema `rental` of the worker's database, reached through `searchPath`; MySQL: a database beside the worker's).
import knexFactory, { type Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'
import { knexConfig, workerDatabase } from '../support/databases'
import { createRentalSchema, dropRentalSchema } from './rental-schema'

const rentalMysqlDatabase = (): string => `${workerDatabase()}_rental`

function rentalConfig(name: DialectName): Knex.Config {
  const config = knexConfig(name)
  if (name === 'postgres') return { ...config, searchPath: ['rental'] }
  if (name === 'mysql') return { ...config, connection: { ...(config.connection as object), database: rentalMysqlDatabase() } }
  return { ...config, connection: { filename: ':memory:' } }
}

/** Opens a knex on the rental schema, created afresh; `worker` is the suite's own knex (the worker's database). */
export async function openRentalDatabase(name: DialectName, worker: Knex): Promise<Knex> {
  if (name === 'mysql') await worker.raw('create database if not exists ?? character set utf8mb4', [rentalMysqlDatabase()])
  const knex = knexFactory(rentalConfig(name))
  await createRentalSchema(knex, name)
  return knex
}

export async function closeRentalDatabase(name: DialectName, knex: Knex | undefined): Promise<void> {
  if (!knex) return
  await dropRentalSchema(knex, name)
  await knex.destroy()
}
