// Test support: a knex instance per dialect on a database of its own holding the rental schema (PostgreSQL: the
// schema `rental` of the worker's database, reached through `searchPath`; MySQL: a database beside the worker's).
import type { Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'
import { openSchema } from '../support/databases'
import { createRentalSchema, dropRentalSchema } from './rental-schema'

/** Opens a knex on the rental schema, created afresh; `worker` is the suite's own knex (the worker's database). */
export async function openRentalDatabase(name: DialectName, worker: Knex): Promise<Knex> {
  const knex = await openSchema(name, 'rental', worker)
  await createRentalSchema(knex, name)
  return knex
}

export async function closeRentalDatabase(name: DialectName, knex: Knex | undefined): Promise<void> {
  if (!knex) return
  await dropRentalSchema(knex, name)
  await knex.destroy()
}
