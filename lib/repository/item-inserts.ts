// Inserts: runs of payloads that one multi-row INSERT can write, the keys each INSERT learns (RETURNING, counted
// from the first, or asked after it), and a uuid key drawn here when a payload has none.
import { keyOfValues } from '../schema/item-key'
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Collection } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import type { Db } from '../execute/db'
import { onOneConnection, pinnedTo } from '../execute/bare-transaction'
import { inKnexTransaction, runBuilder } from '../execute/run-statement'
import { fromStorage, toStorage } from '../dialects/storage'
import type { ReturnedRow, ReturningColumns } from './write-types'

/** One inserted item: its key, and its row when the INSERT returned it. */
interface Inserted {
  readonly key: PrimaryKey
  readonly row?: ReturnedRow
}

/** How the keys of a multi-row INSERT are learnt: RETURNING, or counted from the first (see Dialect.insertKeyStep). */
type BatchKeys = 'returning' | { readonly step: number }

/** Whether two payloads set the same fields (in any order: knex lines a multi-row INSERT's columns up by name). */
function sameFields(a: Payload, b: Payload): boolean {
  if (a.size !== b.size) return false
  for (const field of b.keys()) if (!a.has(field)) return false
  return true
}

/** The row a payload writes: each field's value as its column stores it. */
export function rowOf(payload: Payload, dialect: Dialect): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  for (const [field, value] of payload) row[field.column] = toStorage(field, value, dialect)
  return row
}

export class ItemInserts {
  constructor(private readonly dialect: Dialect) {}

  /**
   * Inserts the payloads in order; answers their keys, and the rows as written where `returning` is given and
   * each INSERT returned its rows. `readsBack`: the table's INSERT takes no RETURNING (ServerTraits.readsBack).
   */
  async insert(
    trx: Db,
    collection: Collection,
    payloads: readonly Payload[],
    returning: ReturningColumns | null,
    readsBack: boolean,
  ): Promise<{ keys: PrimaryKey[]; rows: ReturnedRow[] }> {
    const keys: PrimaryKey[] = []
    const rows: ReturnedRow[] = []
    const batchKeys = payloads.length > 1 && !readsBack ? await this.batchKeys(trx, returning) : null
    const pk = collection.primaryKey
    const { syncAutoIncrement } = this.dialect
    for (const run of this.insertRuns(collection, payloads, batchKeys !== null)) {
      // A row with an explicit key runs alone (insertRuns).
      const explicitKey = pk.autoIncrement ? run[0]!.get(pk) : null
      if (syncAutoIncrement !== null && explicitKey != null) await syncAutoIncrement(trx, collection.table, pk.column, String(explicitKey))
      // Runs are of one row where the keys of a multi-row INSERT cannot be learnt (batchKeys null).
      const inserted =
        run.length === 1 || batchKeys === null
          ? [await this.insertOne(trx, collection, run[0]!, readsBack ? null : returning, readsBack)]
          : await this.insertMany(trx, collection, run, batchKeys, returning)
      for (const { key, row } of inserted) {
        keys.push(key)
        if (row !== undefined) rows.push(row)
      }
    }
    return { keys, rows }
  }

  /**
   * The payloads in order, as runs that one multi-row INSERT can write: consecutive payloads with the same fields
   * (so no row falls back to another's defaults) and no key of their own, within the dialect's row and
   * parameter bounds. Where the dialect has no such INSERT, or keys are given, runs of one.
   */
  private insertRuns(collection: Collection, payloads: readonly Payload[], multiRow: boolean): Payload[][] {
    const pk = collection.primaryKey
    const most = this.dialect.multiRowInsert
    if (most === null || !multiRow || !pk.autoIncrement) return payloads.map((payload) => [payload])
    const runs: Payload[][] = []
    // The payload that set the fields of the last run; null when that run must stay alone.
    let fieldsOf: Payload | null = null
    for (const payload of payloads) {
      // An empty payload is all defaults, which a multi-row INSERT cannot spell.
      const alone = payload.size === 0 || payload.get(pk) != null
      const last = runs[runs.length - 1]
      const room = Math.min(most, Math.floor(this.dialect.maxParameters / Math.max(1, payload.size)))
      if (!alone && fieldsOf !== null && last !== undefined && sameFields(fieldsOf, payload) && last.length < room) last.push(payload)
      else runs.push([payload])
      fieldsOf = alone ? null : payload
    }
    return runs
  }

