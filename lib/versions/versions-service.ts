// Content versions: named drafts of one item, stored as deltas in the versions table, read through
// `?version=`, compared with and promoted to the main item through the normal update path.
import { unstorableText } from '../schema/field-types'
import { createHash } from 'node:crypto'
import { InvalidPayloadError, ItemsError, ItemsErrorList, NotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKey } from '../query/parse-key'
import type { FieldNode, Query } from '../query/query'
import type { Db } from '../execute/db'
import type { OwnTable } from '../execute/own-table'
import type { ItemsRepository, Page } from '../repository/items-repository'
import type { Collection, Field, Schema } from '../schema/collection'
import type { Payload, PayloadValidator } from '../schema/payload-validator'
import type { Item, PrimaryKey } from '../types'
import { planItem, type Planning } from '../writes/plan-write'
import { atPath } from '../writes/write-path'
import type { ItemWrite } from '../writes/write-plan'
import { VersionOverlay } from './version-overlay'
import { hashNodes, scalarNodes } from './hashed-fields'

/** The key that always means the item itself. */
export const MAIN_VERSION = 'main'
const MAX_KEY_LENGTH = 64
/**
 * The `item` a draft of an item that does not exist yet is stored with (the column is NOT NULL and part of the
 * unique key, so a key is unique among a collection's new-item drafts too); answered as `null`.
 */
export const NEW_ITEM = ''
/** The `mainHash` of a draft of a new item: there is no main item to digest. */
export const NO_ITEM_HASH = createHash('sha256').update('null').digest('hex')
const MAX_SAVE_ATTEMPTS = 5

export interface Version {
  readonly id: number
  readonly key: string
  readonly name: string | null
  readonly collection: string
  readonly item: string
  readonly hash: string | null
  readonly delta: Record<string, unknown> | null
  readonly date_created: string | null
  readonly date_updated: string | null
}

export class VersionConflictError extends ItemsError {
  constructor(message: string, extensions: Record<string, unknown> = {}) {
    super('UNPROCESSABLE_CONTENT', message, extensions)
  }
}

/** Every item a plan writes below its root, for the checks a draft gets at save. */
function nestedWrites(write: ItemWrite): ItemWrite[] {
  const below = [...write.toOne.map((one) => one.item), ...write.toMany.flatMap((many) => many.items)]
  return below.flatMap((item) => [item, ...nestedWrites(item)])
}

type VersionField = keyof Version

/** The stored row of a version about to be created. */
type NewVersion = Omit<Version, 'id'> & { readonly key: string; readonly hash: string; readonly delta: null }

export class VersionsService {
  /** The versions table's fields, by name. */
  readonly fields: Readonly<Record<VersionField, Field>>

  constructor(
    private readonly repository: ItemsRepository,
    private readonly schema: Schema,
    /** The versions table as an internal collection (see versions-table.ts). */
    readonly collection: Collection,
    private readonly validators: ReadonlyMap<Collection, PayloadValidator>,
    /** The versions table, created on first use or expected from the host's migrations. */
    readonly table: OwnTable,
    /** How deep a saved nested value may reach (`maxRelationalDepth`), as for a write. */
    private readonly planning: Planning,
  ) {
    this.fields = Object.fromEntries(collection.fields.map((field) => [field.name, field])) as Record<VersionField, Field>
    this.overlays = new VersionOverlay(repository)
  }

  private readonly overlays: VersionOverlay

  /** A collection that keeps versions; any other name is refused as the payload's mistake. */
  versionedCollection(name: unknown): Collection {
    const collection = typeof name === 'string' ? this.schema.collections.get(name) : undefined
    if (!collection || !collection.versioning) {
      throw new InvalidPayloadError(`"collection" must name a collection with versioning enabled`)
    }
    return collection
  }

  async get(id: number): Promise<Version> {
    const [version] = await this.repository.readByKeys(this.collection, [id], scalarNodes(this.collection))
    if (!version) throw new NotFoundError('Version not found.')
    return version as unknown as Version
  }

