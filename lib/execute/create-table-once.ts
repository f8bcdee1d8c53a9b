// Creates one of the router's own tables unless it exists, when several processes may try at the same moment.
import type { Knex } from 'knex'

/**
 * `createTable` unless the table exists. Processes of one app started together all find the table missing; the
 * ones that lose the race get the database's "already exists" (PostgreSQL may report a duplicate type instead),
 * and the table is there, which is all they wanted.
 */
export async function createTableOnce(knex: Knex, table: string, build: (table: Knex.CreateTableBuilder) => void): Promise<void> {
  if (await knex.schema.hasTable(table)) return
  try {
    await knex.schema.createTable(table, build)
  } catch (error) {
    if (!(await knex.schema.hasTable(table))) throw error
  }
}

/** A memo of `create` that forgets a failure, so the next request tries again instead of failing for good. */
export function onceUntilFailure(create: (() => Promise<void>) | null): () => Promise<void> {
  let created: Promise<void> | null = null
  return () =>
    (created ??= (create ? create() : Promise.resolve()).catch((error: unknown) => {
      created = null
      throw error
    }))
}
