// Shared by the PostgreSQL and MySQL dialects: named and row locks for writes that read before they write.
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'

/** `SELECT key FROM table WHERE key IN (…) ORDER BY key FOR UPDATE`: both databases lock rows in scan order. */
export async function lockRowsForUpdate(
  trx: Knex | Knex.Transaction,
  table: string,
  column: string,
  keys: readonly unknown[],
): Promise<void> {
  if (keys.length === 0) return
  const sorted = [...new Set(keys)] as Knex.Value[]
  await trx(table).select(column).whereIn(column, sorted).orderBy(column).forUpdate()
}

/** A lock name as a signed 64-bit integer (PostgreSQL's advisory lock keys), as a decimal string. */
export function lockNumber(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString()
}

/** A lock name within MySQL's 64-character limit, and the same for the same name in every process. */
export function lockName(name: string): string {
  return `items:${createHash('sha256').update(name).digest('hex').slice(0, 40)}`
}