  /** The version of an item with this key; 404 when there is none (never the main item instead). */
  async find(collection: Collection, item: PrimaryKey | null, key: string): Promise<Version> {
    if (!(await this.table.available())) throw this.noVersion(key)
    const { fields } = this
    const id = await this.repository.firstKey(this.collection, {
      kind: 'and',
      children: [
        { kind: 'comparison', field: fields.collection, operator: '_eq', value: collection.name },
        { kind: 'comparison', field: fields.item, operator: '_eq', value: item === null ? NEW_ITEM : String(item) },
        { kind: 'comparison', field: fields.key, operator: '_eq', value: key },
      ],
    })
    if (id === null) throw this.noVersion(key)
    return this.get(id as number)
  }

  /** A page of versions. */
  list(query: Query): Promise<Page> {
    return this.repository.list(this.collection, query)
  }

  /**
   * A digest of the main item's visible fields, and of the related items `delta` writes into (see hashNodes): a
   * promote must name the state it was reviewed against.
   */
  async mainHash(
    collection: Collection,
    item: PrimaryKey,
    db?: Db,
    delta: Readonly<Record<string, unknown>> | null = null,
  ): Promise<string> {
    const [main] = await this.repository.readByKeys(collection, [item], hashNodes(collection, delta ? [delta] : []), null, db)
    if (!main) throw new NotFoundError(`Item "${item}" not found in "${collection.name}".`)
    return createHash('sha256').update(JSON.stringify(main)).digest('hex')
  }

  /** The item key a version belongs to, read as the collection's key type; null for a draft of a new item. */
  itemKey(collection: Collection, version: Version): PrimaryKey | null {
    return version.item === NEW_ITEM ? null : parseBodyKey(collection, version.item)
  }

  /** A version row as the API answers it: a draft of a new item belongs to no item (`item: null`). */
  answered(row: Item): Item {
    return row.item === NEW_ITEM ? { ...row, item: null } : row
  }

  /** 404 for a version key on a collection without versions: decided from the schema, before any SQL. */
  assertVersioned(collection: Collection, key: string | null): void {
    if (key !== null && key !== MAIN_VERSION && !collection.versioning) throw this.noVersion(key)
  }

  /**
   * The version `?version=` asks to show, or null for the item itself; a key with no version is a 404. A
   * singleton's draft of its row before there was one is found too, with or without the row.
   */
  async requested(collection: Collection, item: PrimaryKey | null, key: string | null): Promise<Version | null> {
    this.assertVersioned(collection, key)
    if (key === null || key === MAIN_VERSION) return null
    if (item === null && !collection.singleton) throw this.noVersion(key)
    if (!collection.singleton) return this.find(collection, item!, key)
    if (item !== null) {
      const found = await this.find(collection, item, key).catch((error: unknown) =>
        error instanceof NotFoundError ? null : Promise.reject(error),
      )
      if (found !== null) return found
    }
    return this.find(collection, null, key)
  }

  /** Every version of `collection` with this key, by item key: what a list read with `?version=` shows. */
  async withKey(collection: Collection, key: string): Promise<Map<string, Version & { itemKey: PrimaryKey }>> {
    if (!(await this.table.available())) return new Map()
    const { fields } = this
    const page = await this.repository.list(this.collection, {
      fields: scalarNodes(this.collection),
      filter: {
        kind: 'and',
        children: [
          { kind: 'comparison', field: fields.collection, operator: '_eq', value: collection.name },
          { kind: 'comparison', field: fields.key, operator: '_eq', value: key },
        ],
      },
      scope: null,
      search: null,
      sort: [{ field: this.collection.primaryKey, direction: 'asc', path: [] }],
      limit: null,
      offset: 0,
      aggregate: null,
      meta: { totalCount: false, filterCount: false },
      backlink: true,
      version: null,
    })
    const versions = page.items as unknown as Version[]
    // Drafts of new items are no items of the list.
    return new Map(
      versions.flatMap((version) => {
        const itemKey = this.itemKey(collection, version)
        return itemKey === null ? [] : [[version.item, { ...version, itemKey }] as const]
      }),
    )
  }

  /** The item as `version` shows it (see `overlay`), marked with the version's id as Directus marks it. */
  async shown(item: Item, key: PrimaryKey | null, fields: readonly FieldNode[], version: Version): Promise<Item> {
    return { ...(await this.overlay(item, key, fields, version.delta ?? {})), $meta: { version_id: version.id } }
  }