  /**
   * How this transaction learns the keys of a multi-row INSERT: through RETURNING (always, when the INSERT
   * returns the answer's rows), or counted from the first with a step (see Dialect.insertKeyStep); null when it
   * cannot, and each row gets an INSERT of its own.
   */
  private async batchKeys(trx: Db, returning: ReturningColumns | null): Promise<BatchKeys | null> {
    if (this.dialect.multiRowInsert === null) return null
    if (returning !== null || this.dialect.insertKeyStep === null) return 'returning'
    const step = await this.dialect.insertKeyStep(trx)
    return step === null ? null : { step }
  }

  /**
   * Writes payloads with the same fields and database-assigned keys in one INSERT; answers their keys in order,
   * with their rows when the keys come through RETURNING and `returning` is given.
   */
  private async insertMany(
    trx: Db,
    collection: Collection,
    payloads: readonly Payload[],
    batchKeys: BatchKeys,
    returning: ReturningColumns | null,
  ): Promise<Inserted[]> {
    const pk = collection.primaryKey
    const insert = trx(collection.table).insert(payloads.map((payload) => rowOf(payload, this.dialect)))
    if (batchKeys !== 'returning') {
      const [first] = (await insert) as (number | string)[]
      // BigInt: a bigInteger key may pass 2^53, as its driver value is then a digit string.
      return payloads.map((_, index) => {
        const key = BigInt(first!) + BigInt(index * batchKeys.step)
        return { key: fromStorage(pk, Number.isSafeInteger(Number(key)) ? Number(key) : String(key), this.dialect) as PrimaryKey }
      })
    }
    // `returning` reads the key under the field's name, as every read does; without it, the bare column.
    const keyName = returning === null ? pk.column : pk.name
    const created = (await this.dialect.returningInsert(trx, insert, returning ?? [pk.column])) as ReturnedRow[]
    const inserted = created.map((row) => ({
      key: fromStorage(pk, row[keyName], this.dialect) as number,
      row: returning === null ? undefined : row,
    }))
    return inserted.sort((a, b) => Number(a.key) - Number(b.key))
  }

  /** The row to insert for `payload`, with a uuid key drawn here when it has none; its key when known before. */
  private insertRow(collection: Collection, payload: Payload): { row: Record<string, unknown>; key: PrimaryKey | null } {
    const pk = collection.primaryKey
    const row = rowOf(payload, this.dialect)
    // A create names every component of a composite key (payload-validator.ts requires them).
    if (collection.key.length > 1) return { row, key: keyOfValues(collection, (field) => payload.get(field)) }
    const given = payload.get(pk) as PrimaryKey | null | undefined
    if (given != null) return { row, key: given }
    if (pk.type !== 'uuid') return { row, key: null }
    const key = randomUUID()
    row[pk.column] = key
    return { row, key }
  }

  /** `readsBack`: the table's INSERT takes no RETURNING (ServerTraits.readsBack), so a new key comes from elsewhere. */
  private async insertOne(
    trx: Db,
    collection: Collection,
    payload: Payload,
    returning: ReturningColumns | null,
    readsBack = false,
  ): Promise<Inserted> {
    const pk = collection.primaryKey
    const { row, key } = this.insertRow(collection, payload)
    // Past knex's runner (see run-statement.ts).
    const insert = trx(collection.table).insert(row)
    const { insertedKey } = this.dialect
    if (readsBack && key == null && insertedKey !== null) {
      // The sequence's value is the session's: the INSERT and the question about it share a connection.
      const written = async (on: Db): Promise<unknown> => {
        await runBuilder(on, on(collection.table).insert(row))
        return insertedKey(on, collection.table, pk.column)
      }
      const created =
        pinnedTo(trx) !== undefined || inKnexTransaction(trx) ? await written(trx) : await onOneConnection(trx as Knex, written)
      return { key: fromStorage(pk, created, this.dialect) as PrimaryKey }
    }
    if (returning !== null) {
      const [written] = await runBuilder<ReturnedRow[]>(trx, this.dialect.returningInsert(trx, insert, returning))
      return { key: key ?? (fromStorage(pk, written![pk.name], this.dialect) as PrimaryKey), row: written! }
    }
    if (key != null) {
      await runBuilder(trx, insert)
      return { key }
    }
    if (this.dialect.insertReturnsKeyWithReturning) {
      const [created] = await runBuilder<Record<string, unknown>[]>(trx, insert.returning(pk.column))
      return { key: fromStorage(pk, created![pk.column], this.dialect) as PrimaryKey }
    }
    const [id] = await runBuilder<unknown[]>(trx, insert)
    return { key: fromStorage(pk, id, this.dialect) as PrimaryKey }
  }
}
