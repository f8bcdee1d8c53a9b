// Registers SQL functions on every better-sqlite3 connection of the host's pool: items_fold(), because SQLite's
// own lower() and LIKE fold ASCII only and the API promises that `_icontains` and `search` treat "Ü" and "ü"
// alike on every database; and items_exact_sum(), because SQLite sums decimals as doubles.
import type { Knex } from 'knex'
import { foldCase, plainNumberText } from '../../schema/field-types'

interface SqliteConnection {
  function(name: string, options: { deterministic: boolean }, fn: (value: unknown) => unknown): unknown
  aggregate(
    name: string,
    options: {
      safeIntegers: boolean
      deterministic: boolean
      start: () => ExactSum
      step: (total: ExactSum, value: unknown) => ExactSum
      result: (total: ExactSum) => string | null
    },
  ): unknown
}

/** A decimal as an integer count of 10^-scale units. */
interface ExactSum {
  units: bigint
  scale: number
  seen: boolean
}

function addExact(total: ExactSum, value: unknown): ExactSum {
  if (value === null || value === undefined) return total
  const text = typeof value === 'bigint' ? value.toString() : typeof value === 'number' ? plainNumberText(value) : String(value)
  const [whole, fraction = ''] = text.split('.')
  const scale = Math.max(total.scale, fraction.length)
  const units = BigInt(whole + fraction.padEnd(scale, '0'))
  return { units: total.units * 10n ** BigInt(scale - total.scale) + units, scale, seen: true }
}

function exactSumText(total: ExactSum): string | null {
  if (!total.seen) return null
  const negative = total.units < 0n
  const digits = (negative ? -total.units : total.units).toString().padStart(total.scale + 1, '0')
  const body = total.scale === 0 ? digits : `${digits.slice(0, -total.scale)}.${digits.slice(-total.scale)}`
  return negative ? `-${body}` : body
}

interface PoolLike {
  on(event: 'createSuccess', listener: (eventId: number, resource: unknown) => void): void
  free?: ReadonlyArray<{ resource: unknown }>
  used?: ReadonlyArray<{ resource: unknown }>
}

const fold = (value: unknown): unknown => (value === null || value === undefined ? value : foldCase(String(value)))

function register(connection: unknown): void {
  const candidate = connection as Partial<SqliteConnection> | null
  if (typeof candidate?.function === 'function') {
    candidate.function('items_fold', { deterministic: true }, fold)
  }
  if (typeof candidate?.aggregate === 'function') {
    // safeIntegers: integers past 2^53 arrive as BigInt instead of rounded doubles.
    candidate.aggregate('items_exact_sum', {
      safeIntegers: true,
      deterministic: true,
      start: () => ({ units: 0n, scale: 0, seen: false }),
      step: addExact,
      result: exactSumText,
    })
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