  /** `shown` for a page of items: each related item a delta names is read in one statement per relation and level. */
  async shownAll(entries: readonly { item: Item; key: PrimaryKey; version: Version }[], fields: readonly FieldNode[]): Promise<Item[]> {
    const shown = await this.overlays.apply(
      entries.map(({ item, key, version }) => ({ item, key, delta: version.delta ?? {} })),
      fields,
    )
    return shown.map((item, index) => ({ ...item, $meta: { version_id: entries[index]!.version.id } }))
  }

  async create(body: unknown): Promise<number> {
    return (await this.createMany([body]))[0]!
  }

  /**
   * Creates versions in order, in one transaction; every entry is checked (its item exists, its key is free, no
   * two entries share an item and key) before the first is written, so a refused entry writes nothing.
   */
  async createMany(bodies: readonly unknown[]): Promise<number[]> {
    const rows: Payload[] = []
    const keys: string[] = []
    const seen = new Set<string>()
    for (const body of bodies) {
      const values = await this.newVersion(body)
      const id = JSON.stringify([values.collection, values.item, values.key])
      if (seen.has(id)) throw this.keyTaken(values.key)
      seen.add(id)
      keys.push(values.key)
      rows.push(this.payload(values))
    }
    return this.write((trx) => this.repository.create(trx, this.collection, rows)).then(
      ({ keys }) => keys as number[],
      (error: unknown) => {
        // A concurrent create of the same key passed the checks; the unique index caught it.
        throw error instanceof ItemsError && error.code === 'RECORD_NOT_UNIQUE' ? this.keyTaken(keys.join('", "')) : error
      },
    )
  }

  /** The row of a new version, checked against the schema and the versions already stored. */
  private async newVersion(body: unknown): Promise<NewVersion> {
    if (!isPlainObject(body)) throw new InvalidPayloadError('The body must be a JSON object')
    const extra = Object.keys(body).filter((key) => !['key', 'name', 'collection', 'item'].includes(key))
    if (extra.length > 0) throw new InvalidPayloadError(`Unknown version field "${extra[0]}"`)
    const collection = this.versionedCollection(body.collection)
    const key = this.checkKey(body.key)
    // `item: null`: a draft of an item that does not exist yet. Left out, it is a mistake, not a new item.
    if (body.item === undefined) throw new InvalidPayloadError('"item" is required: the key of an item, or null for a draft of a new one')
    const item = body.item === null ? null : parseBodyKey(collection, body.item)
    if (item !== null && String(item) === NEW_ITEM)
      throw new InvalidPayloadError('"item" must be the key of an item, or null for a new one')
    const hash = item === null ? NO_ITEM_HASH : await this.mainHash(collection, item)
    await this.assertKeyFree(collection, item, key)
    const now = new Date().toISOString()
    return {
      key,
      name: this.checkName(body.name),
      collection: collection.name,
      item: item === null ? NEW_ITEM : String(item),
      hash,
      delta: null,
      date_created: now,
      date_updated: now,
    }
  }

  async rename(id: number, body: unknown): Promise<void> {
    if (!isPlainObject(body)) throw new InvalidPayloadError('The body must be a JSON object')
    const extra = Object.keys(body).filter((key) => key !== 'key' && key !== 'name')
    if (extra.length > 0) throw new InvalidPayloadError(`Only "key" and "name" of a version can be changed, not "${extra[0]}"`)
    const version = await this.get(id)
    const changes: Partial<Record<VersionField, unknown>> = { date_updated: new Date().toISOString() }
    if (body.name !== undefined) changes.name = this.checkName(body.name)
    if (body.key !== undefined) {
      changes.key = this.checkKey(body.key)
      if (changes.key !== version.key) {
        const collection = this.versionedCollection(version.collection)
        await this.assertKeyFree(collection, this.itemKey(collection, version), changes.key as string)
      }
    }
    await this.write((trx) => this.repository.update(trx, this.collection, [{ keys: [id], payload: this.payload(changes) }])).catch(
      (error: unknown) => {
        throw error instanceof ItemsError && error.code === 'RECORD_NOT_UNIQUE' ? this.keyTaken(String(changes.key)) : error
      },
    )
  }

  async remove(id: number): Promise<void> {
    await this.get(id)
    await this.write((trx) => this.repository.delete(trx, this.collection, [id]))
  }

