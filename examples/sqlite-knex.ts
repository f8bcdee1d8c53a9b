// The knex instance both demos use: one better-sqlite3 connection with foreign keys enforced (the router
// registers its SQL functions on it itself).
import knexFactory, { type Knex } from 'knex'

/** `filename` ':memory:' (the default) keeps the database for the life of the process only. */
export function openSqlite(filename = ':memory:'): Knex {
  return knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    // One connection: an in-memory database exists once per connection.
    pool: {
      min: 1,
      max: 1,
      afterCreate: (db: { pragma(sql: string): void }, done: (error: Error | null, db: unknown) => void) => {
        db.pragma('foreign_keys = ON')
        done(null, db)
      },
    },
  })
}
