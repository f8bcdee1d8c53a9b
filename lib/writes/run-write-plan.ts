// Runs a write plan (write-plan.ts) inside one transaction, level by level: each level's items of one collection
// are one batch (one multi-row INSERT, one UPDATE per distinct payload), so the statements grow with the levels
// and batches of the plan, not with its rows. Every nested write is held to the rules of its own collection, as
// if it were a request of its own: the caller's access rule, presets, validation, hooks.
import { collectErrors } from './collect-errors'
import type { CallerAccess, WriteRule } from '../access/caller-access'
import { NotFoundError } from '../errors'
import type { Db } from '../execute/db'
import { keyId } from '../repository/item-loader'
import type { ItemsRepository, UpdateSet } from '../repository/items-repository'
import type { Collection, Field, O2MRelation } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { HookMeta, Item, PrimaryKey, WriteAction } from '../types'
import type { Lifecycle } from './lifecycle'
import { atPath } from './write-path'
import type { ItemWrite, KeyRef, Place, ToManyWrite } from './write-plan'

/** A batch the run wrote, for the after hooks and events once it commits (in the order written). */
export interface RunEvent {
  readonly collection: Collection
  readonly action: WriteAction
  readonly keys: PrimaryKey[]
  readonly payloads: readonly Payload[]
}

/** What a collection's writer lends the run: its checks of a payload, as its own requests get them. */
export interface PayloadChecks {
  assertWritable(rule: WriteRule, action: WriteAction, datas: readonly unknown[], itemOf: (index: number) => number | undefined): void
  validate(rule: WriteRule, action: 'create' | 'update', data: unknown, item: number | undefined): Payload
}

export interface RunSetup {
  readonly repository: ItemsRepository
  readonly lifecycle: Lifecycle
  readonly access: CallerAccess
  readonly checksOf: (collection: Collection) => PayloadChecks
  /** Rows a one-to-many may detach in one request (`maxBatchSize`). */
  readonly maxRows: number
}

/** Sets the key of a payload about to be inserted (a singleton's fixed key). */
export type Keying = (payload: Payload) => Payload

/** The place every write of a batch shares (the longest common path): where its database refusal is reported. */
function sharedPlace(places: readonly Place[]): Place {
  const [first = { path: [] }] = places
  let length = first.path.length
  for (const { path } of places) {
    let same = 0
    while (same < Math.min(length, path.length) && path[same] === first.path[same]) same += 1
    length = same
  }
  const item = places.every((place) => place.item === first.item) ? first.item : undefined
  return { path: first.path.slice(0, length), ...(item === undefined ? {} : { item }) }
}

/** Runs `work`, reporting what it throws at `place`. */
async function at<T>(place: Place, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    throw atPath(error, place)
  }
}

/** The payload names of an item, relations included, as its writer checks them. */
function namesOf(write: ItemWrite): Record<string, unknown> {
  const names: Record<string, unknown> = { ...write.data }
  for (const one of write.toOne) names[one.field.name] = null
  for (const many of write.toMany) names[many.relation.name] = null
  return names
}

/** A related key as `field` keeps it: a many-to-any's text field holds any key as text. */
const storedKey = (field: Field, key: PrimaryKey): PrimaryKey => (field.referencesAny !== undefined && field.spec.text ? String(key) : key)

/** The same payload for every key: one UPDATE. Compared by its JSON form, fields in order. */
function payloadId(payload: Payload): string {
  return JSON.stringify([...payload].map(([field, value]) => [field.name, value]))
}

/** A link, an update or a detach of an existing child: an item write that only sets the foreign key. */
function parentSet(relation: O2MRelation, ref: KeyRef, parent: PrimaryKey | null): ItemWrite {
  return { ...ref, collection: relation.related, data: { [relation.foreignKey.name]: parent }, toOne: [], toMany: [] }
}

/** A child's write with its foreign key set to its parent's key. */
function underParent(relation: O2MRelation, child: ItemWrite, parent: PrimaryKey): ItemWrite {
  return { ...child, data: { ...child.data, [relation.foreignKey.name]: parent } }
}

export class PlanRun {
  /** Batches written so far, in order, for the after hooks and events. */
  readonly events: RunEvent[] = []
  private readonly rules = new Map<string, WriteRule | Promise<WriteRule>>()
  /** Keys each collection is known to hold: created or checked by this run (see KnownKeys). */
  private readonly known = new Map<Collection, Set<string>>()

  constructor(
    private readonly setup: RunSetup,
    private readonly trx: Db,
  ) {}