  /**
   * Merges a partial item, validated like an update of its collection, into the version's delta. The write
   * only lands if the delta is still the one read, so two saves at once both keep their changes (one retries).
   */
  async save(id: number, body: unknown): Promise<Version> {
    let version = await this.get(id)
    const collection = this.versionedCollection(version.collection)
    const saved = this.draftChanges(collection, body)
    const item = this.itemKey(collection, version)
    for (let attempt = 1; ; attempt++) {
      const delta: Record<string, unknown> = { ...(version.delta ?? {}), ...saved }
      // The hash reads what the delta writes into, so it follows the delta as merged.
      const hash = item === null ? NO_ITEM_HASH : await this.mainHash(collection, item, undefined, delta)
      const changes = this.payload({ delta, hash, date_updated: new Date().toISOString() })
      if (await this.repository.updateIf(this.collection, id, this.fields.delta, version.delta, changes)) return { ...version, delta, hash }
      version = await this.get(id)
      // MySQL counts only changed rows: a save that changes nothing also answers "no row".
      if (JSON.stringify(version.delta) === JSON.stringify(delta)) return version
      if (attempt === MAX_SAVE_ATTEMPTS) throw new VersionConflictError('The version kept changing while saving; try again.')
    }
  }

  /**
   * What promoting the version writes: the delta (or the listed fields of it) for the main item, and the
   * `mainHash` the caller reviewed. The caller applies it through the normal update path with
   * `assertMainHash` as its guard, so the check and the write share one transaction and the item's row lock.
   */
  async promotion(
    id: number,
    body: unknown,
  ): Promise<{
    /** The version's id. */
    id: number
    collection: Collection
    /** null: a draft of a new item, which the promote creates. */
    item: PrimaryKey | null
    changes: Record<string, unknown>
    mainHash: string
    /** The whole delta: what the hash was computed over (see `mainHash`). */
    delta: Record<string, unknown>
  }> {
    if (!isPlainObject(body) || typeof body.mainHash !== 'string') throw new InvalidPayloadError('"mainHash" is required')
    const version = await this.get(id)
    const collection = this.versionedCollection(version.collection)
    const item = this.itemKey(collection, version)
    const delta = version.delta ?? {}
    let changes = delta
    if (body.fields !== undefined) {
      if (!Array.isArray(body.fields) || body.fields.some((name) => typeof name !== 'string')) {
        throw new InvalidPayloadError('"fields" must be an array of field names')
      }
      changes = Object.fromEntries(Object.entries(delta).filter(([name]) => (body.fields as string[]).includes(name)))
    }
    return { id, collection, item, changes, mainHash: body.mainHash, delta }
  }

  /** 422 unless the main item, read in `db` (a transaction holding its row lock), still has this hash. */
  async assertMainHash(
    collection: Collection,
    item: PrimaryKey,
    expected: string,
    db: Db,
    delta: Readonly<Record<string, unknown>> | null,
  ): Promise<void> {
    const current = await this.mainHash(collection, item, db, delta)
    this.assertHash(expected, current)
  }

  private assertHash(expected: string, current: string): void {
    if (expected !== current) {
      throw new VersionConflictError('The main item changed since this version was compared; compare again before promoting.', {
        mainHash: current,
      })
    }
  }

  /**
   * 422 when a promote left the main item, read in `db` after its write, with the hash it was checked against.
   * A promote must change the hash it consumes: one that changed nothing would leave that hash valid, and a second
   * promote named by it would succeed too. So of concurrent promotes with one `mainHash`, exactly one wins.
   */
  async assertPromoted(
    collection: Collection,
    item: PrimaryKey,
    consumed: string,
    db: Db,
    delta: Readonly<Record<string, unknown>> | null,
  ): Promise<void> {
    if ((await this.mainHash(collection, item, db, delta)) === consumed) {
      throw new VersionConflictError('Promoting this version would not change the main item.', { mainHash: consumed })
    }
  }

  /** The main item as the version shows it (see version-overlay.ts). */
  async overlay(item: Item, key: PrimaryKey | null, fields: readonly FieldNode[], delta: Record<string, unknown> | null): Promise<Item> {
    if (!delta) return item
    return (await this.overlays.apply([{ item, key, delta }], fields))[0]!
  }

