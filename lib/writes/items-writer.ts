// One caller's writes to one collection, in the order the README documents: access → before hook →
// validate → write → commit → after hook and events. Everything between the first two arrows shares one
// transaction, so a refusal or a throwing hook anywhere leaves nothing written.
import { collectErrors } from './collect-errors'
import type { CallerAccess, WriteRule } from '../access/caller-access'
import { ForbiddenError, InvalidPayloadError, NotFoundError } from '../errors'
import type { FieldNode, Selection } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import type { Db } from '../execute/db'
import { keyId, readFromRow } from '../repository/item-loader'
import type { Created, ItemsRepository, ReturnedRow, ReturningColumns, UpdateSet } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import type { Payload, PayloadValidator } from '../schema/payload-validator'
import { both } from '../query/filter-node'
import type { HookMeta, Item, PrimaryKey } from '../types'
import type { Lifecycle } from './lifecycle'
import type { Planning } from './plan-write'
import { PayloadChecks } from './payload-checks'
import { NestedWrites } from './nested-writes'
import { singletonKey, toItem, type Keying } from './write-events'

/** What nested writes need beyond the writer's own collection: the writers of the others, and the depth bound. */
export { SINGLETON_KEY } from './write-events'
export type { Change, WriteGuard, WriteOptions } from './write-options'
import type { Change, WriteOptions } from './write-options'

export interface NestedSetup extends Planning {
  /** The caller's writer of another collection (its payload checks serve the nested items written there). */
  readonly writerOf: (collection: Collection) => ItemsWriter
}

/** Runs `run` on each item, one after the other: hooks see a batch in order, on one transaction. */
async function inOrder<T, R>(items: readonly T[], run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (const [index, item] of items.entries()) results.push(await run(item, index))
  return results
}

/** What a transaction wrote, for the after hook and events, and the rows it returned for the answer. */
interface Written {
  readonly action: 'create' | 'update'
  readonly keys: PrimaryKey[]
  /** Each key's payload (turned into items only when a hook or listener hears the write). */
  readonly payloads: readonly Payload[]
  readonly rows?: ReturnedRow[] | null
}

const created = ({ keys, rows }: Created, payloads: readonly Payload[]): Written => ({
  action: 'create',
  keys,
  payloads,
  rows,
})

/** Whether inserting `payloads` lets the database draw a key for one of them. */
const drawsKey = (collection: Collection, payloads: readonly Payload[]): boolean => {
  const key = collection.primaryKey
  return key.autoIncrement && payloads.some((payload) => payload.get(key) === undefined || payload.get(key) === null)
}

/** A write checked and ready: how it runs in its transaction, and its payloads when no before hook can change them. */
interface PreparedWrite<Args extends unknown[]> {
  readonly run: (trx: Db, ...args: Args) => Promise<Written>
  readonly payloads: Payload[] | null
}

/** How the request reads its written items back for the answer (its `fields`, and the caller's read scope). */
export type AnswerRead = () => Promise<{ readonly fields: readonly FieldNode[]; readonly scope: FilterNode | null }>

export class ItemsWriter {
  /** What the last create or one-statement update returned for its answer (see `returnedRows`). */
  private returned: { readonly keys: readonly PrimaryKey[]; readonly rows: ReturnedRow[] } | null = null

  constructor(
    private readonly collection: Collection,
    private readonly repository: ItemsRepository,
    validator: PayloadValidator,
    private readonly lifecycle: Lifecycle,
    private readonly access: CallerAccess,
    /** The answer's read; with it, a create or a one-statement update may answer its own rows (see `returnedRows`). */
    private readonly answer: AnswerRead | null = null,
    /** Without it, a payload with a nested relational value is refused as one naming unknown fields. */
    nested: NestedSetup | null = null,
  ) {
    this.checks = new PayloadChecks(collection, validator, access)
    this.nestedWrites =
      nested &&
      new NestedWrites(collection, repository, lifecycle, access, nested, (other) =>
        other === collection ? this.checks : nested.writerOf(other).checks,
      )
  }