  /**
   * The checks that need no SQL, for a whole plan before its transaction starts: every collection's access rule
   * for each action the plan takes there (403 at the path), and each payload's names against the rule.
   */
  static async precheck(setup: RunSetup, writes: readonly ItemWrite[], action: 'create' | 'update'): Promise<void> {
    // No statement runs here: the transaction is never touched.
    const run = new PlanRun(setup, null as unknown as Db)
    await run.checkPlan(writes, null, action)
  }

  private async checkPlan(writes: readonly ItemWrite[], under: O2MRelation | null, top?: 'create' | 'update'): Promise<void> {
    for (const write of writes) {
      const action = top ?? (write.key === null ? 'create' : 'update')
      const rule = await this.rule(write.collection, action, write)
      const names = namesOf(write)
      if (under !== null) names[under.foreignKey.name] = null
      this.checks(write.collection, rule, action, [names], [write])
      for (const one of write.toOne) if (!one.link) await this.checkPlan([one.item], null)
      for (const many of write.toMany) {
        const { related, foreignKey, onDetach } = many.relation
        if (many.link.length > 0) {
          const rule = await this.rule(related, 'update', many)
          this.checks(related, rule, 'update', [{ [foreignKey.name]: null }], [many])
        }
        if (many.detach.length > 0 || (many.replace && action === 'update')) {
          // What a detach needs is only known once the children are read; the rule of its action is known now.
          if (onDetach === 'delete') await this.rule(related, 'delete', many)
          else await this.rule(related, 'update', many)
        }
        await this.checkPlan(many.items, many.relation)
      }
    }
  }

  /** Creates the items (and first their many-to-one items, then their one-to-many changes); answers their keys. */
  async create(collection: Collection, writes: readonly ItemWrite[], keying?: Keying): Promise<PrimaryKey[]> {
    if (writes.length === 0) return []
    const { repository, lifecycle, access } = this.setup
    const rule = await this.rule(collection, 'create', writes[0]!)
    this.checks(
      collection,
      rule,
      'create',
      writes.map((write) => write.data),
      writes,
    )
    let inputs = await this.toOne(writes)
    if (lifecycle.has(collection, 'beforeCreate')) {
      inputs = await this.inOrder(writes, (write, index) =>
        at(write, () => lifecycle.before(collection, 'beforeCreate', inputs[index] as Item, this.meta(collection))),
      )
    }
    const checks = this.setup.checksOf(collection)
    const payloads = collectErrors(writes, (write, index) =>
      this.atItem(write, () => checks.validate(rule, 'create', inputs[index], undefined)),
    )
    const { keys } = await this.refused(collection, sharedPlace(writes), () =>
      repository.create(this.trx, collection, keying ? payloads.map(keying) : payloads, access.view.scope, null, this.knownOf),
    )
    this.remember(collection, keys)
    this.events.push({ collection, action: 'create', keys, payloads })
    await this.toMany(writes, keys, false)
    return keys
  }

  /**
   * Updates the items, each under its key; a key the caller cannot see is a 404 at its path, one they may not
   * change a 403. `checked`: the keys were checked and locked already (the request's own items).
   */
  async update(collection: Collection, writes: readonly ItemWrite[], checked = false): Promise<void> {
    if (writes.length === 0) return
    const { repository, lifecycle, access } = this.setup
    const rule = await this.rule(collection, 'update', writes[0]!)
    const keys = writes.map((write) => write.key!)
    this.checks(
      collection,
      rule,
      'update',
      writes.map((write) => write.data),
      writes,
    )
    if (!checked) await this.checkKeys(collection, writes, access.visibleFor(collection, rule), rule.scope)
    let inputs = await this.toOne(writes)
    if (lifecycle.has(collection, 'beforeUpdate')) {
      inputs = await this.inOrder(writes, (write, index) =>
        at(write, () =>
          lifecycle.before(collection, 'beforeUpdate', inputs[index] as Item, { ...this.meta(collection), keys: [write.key!] }),
        ),
      )
    }
    const checks = this.setup.checksOf(collection)
    const payloads = collectErrors(writes, (write, index) =>
      this.atItem(write, () => checks.validate(rule, 'update', inputs[index], undefined)),
    )
    // Writes with the same payload share one UPDATE (a set of links, of detaches).
    const sets = new Map<string, { keys: PrimaryKey[]; payload: Payload }>()
    payloads.forEach((payload, index) => {
      const id = payloadId(payload)
      const set = sets.get(id) ?? sets.set(id, { keys: [], payload }).get(id)!
      set.keys.push(keys[index]!)
    })
    await this.refused(collection, sharedPlace(writes), () =>
      repository.update(this.trx, collection, [...sets.values()] as UpdateSet[], access.view.scope, this.knownOf),
    )
    this.events.push({ collection, action: 'update', keys, payloads })
    await this.toMany(writes, keys, true)
  }