  /**
   * The changes a save merges into a delta. Each value is checked as an update of its collection would check it
   * (unknown fields, types, nested shapes and depth, every error at its path); what only a whole write can tell
   * (required fields of a created item, keys that name nothing, access rules) is checked when it is promoted.
   */
  private draftChanges(collection: Collection, body: unknown): Record<string, unknown> {
    if (!isPlainObject(body)) throw new InvalidPayloadError('The body must be a JSON object')
    const plan = planItem(collection, body, null, this.planning)
    const own = this.validators.get(collection)!.validate('update', plan.data)
    const errors: unknown[] = []
    for (const write of nestedWrites(plan)) {
      try {
        this.validators.get(write.collection)!.validate('update', write.data)
      } catch (error) {
        errors.push(atPath(error, write))
      }
    }
    if (errors.length > 0) {
      throw new ItemsErrorList(errors.flatMap((error) => (error instanceof ItemsErrorList ? error.errors : [error as ItemsError])))
    }
    const changes: Record<string, unknown> = {}
    for (const name of Object.keys(body)) if (!Object.hasOwn(plan.data, name)) changes[name] = body[name]
    for (const [field, value] of own) changes[field.name] = value
    return changes
  }

  /** A write to the versions table, in a bare transaction: the table has no hooks to receive it. */
  private write<T>(work: (trx: Db) => Promise<T>): Promise<T> {
    return this.repository.transaction(this.collection, work, { bare: true })
  }

  private payload(values: Partial<Record<VersionField, unknown>>): Payload {
    return new Map(Object.entries(values).map(([name, value]) => [this.fields[name as VersionField], value]))
  }

  private checkKey(value: unknown): string {
    if (typeof value !== 'string' || value === '' || value.length > MAX_KEY_LENGTH) {
      throw new InvalidPayloadError(`"key" must be a string of 1 to ${MAX_KEY_LENGTH} characters`)
    }
    if (value === MAIN_VERSION) throw new InvalidPayloadError(`"${MAIN_VERSION}" is reserved for the item itself`)
    if (unstorableText(value)) throw new InvalidPayloadError('"key" cannot contain the NUL character or an unpaired surrogate')
    return value
  }

  private checkName(value: unknown): string | null {
    if (value === undefined || value === null) return null
    if (typeof value !== 'string' || value.length > 255) throw new InvalidPayloadError('"name" must be a string of at most 255 characters')
    if (unstorableText(value)) throw new InvalidPayloadError('"name" cannot contain the NUL character or an unpaired surrogate')
    return value
  }

  /**
   * The promote of a draft of a new item, in the transaction that creates it: the version's row is locked and must
   * still be a draft of a new item (`expected` being NO_ITEM_HASH); once the item is written (`adopt`), the version
   * belongs to it. Of concurrent promotes of one draft, one creates the item; the others find it adopted: 422.
   */
  newItemPromotion(id: number, expected: string): { guard: (db: Db) => Promise<void>; adopt: (db: Db, key: PrimaryKey) => Promise<void> } {
    return {
      guard: async (db) => {
        await this.repository.lockKeys(db, this.collection, [id])
        const [row] = await this.repository.readByKeys(
          this.collection,
          [id],
          [{ kind: 'field', output: 'item', field: this.fields.item }],
          null,
          db,
        )
        if (row?.item !== NEW_ITEM) throw new VersionConflictError('This draft was promoted already; its item exists now.')
        this.assertHash(expected, NO_ITEM_HASH)
      },
      adopt: async (db, key) => {
        await this.repository.update(db, this.collection, [
          { keys: [id], payload: this.payload({ item: String(key), date_updated: new Date().toISOString() }) },
        ])
      },
    }
  }

  private async assertKeyFree(collection: Collection, item: PrimaryKey | null, key: string): Promise<void> {
    const taken = await this.find(collection, item, key).then(
      () => true,
      (error: unknown) => (error instanceof NotFoundError ? false : Promise.reject(error)),
    )
    if (taken) throw this.keyTaken(key)
  }

  private noVersion(key: string): NotFoundError {
    return new NotFoundError(`Version "${key}" does not exist.`, { version: key })
  }

  private keyTaken(key: string): VersionConflictError {
    return new VersionConflictError(`Item already has a version with key "${key}".`, { key })
  }
}
