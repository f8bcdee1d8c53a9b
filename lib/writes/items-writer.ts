// One caller's writes to one collection, in the order the README documents: access → before hook →
// validate → write → commit → after hook and events. Everything between the first two arrows shares one
// transaction, so a refusal or a throwing hook anywhere leaves nothing written.
import type { Knex } from 'knex'
import type { CallerAccess, WriteRule } from '../access/caller-access'
import { validationErrors } from '../access/check-validation'
import { InvalidPayloadError, ItemsError, ItemsErrorList } from '../errors'
import { isPlainObject } from '../is-plain-object'
import type { Selection } from '../query/query'
import type { ItemsRepository, UpdateSet } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import { unwritableField, type Payload, type PayloadAction, type PayloadValidator } from '../schema/payload-validator'
import { both } from '../query/filter-node'
import type { HookMeta, Item, PrimaryKey, WriteAction } from '../types'
import type { Lifecycle } from './lifecycle'

/** Changes for some items: `data` as sent, for `keys`. */
export interface Change {
  readonly keys: readonly PrimaryKey[]
  readonly data: unknown
  /** The index in an array body, named in validation errors. */
  readonly item?: number
}

/** A payload as after hooks and events see it: plain JSON values by field name. */
const toItem = (payload: Payload): Item => Object.fromEntries([...payload].map(([field, value]) => [field.name, value]))

/** Runs every check before throwing, so one response reports every problem of every item. */
function collectErrors<T, R>(inputs: readonly T[], check: (input: T, index: number) => R): R[] {
  const errors: ItemsError[] = []
  const results = inputs.map((input, index) => {
    try {
      return check(input, index)
    } catch (error) {
      if (error instanceof ItemsErrorList) errors.push(...error.errors)
      else if (error instanceof ItemsError) errors.push(error)
      else throw error
      return undefined as R
    }
  })
  if (errors.length > 0) throw new ItemsErrorList(errors)
  return results
}

/** Runs `run` on each item, one after the other: hooks see a batch in order, on one transaction. */
async function inOrder<T, R>(items: readonly T[], run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  for (const [index, item] of items.entries()) results.push(await run(item, index))
  return results
}

export class ItemsWriter {
  constructor(
    private readonly collection: Collection,
    private readonly repository: ItemsRepository,
    private readonly validator: PayloadValidator,
    private readonly lifecycle: Lifecycle,
    private readonly access: CallerAccess,
  ) {}

  /** Creates the items (an array body keeps its indexes in errors); answers their keys. */
  async create(inputs: readonly unknown[], batch: boolean): Promise<PrimaryKey[]> {
    const { collection, repository, lifecycle } = this
    if (inputs.length > collection.limits.maxBatchSize) {
      throw new InvalidPayloadError(`At most ${collection.limits.maxBatchSize} items can be created in one request`)
    }
    const rule = await this.access.write(collection, 'create')
    this.assertWritable(
      rule,
      'create',
      inputs.map((data, index) => ({ keys: [], data, item: batch ? index : undefined })),
    )
    const validateAll = (items: readonly unknown[]): Payload[] =>
      collectErrors(items, (data, index) => this.validate(rule, 'create', data, batch ? index : undefined))
    // Without a hook to change them, payloads are checked before the transaction: a bad one costs no SQL.
    const early = lifecycle.has(collection, 'beforeCreate') ? null : validateAll(inputs)
    const { keys, payloads } = await repository.transaction(collection, async (trx) => {
      const payloads =
        early ?? validateAll(await inOrder(inputs, (input) => lifecycle.before(collection, 'beforeCreate', input as Item, this.meta(trx))))
      return { keys: await repository.create(trx, collection, payloads, this.access.view.scope), payloads }
    })
    await lifecycle.after(collection, {
      action: 'create',
      collection: collection.name,
      keys,
      payloads: payloads.map(toItem),
      context: this.access.context,
    })
    return keys
  }

  /** Applies each change to its keys; a key the caller cannot see is a 404, one it may not change a 403. */
  async update(changes: readonly Change[]): Promise<PrimaryKey[]> {
    const rule = await this.access.write(this.collection, 'update')
    return this.runUpdate(rule, changes, async (trx) => {
      const keys = changes.flatMap((change) => change.keys)
      await this.repository.checkKeys(trx, this.collection, keys, this.access.visibleFor(this.collection, rule), rule.scope)
      return changes.map((change) => change.keys)
    })
  }

  /** Applies `data` to the items the selection matches among those the caller may read and update. */
  async updateWhere(selection: Selection, data: unknown): Promise<PrimaryKey[]> {
    const rule = await this.access.write(this.collection, 'update')
    return this.runUpdate(rule, [{ keys: [], data }], async (trx) => [await this.findKeys(trx, selection, rule)])
  }