  /** Writes the many-to-one objects of the items; answers each item's fields with their keys set. */
  private async toOne(writes: readonly ItemWrite[]): Promise<Record<string, unknown>[]> {
    const inputs = writes.map((write) => ({ ...write.data }))
    // One batch per field and related collection: a many-to-any's items go to each of its collections.
    const batches = new Map<string, { field: Field; related: Collection; entries: { index: number; item: ItemWrite; link: boolean }[] }>()
    writes.forEach((write, index) => {
      for (const one of write.toOne) {
        const id = `${one.field.name}\u0000${one.item.collection.name}`
        const batch = batches.get(id) ?? batches.set(id, { field: one.field, related: one.item.collection, entries: [] }).get(id)!
        batch.entries.push({ index, item: one.item, link: one.link })
      }
    })
    for (const { field, related, entries } of batches.values()) {
      const links = entries.filter((entry) => entry.link)
      // A key alone links an item the caller can see; nothing of it is written.
      await this.checkKeys(
        related,
        links.map((entry) => entry.item),
        this.setup.access.view.scope(related),
        null,
      )
      const updates = entries.filter((entry) => !entry.link && entry.item.key !== null)
      await this.update(
        related,
        updates.map((entry) => entry.item),
      )
      for (const entry of [...links, ...updates]) inputs[entry.index]![field.name] = storedKey(field, entry.item.key!)
      const creates = entries.filter((entry) => entry.item.key === null)
      const keys = await this.create(
        related,
        creates.map((entry) => entry.item),
      )
      creates.forEach((entry, index) => (inputs[entry.index]![field.name] = storedKey(field, keys[index]!)))
    }
    return inputs
  }

  /**
   * The one-to-many changes of the items, relation by relation: detaches first (an `existing` item may have
   * children to let go), then updates and links (which re-parent), then creates.
   */
  private async toMany(writes: readonly ItemWrite[], keys: readonly PrimaryKey[], existing: boolean): Promise<void> {
    const relations = new Map<O2MRelation, { parent: PrimaryKey; change: ToManyWrite }[]>()
    writes.forEach((write, index) => {
      for (const change of write.toMany) {
        const entries = relations.get(change.relation) ?? relations.set(change.relation, []).get(change.relation)!
        entries.push({ parent: keys[index]!, change })
      }
    })
    for (const [relation, entries] of relations) {
      const current = existing ? await this.detachAll(relation, entries) : new Map<string, Set<string>>()
      const moved: ItemWrite[] = []
      const created: ItemWrite[] = []
      for (const { parent, change } of entries) {
        const children = current.get(keyId(parent))
        for (const ref of change.link) if (children?.has(keyId(ref.key)) !== true) moved.push(parentSet(relation, ref, parent))
        for (const child of change.items) (child.key === null ? created : moved).push(underParent(relation, child, parent))
      }
      await this.update(relation.related, moved)
      await this.create(relation.related, created)
    }
  }

  /**
   * Detaches what the changes let go: in the basic form every current child not kept, in the detailed form the
   * keys of its `delete` (each must be a child of that item, else a 404 at its path). Answers the children each
   * parent keeps, by key id.
   */
  private async detachAll(
    relation: O2MRelation,
    entries: readonly { parent: PrimaryKey; change: ToManyWrite }[],
  ): Promise<Map<string, Set<string>>> {
    const asking = entries.filter(({ change }) => change.replace || change.detach.length > 0)
    const current = new Map<string, Set<string>>()
    if (asking.length === 0) return current
    const children = await at(asking[0]!.change, () =>
      this.setup.repository.childrenOf(
        this.trx,
        relation,
        asking.map(({ parent }) => parent),
        this.setup.maxRows,
      ),
    )
    for (const child of children) {
      const of = current.get(keyId(child.parent)) ?? current.set(keyId(child.parent), new Set()).get(keyId(child.parent))!
      of.add(keyId(child.key))
    }
    const detached: KeyRef[] = []
    for (const { parent, change } of asking) {
      const of = current.get(keyId(parent)) ?? new Set<string>()
      if (change.replace) {
        const kept = new Set([
          ...change.link.map((ref) => keyId(ref.key)),
          ...change.items.filter((item) => item.key !== null).map((item) => keyId(item.key)),
        ])
        for (const child of children) {
          if (keyId(child.parent) === keyId(parent) && !kept.has(keyId(child.key))) detached.push({ ...change, key: child.key })
        }
      }
      for (const ref of change.detach) {
        if (!of.has(keyId(ref.key))) {
          throw atPath(
            new NotFoundError(`Item "${ref.key}" is not one of this item's "${relation.name}".`, {
              collection: relation.related.name,
              keys: [ref.key],
            }),
            ref,
          )
        }
        detached.push(ref)
      }
    }
    await this.detach(relation, detached)
    return current
  }

