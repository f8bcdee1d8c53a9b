// The knex instance both demos use: one better-sqlite3 connection with foreign keys enforced and the router's
// SQL functions registered.
import knexFactory, { type Knex } from 'knex'
import { prepareSqliteConnection } from '../lib'

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
        prepareSqliteConnection(db)
        done(null, db)
      },
    },
  })
}