  /** Writes of payloads with nested relational values; null: such a payload is refused (see `nested`). */
  private readonly nestedWrites: NestedWrites | null

  /** The checks of this writer's payloads, which nested writes of other collections borrow too. */
  readonly checks: PayloadChecks

  /** The rows the last write returned for these keys, once; null: read the items back. */
  returnedRows(keys: readonly PrimaryKey[]): ReturnedRow[] | null {
    const returned = this.returned
    this.returned = null
    const same = returned !== null && returned.keys.length === keys.length && returned.keys.every((key, i) => keyId(key) === keyId(keys[i]))
    return same ? returned.rows : null
  }

  /** Creates the items (an array body keeps its indexes in errors); answers their keys. */
  async create(inputs: readonly unknown[], batch: boolean, options: WriteOptions = {}): Promise<PrimaryKey[]> {
    const { collection, repository } = this
    if (inputs.length > collection.limits.maxBatchSize) {
      throw new InvalidPayloadError(`At most ${collection.limits.maxBatchSize} items can be created in one request`)
    }
    if (this.nestedWrites?.takes(inputs)) return this.nestedWrites.create(inputs, batch, options)
    const write = this.prepareCreate(await this.access.write(collection, 'create'), inputs, batch)
    const single = this.singleStatementWrite(options, write.payloads)
    const fields = await this.answerFields('afterCreate')
    // Without RETURNING on the server's INSERT (MySQL, MariaDB before 10.5), the items are read back.
    const returning = fields === null ? null : this.repository.returningColumns(collection, fields)
    // Payloads may come from before hooks, so whether an attempt drew a key is known once it ran.
    let drewKey = false
    const written = single
      ? await repository.oneStatement(
          collection,
          async (db) => created(await repository.create(db, collection, single, this.access.view.scope, returning), single),
          drawsKey(collection, single),
        )
      : await repository.transaction(
          collection,
          async (trx) => {
            await options.guard?.(trx, [])
            const result = await write.run(trx, returning, (payloads) => (drewKey = drawsKey(collection, payloads)))
            return this.finish(trx, result, options)
          },
          { ...this.transactionOptions('beforeCreate'), retryDuplicateKey: () => drewKey },
        )
    this.returned = written.rows ? { keys: written.keys, rows: written.rows } : null
    const after = this.after(written)
    if (after !== null) await after
    return written.keys
  }

  /** Applies each change to its keys; a key the caller cannot see is a 404, one it may not change a 403. */
  async update(changes: readonly Change[], options: WriteOptions = {}): Promise<PrimaryKey[]> {
    if (this.nestedWrites?.takes(changes.map((change) => change.data))) {
      return this.nestedWrites.update(changes, options, async (trx) => {
        const rule = await this.access.write(this.collection, 'update')
        const keys = changes.flatMap((change) => change.keys)
        await this.repository.lockKeys(trx, this.collection, keys)
        await this.repository.checkKeys(trx, this.collection, keys, this.access.visibleFor(this.collection, rule), rule.scope)
        return changes.map((change) => change.keys)
      })
    }
    const rule = await this.access.write(this.collection, 'update')
    const write = this.prepareUpdate(rule, changes)
    const [change] = changes
    const single = changes.length === 1 && change!.keys.length === 1 ? this.singleStatementWrite(options, write.payloads) : null
    if (single) {
      // The row's key and the rule's scope in the UPDATE itself; no row changed sends the write the long way, which
      // tells a missing item (404) from a forbidden one (403).
      const [key] = change!.keys as [PrimaryKey]
      const { collection, repository } = this
      const answer = await this.answerFields('afterUpdate')
      const rows = await repository.oneStatement(collection, (db) =>
        repository.updateWithin(db, collection, key, single[0], rule.scope, answer),
      )
      if (rows !== null) {
        if (answer !== null) this.returned = { keys: [key], rows }
        const after = this.after({ action: 'update', keys: [key], payloads: single })
        if (after !== null) await after
        return [key]
      }
    }
    return this.runUpdate(write, options, async (trx) => {
      const keys = changes.flatMap((change) => change.keys)
      await this.repository.lockKeys(trx, this.collection, keys)
      await this.repository.checkKeys(trx, this.collection, keys, this.access.visibleFor(this.collection, rule), rule.scope)
      return changes.map((change) => change.keys)
    })
  }