  /** Detaches children as the relation says: their foreign key set to null, or deleted. */
  private async detach(relation: O2MRelation, refs: readonly KeyRef[]): Promise<void> {
    if (refs.length === 0) return
    const { repository, lifecycle } = this.setup
    const related = relation.related
    if (relation.onDetach === 'nullify') {
      // Children the caller cannot change are not theirs to let go: 403, never a 404 for a key they did not send.
      const rule = await this.rule(related, 'update', refs[0]!)
      const writes = refs.map((ref) => parentSet(relation, ref, null))
      await this.checkKeys(related, writes, null, rule.scope)
      await this.update(related, writes, true)
      return
    }
    const rule = await this.rule(related, 'delete', refs[0]!)
    await this.checkKeys(related, refs, null, rule.scope)
    const place = sharedPlace(refs)
    const keys = await at(place, () =>
      lifecycle.before(
        related,
        'beforeDelete',
        refs.map((ref) => ref.key),
        this.meta(related),
      ),
    )
    await this.refused(related, place, () => repository.delete(this.trx, related, keys))
    this.events.push({ collection: related, action: 'delete', keys, payloads: [] })
  }

  /** 404 at the path of the first key without an item within `visible`, 403 for one outside `allowed`. */
  private async checkKeys(
    collection: Collection,
    refs: readonly (Place & { readonly key: PrimaryKey | null })[],
    visible: Parameters<ItemsRepository['checkKeys']>[3],
    allowed: Parameters<ItemsRepository['checkKeys']>[4],
  ): Promise<void> {
    if (refs.length === 0) return
    const keys = refs.map((ref) => ref.key!)
    try {
      await this.setup.repository.lockKeys(this.trx, collection, keys)
      await this.setup.repository.checkKeys(this.trx, collection, keys, visible, allowed)
    } catch (error) {
      const missing = error instanceof NotFoundError ? ((error.extensions.keys as PrimaryKey[] | undefined) ?? []) : []
      const first = refs.find((ref) => missing.some((key) => keyId(key) === keyId(ref.key))) ?? refs[0]!
      throw atPath(error, first)
    }
    this.remember(collection, keys)
  }

  /** The caller's rule for an action on a collection, resolved once per run; a denial is a 403 at `path`. */
  private async rule(collection: Collection, action: WriteAction, place: Place): Promise<WriteRule> {
    const id = `${action}:${collection.name}`
    let rule = this.rules.get(id)
    if (rule === undefined) {
      try {
        rule = this.setup.access.write(collection, action)
      } catch (error) {
        throw atPath(error, place)
      }
      this.rules.set(id, rule)
    }
    return at(place, async () => rule)
  }

  /** The writer's own check of the payloads' names, each reported at its item's path. */
  private checks(collection: Collection, rule: WriteRule, action: WriteAction, datas: readonly unknown[], writes: readonly Place[]): void {
    const checks = this.setup.checksOf(collection)
    collectErrors(datas, (data, index) => this.atItem(writes[index]!, () => checks.assertWritable(rule, action, [data], () => undefined)))
  }

  /** Runs a check of one item, its errors reported at the item's place. */
  private atItem<T>(place: Place, check: () => T): T {
    try {
      return check()
    } catch (error) {
      throw atPath(error, place)
    }
  }

  /**
   * Runs a batch's statement: a database refusal of a nested batch (a unique or foreign key violation) becomes
   * the API's error for the collection written, at the batch's place. The request's own items, and faults
   * (a deadlock the transaction retries), are left to the transaction to map.
   */
  private async refused<T>(collection: Collection, place: Place, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (error) {
      const refusal = place.path.length === 0 ? null : this.setup.repository.refusalOf(error, collection)
      throw atPath(refusal ?? error, place)
    }
  }

  private async inOrder<T, R>(items: readonly T[], run: (item: T, index: number) => Promise<R>): Promise<R[]> {
    const results: R[] = []
    for (const [index, item] of items.entries()) results.push(await run(item, index))
    return results
  }

  private remember(collection: Collection, keys: readonly PrimaryKey[]): void {
    const known = this.known.get(collection) ?? this.known.set(collection, new Set()).get(collection)!
    for (const key of keys) known.add(keyId(key))
  }

  private readonly knownOf = (collection: Collection): ReadonlySet<string> | undefined => this.known.get(collection)

  private meta(collection: Collection): Omit<HookMeta, 'signal'> {
    return { collection: collection.name, context: this.setup.access.context, db: this.trx }
  }
}
