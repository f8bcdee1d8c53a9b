// What a caller hands a write besides its payloads: the changes of an update, and the checks and records that
// run inside the write's transaction.
import type { Db } from '../execute/db'
import type { PrimaryKey } from '../types'

/** Changes for some items: `data` as sent, for `keys`. */
export interface Change {
  readonly keys: readonly PrimaryKey[]
  readonly data: unknown
  /** The index in an array body, named in validation errors. */
  readonly item?: number
}

/**
 * A check run inside a write's transaction, after the rows it changes are locked, with their keys (none for a
 * create): whatever it reads still holds at commit. A promote's `mainHash` and `If-Match` are guards.
 */
export type WriteGuard = (trx: Db, keys: readonly PrimaryKey[]) => Promise<void>

export interface WriteOptions {
  readonly guard?: WriteGuard
  /**
   * Runs last inside the transaction with the written keys: what it records commits with the write, and what it
   * throws undoes it (a promote that changed nothing).
   */
  readonly written?: (trx: Db, keys: readonly PrimaryKey[]) => Promise<void>
}