  /** Applies `data` to the items the selection matches among those the caller may read and update. */
  async updateWhere(selection: Selection, data: unknown, options: WriteOptions = {}): Promise<PrimaryKey[]> {
    const rule = await this.access.write(this.collection, 'update')
    if (this.nestedWrites?.takes([data])) {
      return this.nestedWrites.update([{ keys: [], data }], options, async (trx) => {
        const keys = await this.findKeys(trx, selection, rule)
        await this.repository.lockKeys(trx, this.collection, keys)
        return [keys]
      })
    }
    return this.runUpdate(this.prepareUpdate(rule, [{ keys: [], data }]), options, async (trx) => {
      const keys = await this.findKeys(trx, selection, rule)
      await this.repository.lockKeys(trx, this.collection, keys)
      return [keys]
    })
  }

  /**
   * Updates the singleton's row, or creates it when there is none, under the collection's singleton lock: two
   * requests at once never both find no row and both create one. The lock binds one database server only; where
   * servers take writes side by side (a Galera cluster), a database-assigned key is replaced by `SINGLETON_KEY`,
   * so two creators collide on the primary key and the loser runs again, finding the winner's row.
   * A row the caller cannot see is not theirs to change: 403, as when they may not create it, never a second
   * row nor a 404 naming its key.
   */
  async saveSingleton(input: unknown, options: WriteOptions = {}): Promise<PrimaryKey> {
    const { collection, repository, access } = this
    if (this.nestedWrites?.takes([input])) return this.nestedWrites.saveSingleton(input as Record<string, unknown>, options)
    const written = await repository.transaction(
      collection,
      async (trx): Promise<Written> => {
        const existing = await repository.firstKey(collection, null, trx)
        if (existing === null) {
          const write = this.prepareCreate(await access.write(collection, 'create'), [input], false, singletonKey(collection))
          await options.guard?.(trx, [])
          return this.finish(trx, await write.run(trx), options)
        }
        const rule = await access.write(collection, 'update')
        const write = this.prepareUpdate(rule, [{ keys: [existing], data: input }])
        await repository.lockKeys(trx, collection, [existing])
        await repository.checkKeys(trx, collection, [existing], access.visibleFor(collection, rule), rule.scope).catch((error: unknown) => {
          throw error instanceof NotFoundError ? new ForbiddenError() : error
        })
        await options.guard?.(trx, [existing])
        return this.finish(trx, await write.run(trx, [[existing]]), options)
      },
      { lock: `singleton:${collection.table}`, retryDuplicateKey: true },
    )
    await this.after(written)
    return written.keys[0]!
  }

  /** Deletes the items; a key the caller cannot see is a 404, one it may not delete a 403. */
  async delete(keys: readonly PrimaryKey[], options: WriteOptions = {}): Promise<void> {
    const { collection, repository } = this
    const rule = await this.access.write(collection, 'delete')
    // One item and nothing to run between reading and deleting it: the rule's scope in the DELETE itself. No row
    // deleted sends it the long way, which tells a missing item (404) from a forbidden one (403).
    if (keys.length === 1 && options.guard === undefined && !this.lifecycle.has(collection, 'beforeDelete')) {
      const [key] = keys as [PrimaryKey]
      if (await repository.oneStatement(collection, (db) => repository.deleteWithin(db, collection, key, rule.scope))) {
        return this.afterDelete([key])
      }
    }
    await this.runDelete(async (trx) => {
      await repository.lockKeys(trx, collection, keys)
      await repository.checkKeys(trx, collection, keys, this.access.visibleFor(collection, rule), rule.scope)
      await options.guard?.(trx, keys)
      return [...keys]
    })
  }

