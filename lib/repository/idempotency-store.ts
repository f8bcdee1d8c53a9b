// The Idempotency-Key records: which key claimed which write, its keys and its response, so a retried request
// is answered from the record instead of writing again. A claim commits with the write it belongs to.
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { Db } from '../execute/db'
import { createTableOnce } from '../execute/create-table-once'
import type { OwnTable } from '../execute/own-table'
import type { PrimaryKey } from '../types'
import { dialectOf } from '../dialects'

export const DEFAULT_IDEMPOTENCY_TABLE = 'items_idempotency'

/** What the first request with a key did. `status` and `response` are missing while only the write is known. */
export interface IdempotencyRecord {
  readonly fingerprint: string
  readonly keys: PrimaryKey[] | null
  readonly status: number | null
  readonly response: unknown
}

/** Another request claimed the key first (and committed). */
export class IdempotencyKeyTaken extends Error {}

/**
 * Creates the table of Idempotency-Key records, if it does not exist. Responses are JSON text (MySQL's
 * LONGTEXT); `created_at` is ISO-8601 UTC text, indexed for the expiry sweep.
 */
export async function createIdempotencyTable(knex: Knex, table: string = DEFAULT_IDEMPOTENCY_TABLE): Promise<void> {
  const dialect = dialectOf(knex)
  await createTableOnce(knex, table, (t) => {
    // Keys compare exactly: "Abc" and "abc" are two requests, on MySQL too.
    dialect.exactStringColumn(t, 'key', 255).primary()
    t.string('owner', 36).notNullable()
    t.string('fingerprint', 64).notNullable()
    t.text('keys', 'longtext')
    t.integer('status')
    t.text('response', 'longtext')
    t.string('created_at', 24).notNullable().index()
  })
}

export class IdempotencyStore {
  private readonly table: string

  constructor(
    private readonly knex: Knex,
    /** The records' table, created on first use or expected from the host's migrations. */
    readonly own: OwnTable,
    private readonly ttlSeconds: number,
  ) {
    this.table = own.name
  }

  /** The record of `key`, unless there is none or it expired. */
  async find(key: string): Promise<IdempotencyRecord | null> {
    const row = (await this.knex(this.table).where({ key }).andWhere('created_at', '>=', this.cutoff()).first()) as
      { fingerprint: string; keys: string | null; status: number | null; response: string | null } | undefined
    if (!row) return null
    return {
      fingerprint: row.fingerprint,
      keys: row.keys === null ? null : (JSON.parse(row.keys) as PrimaryKey[]),
      status: row.status === null ? null : Number(row.status),
      response: row.response === null ? undefined : JSON.parse(row.response),
    }
  }

  /**
   * Claims `key` inside the write's transaction, sweeping expired records first. A concurrent claim of the same
   * key waits on the unique index until the first transaction ends: if that one committed, this one loses
   * (`IdempotencyKeyTaken`), and if it rolled back, this one claims the key.
   */
  async claim(trx: Db, key: string, fingerprint: string): Promise<void> {
    await trx(this.table).where('created_at', '<', this.cutoff()).delete()
    const owner = randomUUID()
    await trx(this.table).insert({ key, owner, fingerprint, created_at: new Date().toISOString() }).onConflict('key').ignore()
    const row = (await trx(this.table).where({ key }).first('owner')) as { owner: string } | undefined
    if (row?.owner !== owner) throw new IdempotencyKeyTaken()
  }

  /** Inside the write's transaction: the keys it wrote. */
  async recordKeys(trx: Db, key: string, keys: readonly PrimaryKey[]): Promise<void> {
    await trx(this.table)
      .where({ key })
      .update({ keys: JSON.stringify(keys) })
  }

  /** After commit: the response sent, so a replay answers exactly that. */
  async recordResponse(key: string, status: number, body: unknown): Promise<void> {
    await this.knex(this.table)
      .where({ key })
      .update({ status, response: body === undefined ? null : JSON.stringify(body) })
  }

  private cutoff(): string {
    return new Date(Date.now() - this.ttlSeconds * 1000).toISOString()
  }
}
