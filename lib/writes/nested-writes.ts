// Writes of payloads with nested relational values: each item's write plan (plan-write.ts) checked before the
// transaction, run in it (run-write-plan.ts), every collection's after hooks and events after commit.
import type { CallerAccess } from '../access/caller-access'
import { ForbiddenError, InvalidPayloadError, NotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import type { Db } from '../execute/db'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import type { PrimaryKey } from '../types'
import { collectErrors } from './collect-errors'
import type { Lifecycle } from './lifecycle'
import { hasNestedValue, planItem, type Planning } from './plan-write'
import { PlanRun, type PayloadChecks, type RunEvent, type RunSetup } from './run-write-plan'
import { forKey, plannedCollections, plannedRows, type ItemWrite } from './write-plan'
import { singletonKey, toItem } from './write-events'
import type { Change, WriteOptions } from './write-options'

export class NestedWrites {
  constructor(
    private readonly collection: Collection,
    private readonly repository: ItemsRepository,
    private readonly lifecycle: Lifecycle,
    private readonly access: CallerAccess,
    private readonly nested: Planning,
    /** The payload checks of each collection written, as its own requests get them. */
    private readonly checksOf: (collection: Collection) => PayloadChecks,
  ) {}

  /** Whether a payload carries a nested relational value this writer takes (see plan-write.ts). */
  takes(datas: readonly unknown[]): boolean {
    return datas.some((data) => hasNestedValue(this.collection, data))
  }

  /** The plan of each item of a request with nested values; every item must then be an object. */
  private plan(datas: readonly unknown[], itemOf: (index: number) => number | undefined): ItemWrite[] {
    return collectErrors(datas, (data, index) => {
      const item = itemOf(index)
      if (!isPlainObject(data))
        throw new InvalidPayloadError(item === undefined ? 'The body must be a JSON object' : `Item ${item} must be a JSON object`)
      return planItem(this.collection, data, null, this.nested, item)
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
      checksOf: this.checksOf,
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
  async create(inputs: readonly unknown[], batch: boolean, options: WriteOptions): Promise<PrimaryKey[]> {
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
  async update(
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
  async saveSingleton(input: Record<string, unknown>, options: WriteOptions): Promise<PrimaryKey> {
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
}