  /** Deletes the items the selection matches among those the caller may read and delete. */
  async deleteWhere(selection: Selection, options: WriteOptions = {}): Promise<void> {
    const rule = await this.access.write(this.collection, 'delete')
    await this.runDelete(async (trx) => {
      const keys = await this.findKeys(trx, selection, rule)
      if (options.guard !== undefined) {
        // The DELETE would lock the rows too, but only after the guard has read them.
        await this.repository.lockKeys(trx, this.collection, keys)
        await options.guard(trx, keys)
      }
      return keys
    })
  }

  /**
   * The create sequence inside a transaction: before hooks, validation, insert. Without a hook to change
   * them, payloads are checked here, before the transaction: a bad one costs no SQL.
   */
  private prepareCreate(
    rule: WriteRule,
    sent: readonly unknown[],
    batch: boolean,
    key?: Keying,
  ): PreparedWrite<[returning?: ReturningColumns | null, inserting?: (payloads: readonly Payload[]) => void]> {
    const { collection, repository, lifecycle } = this
    const inputs = this.checks.relaxed(rule, sent) ?? sent
    this.checks.assertWritable(rule, 'create', inputs, (index) => (batch ? index : undefined))
    const validateAll = (items: readonly unknown[]): Payload[] =>
      collectErrors(items, (data, index) => this.checks.validate(rule, 'create', data, batch ? index : undefined))
    const early = lifecycle.has(collection, 'beforeCreate') ? null : validateAll(inputs)
    return {
      // A singleton's fixed key is chosen inside its lock: never a write of its own.
      payloads: key ? null : early,
      run: async (trx, returning = null, inserting) => {
        const payloads =
          early ??
          validateAll(await inOrder(inputs, (input) => lifecycle.before(collection, 'beforeCreate', input as Item, this.meta(trx))))
        inserting?.(payloads)
        const written = await repository.create(trx, collection, key ? payloads.map(key) : payloads, this.access.view.scope, returning)
        return created(written, payloads)
      },
    }
  }

  /** The update sequence inside a transaction, once each change's keys are known: before hooks, validation, update. */
  private prepareUpdate(rule: WriteRule, sent: readonly Change[]): PreparedWrite<[keys: readonly (readonly PrimaryKey[])[]]> {
    const { collection, repository, lifecycle } = this
    const datas = this.checks.relaxed(
      rule,
      sent.map((change) => change.data),
    )
    const changes = datas === null ? sent : sent.map((change, index): Change => ({ ...change, data: datas[index] }))
    this.checks.assertWritable(
      rule,
      'update',
      changes.map((change) => change.data),
      (index) => changes[index]!.item,
    )
    const validateAll = (datas: readonly unknown[]): Payload[] =>
      collectErrors(datas, (data, index) => this.checks.validate(rule, 'update', data, changes[index]!.item))
    const early = lifecycle.has(collection, 'beforeUpdate') ? null : validateAll(changes.map((change) => change.data))
    return {
      payloads: early,
      run: async (trx, keys) => {
        const payloads =
          early ??
          validateAll(
            await inOrder(changes, (change, index) =>
              lifecycle.before(collection, 'beforeUpdate', change.data as Item, { ...this.meta(trx), keys: [...keys[index]!] }),
            ),
          )
        const sets = payloads.map((payload, index): UpdateSet => ({ keys: keys[index]!, payload }))
        await repository.update(trx, collection, sets, this.access.view.scope)
        return {
          action: 'update',
          keys: sets.flatMap((set) => set.keys),
          payloads: sets.flatMap((set) => set.keys.map(() => set.payload)),
        }
      },
    }
  }

