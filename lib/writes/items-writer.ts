// One caller's writes to one collection, in the order the README documents: access → before hook →
// validate → write → commit → after hook and events. Everything between the first two arrows shares one
// transaction, so a refusal or a throwing hook anywhere leaves nothing written.
import { collectErrors } from './collect-errors'
import type { CallerAccess, WriteRule } from '../access/caller-access'
import { validationErrors } from '../access/check-validation'
import { ForbiddenError, InvalidPayloadError, ItemsErrorList, NotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import type { FieldNode, Selection } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import type { Db } from '../execute/db'
import { keyId, readFromRow } from '../repository/item-loader'
import type { Created, ItemsRepository, ReturnedRow, ReturningColumns, UpdateSet } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import { readonlyField, unwritableField, type Payload, type PayloadAction, type PayloadValidator } from '../schema/payload-validator'
import { lenientPayload } from './lenient-payload'
import { managedValues } from './managed-values'
import { both } from '../query/filter-node'
import type { HookMeta, Item, PrimaryKey, WriteAction } from '../types'
import type { Lifecycle } from './lifecycle'
import { extended } from '../extended'
import { hasNestedValue, planItem, type Planning } from './plan-write'
import { PlanRun, type RunEvent, type RunSetup } from './run-write-plan'
import { forKey, plannedCollections, plannedRows, type ItemWrite } from './write-plan'

/** What nested writes need beyond the writer's own collection: the writers of the others, and the depth bound. */
export interface NestedSetup extends Planning {
  /** The caller's writer of another collection (its payload checks serve the nested items written there). */
  readonly writerOf: (collection: Collection) => ItemsWriter
}

/** Changes for some items: `data` as sent, for `keys`. */
export interface Change {
  readonly keys: readonly PrimaryKey[]
  readonly data: unknown
  /** The index in an array body, named in validation errors. */
  readonly item?: number
}

/** A payload as after hooks and events see it: plain JSON values by field name. */
const toItem = (payload: Payload): Item => Object.fromEntries([...payload].map(([field, value]) => [field.name, value]))

/**
 * The key a singleton's row is created with when the database would assign one: every server picks the same,
 * so concurrent creators on servers whose locks do not see each other collide instead of adding a second row.
 */
export const SINGLETON_KEY = 1

/** Sets the key of a payload about to be inserted (hooks and events still see the payload without it). */
type Keying = (payload: Payload) => Payload

/**
 * For an integer key the database assigns and nothing else set: `SINGLETON_KEY`. Other keys (a uuid a column
 * default fills in, say) are left alone: no value is both valid for them and chosen alike by every server.
 * So is a `generated` key, which no write may set.
 */
function singletonKey(collection: Collection): Keying | undefined {
  const pk = collection.primaryKey
  // A key the database refuses to take from a write (identity GENERATED ALWAYS) keeps its own value too.
  if (!pk.autoIncrement || pk.generated) return undefined
  // In the payload's form for the key's type (a bigInteger travels as a digit string).
  const key = pk.spec.fromJson(SINGLETON_KEY)
  return (payload) => (payload.get(pk) == null ? new Map(payload).set(pk, key) : payload)
}

/** Runs `run` on each item, one after the other: hooks see a batch in order, on one transaction. */
async function inOrder<T, R>(items: readonly T[], run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (const [index, item] of items.entries()) results.push(await run(item, index))
  return results
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

/** A write checked and ready: how it runs in its transaction, and its payloads when no before hook can change them. */
interface PreparedWrite<Args extends unknown[]> {
  readonly run: (trx: Db, ...args: Args) => Promise<Written>
  readonly payloads: Payload[] | null
}

/** How the request reads its written items back for the answer (its `fields`, and the caller's read scope). */
export type AnswerRead = () => Promise<{ readonly fields: readonly FieldNode[]; readonly scope: FilterNode | null }>

/**
 * `{ ...below[n], ..., ...below[0], ...data }` without a spread after a spread, which takes V8's slow path and
 * gives each payload a hidden class of its own (see extended.ts). The client's object is copied by a spread,
 * which defines every key it has as its own (`__proto__` included); the layers below, nearest first, add only
 * the fields it lacks, by the schema's names.
 */
function over(data: Readonly<Record<string, unknown>>, ...below: Readonly<Record<string, unknown>>[]): Record<string, unknown> {
  const input = { ...data }
  for (const layer of below) {
    for (const name of Object.keys(layer)) if (!Object.hasOwn(input, name)) input[name] = layer[name]
  }
  return input
}

export class ItemsWriter {
  /** Each action's declarative values, computed once (see `managedValues`). */
  private readonly managed: Partial<Record<PayloadAction, Readonly<Record<string, unknown>>>> = {}
  /** What the last create or one-statement update returned for its answer (see `returnedRows`). */
  private returned: { readonly keys: readonly PrimaryKey[]; readonly rows: ReturnedRow[] } | null = null

  constructor(
    private readonly collection: Collection,
    private readonly repository: ItemsRepository,
    private readonly validator: PayloadValidator,
    private readonly lifecycle: Lifecycle,
    private readonly access: CallerAccess,
    /** The answer's read; with it, a create or a one-statement update may answer its own rows (see `returnedRows`). */
    private readonly answer: AnswerRead | null = null,
    /** Without it, a payload with a nested relational value is refused as one naming unknown fields. */
    private readonly nested: NestedSetup | null = null,
  ) {}

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
    if (this.nestedIn(inputs)) return this.createNested(inputs, batch, options)
    const write = this.prepareCreate(await this.access.write(collection, 'create'), inputs, batch)
    const single = this.singleStatementWrite(options, write.payloads)
    const fields = await this.answerFields('afterCreate')
    // Without RETURNING on the server's INSERT (MySQL, MariaDB before 10.5), the items are read back.
    const returning = fields === null ? null : this.repository.returningColumns(collection, fields)
    const written = single
      ? await repository.oneStatement(collection, async (db) =>
          created(await repository.create(db, collection, single, this.access.view.scope, returning), single),
        )
      : await repository.transaction(
          collection,
          async (trx) => {
            await options.guard?.(trx, [])
            return this.finish(trx, await write.run(trx, returning), options)
          },
          this.transactionOptions('beforeCreate'),
        )
    this.returned = written.rows ? { keys: written.keys, rows: written.rows } : null
    const after = this.after(written)
    if (after !== null) await after
    return written.keys
  }

  /** Applies each change to its keys; a key the caller cannot see is a 404, one it may not change a 403. */
  async update(changes: readonly Change[], options: WriteOptions = {}): Promise<PrimaryKey[]> {
    if (this.nestedIn(changes.map((change) => change.data))) {
      return this.updateNested(changes, options, async (trx) => {
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
    if (this.nestedIn([data])) {
      return this.updateNested([{ keys: [], data }], options, async (trx) => {
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
    if (this.nestedIn([input])) return this.saveSingletonNested(input as Record<string, unknown>, options)
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
    const rule = await this.access.write(this.collection, 'delete')
    await this.runDelete(async (trx) => {
      await this.repository.lockKeys(trx, this.collection, keys)
      await this.repository.checkKeys(trx, this.collection, keys, this.access.visibleFor(this.collection, rule), rule.scope)
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

  /** Whether a payload carries a nested relational value this writer takes (see plan-write.ts). */
  private nestedIn(datas: readonly unknown[]): boolean {
    return this.nested !== null && datas.some((data) => hasNestedValue(this.collection, data))
  }

  /** The plan of each item of a request with nested values; every item must then be an object. */
  private plan(datas: readonly unknown[], itemOf: (index: number) => number | undefined): ItemWrite[] {
    return collectErrors(datas, (data, index) => {
      const item = itemOf(index)
      if (!isPlainObject(data))
        throw new InvalidPayloadError(item === undefined ? 'The body must be a JSON object' : `Item ${item} must be a JSON object`)
      return planItem(this.collection, data, null, this.nested!, item)
    })
  }

  /** Nested rows count toward `maxBatchSize`, each of them, at every level. */
  private checkRows(rows: number): void {
    const most = this.collection.limits.maxBatchSize
    if (rows > most)
      throw new InvalidPayloadError(`The write names ${rows} items, nested ones included; at most ${most} can be written in one request`)
  }

  private runSetup(): RunSetup {
    const { repository, lifecycle, access, collection } = this
    return {
      repository,
      lifecycle,
      access,
      checksOf: (other) => (other === collection ? this : this.nested!.writerOf(other)),
      maxRows: collection.limits.maxBatchSize,
    }
  }

  /** A transaction of nested writes is a bare one unless a collection it writes has a before hook (see transactionOptions). */
  private nestedTransaction(writes: readonly ItemWrite[]): { bare: boolean } {
    const hooked = [...plannedCollections(writes)].some((collection) =>
      (['beforeCreate', 'beforeUpdate', 'beforeDelete'] as const).some((hook) => this.lifecycle.has(collection, hook)),
    )
    return { bare: !hooked }
  }

  /** Creates items with nested values: the plan checked before the transaction, run in it, after hooks after commit. */
  private async createNested(inputs: readonly unknown[], batch: boolean, options: WriteOptions): Promise<PrimaryKey[]> {
    const { collection } = this
    const writes = this.plan(inputs, (index) => (batch ? index : undefined))
    this.checkRows(plannedRows(writes))
    const setup = this.runSetup()
    await PlanRun.precheck(setup, writes, 'create')
    const { keys, events } = await this.repository.transaction(
      collection,
      async (trx) => {
        await options.guard?.(trx, [])
        const run = new PlanRun(setup, trx)
        const keys = await run.create(collection, writes)
        await options.written?.(trx, keys)
        return { keys, events: run.events }
      },
      this.nestedTransaction(writes),
    )
    await this.afterEach(events)
    return keys
  }

  /**
   * Updates items with nested values, `data` applied to each key on its own (a many-to-one object creates one
   * item per key, as a one-to-many array does): `resolveKeys` answers, checks and locks each change's keys.
   */
  private async updateNested(
    changes: readonly Change[],
    options: WriteOptions,
    resolveKeys: (trx: Db) => Promise<(readonly PrimaryKey[])[]>,
  ): Promise<PrimaryKey[]> {
    const { collection } = this
    const plans = this.plan(
      changes.map((change) => change.data),
      (index) => changes[index]!.item,
    )
    this.checkRows(plans.reduce((rows, plan, index) => rows + plannedRows([plan]) * Math.max(1, changes[index]!.keys.length), 0))
    const setup = this.runSetup()
    await PlanRun.precheck(setup, plans, 'update')
    const { keys, events } = await this.repository.transaction(
      collection,
      async (trx) => {
        const resolved = await resolveKeys(trx)
        const keys = resolved.flat()
        await options.guard?.(trx, keys)
        const writes = plans.flatMap((plan, index) => resolved[index]!.map((key) => forKey(plan, key)))
        this.checkRows(plannedRows(writes))
        const run = new PlanRun(setup, trx)
        await run.update(collection, writes, true)
        await options.written?.(trx, keys)
        return { keys, events: run.events }
      },
      this.nestedTransaction(plans),
    )
    await this.afterEach(events)
    return keys
  }

  /** `saveSingleton` for a payload with nested values: the row created or updated, under the same lock. */
  private async saveSingletonNested(input: Record<string, unknown>, options: WriteOptions): Promise<PrimaryKey> {
    const { collection, repository, access } = this
    const [plan] = this.plan([input], () => undefined)
    this.checkRows(plannedRows([plan!]))
    const setup = this.runSetup()
    const { keys, events } = await repository.transaction(
      collection,
      async (trx) => {
        const existing = await repository.firstKey(collection, null, trx)
        const run = new PlanRun(setup, trx)
        if (existing === null) {
          await PlanRun.precheck(setup, [plan!], 'create')
          await options.guard?.(trx, [])
          const keys = await run.create(collection, [plan!], singletonKey(collection))
          await options.written?.(trx, keys)
          return { keys, events: run.events }
        }
        await PlanRun.precheck(setup, [plan!], 'update')
        const rule = await access.write(collection, 'update')
        await repository.lockKeys(trx, collection, [existing])
        await repository.checkKeys(trx, collection, [existing], access.visibleFor(collection, rule), rule.scope).catch((error: unknown) => {
          throw error instanceof NotFoundError ? new ForbiddenError() : error
        })
        await options.guard?.(trx, [existing])
        await run.update(collection, [forKey(plan!, existing)], true)
        await options.written?.(trx, [existing])
        return { keys: [existing], events: run.events }
      },
      { lock: `singleton:${collection.table}`, retryDuplicateKey: true },
    )
    await this.afterEach(events)
    return keys[0]!
  }

  /** After commit, each batch's after hook and events, in the order the batches were written. */
  private async afterEach(events: readonly RunEvent[]): Promise<void> {
    for (const { collection, action, keys, payloads } of events) {
      await this.lifecycle.after(collection, action, () => ({
        action,
        collection: collection.name,
        keys,
        payloads: payloads.map(toItem),
        context: this.access.context,
      }))
    }
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
  ): PreparedWrite<[returning?: ReturningColumns | null]> {
    const { collection, repository, lifecycle } = this
    const inputs = this.relaxed(rule, sent) ?? sent
    this.assertWritable(rule, 'create', inputs, (index) => (batch ? index : undefined))
    const validateAll = (items: readonly unknown[]): Payload[] =>
      collectErrors(items, (data, index) => this.validate(rule, 'create', data, batch ? index : undefined))
    const early = lifecycle.has(collection, 'beforeCreate') ? null : validateAll(inputs)
    return {
      // A singleton's fixed key is chosen inside its lock: never a write of its own.
      payloads: key ? null : early,
      run: async (trx, returning = null) => {
        const payloads =
          early ??
          validateAll(await inOrder(inputs, (input) => lifecycle.before(collection, 'beforeCreate', input as Item, this.meta(trx))))
        const written = await repository.create(trx, collection, key ? payloads.map(key) : payloads, this.access.view.scope, returning)
        return created(written, payloads)
      },
    }
  }

  /** The update sequence inside a transaction, once each change's keys are known: before hooks, validation, update. */
  private prepareUpdate(rule: WriteRule, sent: readonly Change[]): PreparedWrite<[keys: readonly (readonly PrimaryKey[])[]]> {
    const { collection, repository, lifecycle } = this
    const datas = this.relaxed(
      rule,
      sent.map((change) => change.data),
    )
    const changes = datas === null ? sent : sent.map((change, index): Change => ({ ...change, data: datas[index] }))
    this.assertWritable(
      rule,
      'update',
      changes.map((change) => change.data),
      (index) => changes[index]!.item,
    )
    const validateAll = (datas: readonly unknown[]): Payload[] =>
      collectErrors(datas, (data, index) => this.validate(rule, 'update', data, changes[index]!.item))
    const early = lifecycle.has(collection, 'beforeUpdate') ? null : validateAll(changes.map((change) => change.data))
    return {
      payloads: early,
      run: async (trx, keys) => {
        const payloads =
          early ??
          validateAll(
            await inOrder(changes, (change, index) =>
              lifecycle.before(collection, 'beforeUpdate', change.data as Item, extended(this.meta(trx), { keys: [...keys[index]!] })),
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
    await lifecycle.after(collection, 'delete', () => ({
      action: 'delete',
      collection: collection.name,
      keys,
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

  /**
   * With `lenientPayloads`, the payloads as sent made strict (see lenient-payload.ts); otherwise null. A field the
   * caller can neither read nor write is, to it, no field: dropped like an unknown key, so that the two cannot be
   * told apart. One it can read but not write is still refused: the client means to change it.
   */
  private relaxed(rule: WriteRule, datas: readonly unknown[]): unknown[] | null {
    const { collection } = this
    if (!collection.lenientPayloads) return null
    const known = (name: string): boolean =>
      collection.members.has(name) &&
      (this.access.view.member(collection, name) !== undefined || rule.fields === null || rule.fields.has(name))
    return datas.map((data) => lenientPayload(collection, data, known))
  }

  /**
   * Payloads must be objects, and fields the rule does not let the caller write are refused like fields that
   * do not exist. Checked on the payload as sent: presets and before hooks may still set such fields.
   */
  assertWritable(rule: WriteRule, action: WriteAction, datas: readonly unknown[], itemOf: (index: number) => number | undefined): void {
    const allowed = rule.fields ?? { has: () => true }
    // An update's payload may name the item's own key, which says nothing new: never refused.
    const key = action === 'update' ? this.collection.primaryKey.name : null
    const refused = (name: string): boolean => name !== key && !allowed.has(name)
    // A readonly field is one a client may not send; the server side (presets, declarative values, hooks) may set it.
    const managed = (name: string): boolean => {
      const member = name === key ? undefined : this.collection.members.get(name)
      return member?.kind === 'field' && member.readonly
    }
    collectErrors(datas, (data, index) => {
      const item = itemOf(index)
      if (!isPlainObject(data))
        throw new InvalidPayloadError(item === undefined ? 'The body must be a JSON object' : `Item ${item} must be a JSON object`)
      const names = Object.keys(data)
      if (names.some(refused)) throw new ItemsErrorList(names.filter(refused).map((name) => unwritableField(this.collection, name, item)))
      if (names.some(managed)) throw new ItemsErrorList(names.filter(managed).map((name) => readonlyField(this.collection, name, item)))
    })
  }

  /**
   * The payload with the rule's presets and the declarative values underneath, validated against the schema
   * and the rule's `validation`. The client's own fields were checked by `assertWritable`; what is added here
   * (and what a before hook added) is the server's, which may set readonly fields.
   */
  validate(rule: WriteRule, action: PayloadAction, data: unknown, item: number | undefined): Payload {
    const input = isPlainObject(data) ? over(data, rule.presets, this.managedValues(action)) : data
    const payload = this.validator.validate(action, input, item, 'server')
    if (rule.validation === null) return payload
    const errors = validationErrors(rule.validation, action === 'create' ? this.withDefaults(payload) : payload, this.collection, item)
    if (errors.length > 0) throw new ItemsErrorList(errors)
    return payload
  }

  /** The declarative values of `action`, the same for every item of the request (see managedValues). */
  private managedValues(action: PayloadAction): Readonly<Record<string, unknown>> {
    const { context, now } = this.access
    return (this.managed[action] ??= managedValues(this.collection, action, context, now))
  }

  /**
   * A create's values as the row will hold them: where the payload says nothing, the configured default, or
   * null. Keys the database assigns are left out.
   */
  private withDefaults(payload: Payload): Payload {
    const values = new Map(payload)
    for (const field of this.collection.fields) {
      if (values.has(field) || field.primaryKey) continue
      values.set(field, field.default ?? null)
    }
    return values
  }
}