  /** Deletes the items; a key the caller cannot see is a 404, one it may not delete a 403. */
  async delete(keys: readonly PrimaryKey[]): Promise<void> {
    const rule = await this.access.write(this.collection, 'delete')
    await this.runDelete(async (trx) => {
      await this.repository.checkKeys(trx, this.collection, keys, this.access.visibleFor(this.collection, rule), rule.scope)
      return [...keys]
    })
  }

  /** Deletes the items the selection matches among those the caller may read and delete. */
  async deleteWhere(selection: Selection): Promise<void> {
    const rule = await this.access.write(this.collection, 'delete')
    await this.runDelete((trx) => this.findKeys(trx, selection, rule))
  }

  /**
   * The update sequence: `resolveKeys` (in the transaction) answers the keys of each change, in order; a
   * by-query change learns its keys only there.
   */
  private async runUpdate(
    rule: WriteRule,
    changes: readonly Change[],
    resolveKeys: (trx: Knex.Transaction) => Promise<(readonly PrimaryKey[])[]>,
  ): Promise<PrimaryKey[]> {
    const { collection, repository, lifecycle } = this
    this.assertWritable(rule, 'update', changes)
    const validateAll = (datas: readonly unknown[]): Payload[] =>
      collectErrors(datas, (data, index) => this.validate(rule, 'update', data, changes[index]!.item))
    // Without a hook to change them, payloads are checked before the transaction: a bad one costs no SQL.
    const early = lifecycle.has(collection, 'beforeUpdate') ? null : validateAll(changes.map((change) => change.data))
    const sets = await repository.transaction(collection, async (trx) => {
      const keys = await resolveKeys(trx)
      const payloads =
        early ??
        validateAll(
          await inOrder(changes, (change, index) =>
            lifecycle.before(collection, 'beforeUpdate', change.data as Item, { ...this.meta(trx), keys: [...keys[index]!] }),
          ),
        )
      const sets = payloads.map((payload, index): UpdateSet => ({ keys: keys[index]!, payload }))
      await repository.update(trx, collection, sets, this.access.view.scope)
      return sets
    })
    const keys = sets.flatMap((set) => set.keys)
    const payloads = sets.flatMap((set) => set.keys.map(() => toItem(set.payload)))
    await lifecycle.after(collection, { action: 'update', collection: collection.name, keys, payloads, context: this.access.context })
    return keys
  }

  private async runDelete(resolve: (trx: Knex.Transaction) => Promise<PrimaryKey[]>): Promise<void> {
    const { collection, repository, lifecycle } = this
    const keys = await repository.transaction(collection, async (trx) => {
      const keys = await lifecycle.before(collection, 'beforeDelete', await resolve(trx), this.meta(trx))
      await repository.delete(trx, collection, keys)
      return keys
    })
    await lifecycle.after(collection, { action: 'delete', collection: collection.name, keys, payloads: [], context: this.access.context })
  }

  private findKeys(trx: Knex.Transaction, selection: Selection, rule: WriteRule): Promise<PrimaryKey[]> {
    return this.repository.findKeys(trx, this.collection, { ...selection, filter: both(selection.filter, rule.scope) })
  }

  private meta(db: Knex.Transaction): Omit<HookMeta, 'signal'> {
    return { collection: this.collection.name, context: this.access.context, db }
  }

  /**
   * Payloads must be objects, and fields the rule does not let the caller write are refused like fields that
   * do not exist. Checked on the payload as sent: presets and before hooks may still set such fields.
   */
  private assertWritable(rule: WriteRule, action: WriteAction, changes: readonly Change[]): void {
    const allowed = rule.fields ?? { has: () => true }
    collectErrors(changes, ({ data, item }) => {
      if (!isPlainObject(data))
        throw new InvalidPayloadError(item === undefined ? 'The body must be a JSON object' : `Item ${item} must be a JSON object`)
      const refused = Object.keys(data).filter(
        (name) => !allowed.has(name) && !(action === 'update' && name === this.collection.primaryKey.name),
      )
      if (refused.length > 0) throw new ItemsErrorList(refused.map((name) => unwritableField(this.collection, name, item)))
    })
  }

  /** The payload with the rule's presets underneath, validated against the schema and the rule's `validation`. */
  private validate(rule: WriteRule, action: PayloadAction, data: unknown, item: number | undefined): Payload {
    const input = isPlainObject(data) ? { ...rule.presets, ...data } : data
    const payload = this.validator.validate(action, input, item)
    if (rule.validation === null) return payload
    const errors = validationErrors(rule.validation, action === 'create' ? this.withDefaults(payload) : payload, this.collection, item)
    if (errors.length > 0) throw new ItemsErrorList(errors)
    return payload
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