  /**
   * The payload of a write that is one statement, else null: one item, its payload known before any SQL (no
   * before hook), nothing else to run in its transaction (`options`), and one statement to write it (see
   * ItemsRepository.writesInOneStatement). An update then holds its key and the rule's scope in the UPDATE,
   * sparing the lock and the key check; on SQLite neither write needs BEGIN and COMMIT (see oneStatement).
   */
  private singleStatementWrite(options: WriteOptions, payloads: Payload[] | null): [Payload] | null {
    if (options.guard !== undefined || options.written !== undefined || payloads?.length !== 1) return null
    return this.repository.writesInOneStatement(this.collection, payloads[0]!) ? [payloads[0]!] : null
  }

  /**
   * The fields a create or a one-statement update may answer from its own rows, or null when the answer must
   * read the items back: with a function among its fields, when the caller reads only some rows (a row might not
   * be one), or when an after hook runs first (it may change the row).
   */
  private async answerFields(after: 'afterCreate' | 'afterUpdate'): Promise<readonly FieldNode[] | null> {
    if (this.answer === null || this.lifecycle.has(this.collection, after)) return null
    const { fields, scope } = await this.answer()
    return scope === null && readFromRow(fields) ? fields : null
  }

  /**
   * The update in its transaction: `resolveKeys` answers the keys of each change, in order, and locks them; a
   * by-query change learns its keys only there. The guard runs once they are locked.
   */
  private async runUpdate(
    write: PreparedWrite<[keys: readonly (readonly PrimaryKey[])[]]>,
    options: WriteOptions,
    resolveKeys: (trx: Db) => Promise<(readonly PrimaryKey[])[]>,
  ): Promise<PrimaryKey[]> {
    const written = await this.repository.transaction(
      this.collection,
      async (trx) => {
        const keys = await resolveKeys(trx)
        await options.guard?.(trx, keys.flat())
        return this.finish(trx, await write.run(trx, keys), options)
      },
      this.transactionOptions('beforeUpdate'),
    )
    await this.after(written)
    return written.keys
  }

  private async finish(trx: Db, written: Written, options: WriteOptions): Promise<Written> {
    await options.written?.(trx, written.keys)
    return written
  }

  /** The after hook and events, or null when nothing sees them (see Lifecycle.after). */
  private after({ action, keys, payloads }: Written): Promise<void> | null {
    const { collection } = this
    return this.lifecycle.after(collection, action, () => ({
      action,
      collection: collection.name,
      keys,
      payloads: payloads.map(toItem),
      context: this.access.context,
    }))
  }

  private async runDelete(resolve: (trx: Db) => Promise<PrimaryKey[]>): Promise<void> {
    const { collection, repository, lifecycle } = this
    const keys = await repository.transaction(
      collection,
      async (trx) => {
        const keys = await lifecycle.before(collection, 'beforeDelete', await resolve(trx), this.meta(trx))
        await repository.delete(trx, collection, keys)
        return keys
      },
      this.transactionOptions('beforeDelete'),
    )
    await this.afterDelete(keys)
  }

  private async afterDelete(keys: readonly PrimaryKey[]): Promise<void> {
    await this.lifecycle.after(this.collection, 'delete', () => ({
      action: 'delete',
      collection: this.collection.name,
      keys: [...keys],
      payloads: [],
      context: this.access.context,
    }))
  }

  private findKeys(trx: Db, selection: Selection, rule: WriteRule): Promise<PrimaryKey[]> {
    return this.repository.findKeys(trx, this.collection, { ...selection, filter: both(selection.filter, rule.scope) })
  }

  /**
   * A write's transaction is a bare one (see bare-transaction.ts) unless a before hook receives it as `meta.db`,
   * where the host's code may use any part of knex.
   */
  private transactionOptions(hook: 'beforeCreate' | 'beforeUpdate' | 'beforeDelete'): { bare: boolean } {
    return { bare: !this.lifecycle.has(this.collection, hook) }
  }

  private meta(db: Db): Omit<HookMeta, 'signal'> {
    return { collection: this.collection.name, context: this.access.context, db }
  }
}
