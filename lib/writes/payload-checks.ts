// The checks of one caller's payloads for one collection, before anything is written: payloads are objects, the
// fields sent are ones the caller's rule lets them write, and the payload with the rule's presets and the
// declarative values underneath passes the schema and the rule's `validation`. Nested writes of other
// collections borrow the checks of those collections' writers.
import { collectErrors } from './collect-errors'
import type { CallerAccess, WriteRule } from '../access/caller-access'
import { validationErrors } from '../access/check-validation'
import { InvalidPayloadError, ItemsErrorList } from '../errors'
import { isPlainObject } from '../is-plain-object'
import type { Collection } from '../schema/collection'
import { readonlyField, unwritableField, type Payload, type PayloadAction, type PayloadValidator } from '../schema/payload-validator'
import { lenientPayload } from './lenient-payload'
import { managedValues } from './managed-values'
import type { WriteAction } from '../types'
import type { PayloadChecks as Checks } from './run-write-plan'

/**
 * `{ ...below[n], ..., ...below[0], ...data }`, the client's keys winning. The client's object is copied by a spread,
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

export class PayloadChecks implements Checks {
  /** Each action's declarative values, computed once (see `managedValues`). */
  private readonly managed: Partial<Record<PayloadAction, Readonly<Record<string, unknown>>>> = {}

  constructor(
    private readonly collection: Collection,
    private readonly validator: PayloadValidator,
    private readonly access: CallerAccess,
  ) {}

  /**
   * With `lenientPayloads`, the payloads as sent made strict (see lenient-payload.ts); otherwise null. A field the
   * caller can neither read nor write is, to it, no field: dropped like an unknown key, so that the two cannot be
   * told apart. One it can read but not write is still refused: the client means to change it.
   */
  relaxed(rule: WriteRule, datas: readonly unknown[]): unknown[] | null {
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
    const key = new Set(action === 'update' ? this.collection.key.map((field) => field.name) : [])
    const refused = (name: string): boolean => !key.has(name) && !allowed.has(name)
    // A readonly field is one a client may not send; the server side (presets, declarative values, hooks) may set it.
    const managed = (name: string): boolean => {
      const member = key.has(name) ? undefined : this.collection.members.get(name)
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
