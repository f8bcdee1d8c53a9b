// Registers items_fold() on every better-sqlite3 connection of the host's pool: SQLite's own lower() and LIKE
// fold ASCII only, and the API promises that `_icontains` and `search` treat "Ü" and "ü" alike on every database.
import type { Knex } from 'knex'

interface SqliteConnection {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown
}

interface PoolLike {
  on(event: 'createSuccess', listener: (eventId: number, resource: unknown) => void): void
  free?: ReadonlyArray<{ resource: unknown }>
  used?: ReadonlyArray<{ resource: unknown }>
}

/**
 * Lower-cases like PostgreSQL and MySQL do: JavaScript turns "İ" into "i" plus a combining dot, which would
 * then no longer match a plain "i"; the dot is dropped.
 */
const fold = (value: unknown): unknown =>
  value === null || value === undefined ? value : String(value).toLowerCase().replace(/i\u0307/g, 'i')

function register(connection: unknown): void {
  const candidate = connection as Partial<SqliteConnection> | null
  if (typeof candidate?.function === 'function') {
    candidate.function('items_fold', { deterministic: true }, fold)
  }
}

const prepared = new WeakSet<object>()

/**
 * knex offers no hook for connections it has already opened, so this reaches into its tarn pool: future
 * connections through the `createSuccess` event, existing ones through the pool's free and used lists.
 */
export function registerSqliteFunctions(knex: Knex): void {
  const pool = (knex.client as { pool?: PoolLike }).pool
  if (!pool || prepared.has(pool)) return
  prepared.add(pool)
  pool.on('createSuccess', (_eventId, resource) => register(resource))
  for (const entry of [...(pool.free ?? []), ...(pool.used ?? [])]) register(entry.resource)
}
