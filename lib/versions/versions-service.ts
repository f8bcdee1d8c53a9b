// Content versions: named drafts of one item, stored as deltas in the versions table, read through
// `?version=`, compared with and promoted to the main item through the normal update path.
import { unstorableText } from '../schema/field-types'
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import { InvalidPayloadError, ItemsError, NotFoundError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKey } from '../query/parse-key'
import type { FieldNode, Query } from '../query/query'
import type { ItemsRepository, Page } from '../repository/items-repository'
import type { Collection, Field, Schema } from '../schema/collection'
import type { Payload, PayloadValidator } from '../schema/payload-validator'
import type { Item, PrimaryKey } from '../types'

/** The key that always means the item itself. */
export const MAIN_VERSION = 'main'
const MAX_KEY_LENGTH = 64
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

const scalarNodes = (collection: Collection): FieldNode[] =>
  collection.fields.filter((field) => !field.hidden).map((field) => ({ kind: 'field', output: field.name, field }))

type VersionField = keyof Version

export class VersionsService {
  /** The versions table's fields, by name. */
  readonly fields: Readonly<Record<VersionField, Field>>
  private tableReady: Promise<void> | null = null

  constructor(
    private readonly repository: ItemsRepository,
    private readonly schema: Schema,
    /** The versions table as an internal collection (see versions-table.ts). */
    readonly collection: Collection,
    private readonly validators: ReadonlyMap<Collection, PayloadValidator>,
    private readonly ensureTable: (() => Promise<void>) | null,
  ) {
    this.fields = Object.fromEntries(collection.fields.map((field) => [field.name, field])) as Record<VersionField, Field>
  }

  /** Creates the table once, on first use, when the router was asked to. */
  ready(): Promise<void> {
    this.tableReady ??= this.ensureTable ? this.ensureTable() : Promise.resolve()
    return this.tableReady
  }

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
  async find(collection: Collection, item: PrimaryKey, key: string): Promise<Version> {
    await this.ready()
    const { fields } = this
    const id = await this.repository.firstKey(this.collection, {
      kind: 'and',
      children: [
        { kind: 'comparison', field: fields.collection, operator: '_eq', value: collection.name },
        { kind: 'comparison', field: fields.item, operator: '_eq', value: String(item) },
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

  /** A digest of the main item's visible fields: a promote must name the state it was reviewed against. */
  async mainHash(collection: Collection, item: PrimaryKey): Promise<string> {
    const [main] = await this.repository.readByKeys(collection, [item], scalarNodes(collection))
    if (!main) throw new NotFoundError(`Item "${item}" not found in "${collection.name}".`)
    return createHash('sha256').update(JSON.stringify(main)).digest('hex')
  }

  /** The item key a version belongs to, read as the collection's key type. */
  itemKey(collection: Collection, version: Version): PrimaryKey {
    return parseBodyKey(collection, version.item)
  }

  /** 404 for a version key on a collection without versions: decided from the schema, before any SQL. */
  assertVersioned(collection: Collection, key: string | null): void {
    if (key !== null && key !== MAIN_VERSION && !collection.versioning) throw this.noVersion(key)
  }

  /** The delta `?version=` asks to show, or null for the item itself; a key with no version is a 404. */
  async requestedDelta(collection: Collection, item: PrimaryKey | null, key: string | null): Promise<Record<string, unknown> | null> {
    this.assertVersioned(collection, key)
    if (key === null || key === MAIN_VERSION) return null
    if (item === null) throw this.noVersion(key)
    return (await this.find(collection, item, key)).delta ?? {}
  }

  async create(body: unknown): Promise<number> {
    if (!isPlainObject(body)) throw new InvalidPayloadError('The body must be a JSON object')
    const extra = Object.keys(body).filter((key) => !['key', 'name', 'collection', 'item'].includes(key))
    if (extra.length > 0) throw new InvalidPayloadError(`Unknown version field "${extra[0]}"`)
    const collection = this.versionedCollection(body.collection)
    const key = this.checkKey(body.key)
    const item = parseBodyKey(collection, body.item)
    await this.ready()
    const hash = await this.mainHash(collection, item)
    await this.assertKeyFree(collection, item, key)
    const now = new Date().toISOString()
    const values = {
      key,
      name: this.checkName(body.name),
      collection: collection.name,
      item: String(item),
      hash,
      delta: null,
      date_created: now,
      date_updated: now,
    }
    const [id] = await this.write((trx) => this.repository.create(trx, this.collection, [this.payload(values)])).catch((error: unknown) => {
      // A concurrent create of the same key passed the check above; the unique index caught it.
      throw error instanceof ItemsError && error.code === 'RECORD_NOT_UNIQUE' ? this.keyTaken(key) : error
    })
    return id as number
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
    const payload = this.validators.get(collection)!.validate('update', body)
    // Retries race other saves of this version, not edits of the main item: one hash serves every attempt.
    const hash = await this.mainHash(collection, this.itemKey(collection, version))
    for (let attempt = 1; ; attempt++) {
      const delta: Record<string, unknown> = { ...(version.delta ?? {}) }
      for (const [field, value] of payload) delta[field.name] = value
      const changes = this.payload({ delta, hash, date_updated: new Date().toISOString() })
      if (await this.repository.updateIf(this.collection, id, this.fields.delta, version.delta, changes)) return { ...version, delta, hash }
      version = await this.get(id)
      // MySQL counts only changed rows: a save that changes nothing also answers "no row".
      if (JSON.stringify(version.delta) === JSON.stringify(delta)) return version
      if (attempt === MAX_SAVE_ATTEMPTS) throw new VersionConflictError('The version kept changing while saving; try again.')
    }
  }

  /**
   * What promoting the version writes: the delta (or the listed fields of it) for the main item, once the
   * caller's `mainHash` shows they reviewed its current state. The caller applies it through the normal update path.
   */
  async promotion(id: number, body: unknown): Promise<{ collection: Collection; item: PrimaryKey; changes: Record<string, unknown> }> {
    if (!isPlainObject(body) || typeof body.mainHash !== 'string') throw new InvalidPayloadError('"mainHash" is required')
    const version = await this.get(id)
    const collection = this.versionedCollection(version.collection)
    const item = this.itemKey(collection, version)
    const current = await this.mainHash(collection, item)
    if (body.mainHash !== current) {
      throw new VersionConflictError('The main item changed since this version was compared; compare again before promoting.', {
        mainHash: current,
      })
    }
    const delta = version.delta ?? {}
    let changes = delta
    if (body.fields !== undefined) {
      if (!Array.isArray(body.fields) || body.fields.some((name) => typeof name !== 'string')) {
        throw new InvalidPayloadError('"fields" must be an array of field names')
      }
      changes = Object.fromEntries(Object.entries(delta).filter(([name]) => (body.fields as string[]).includes(name)))
    }
    return { collection, item, changes }
  }

  /**
   * The main item as the version shows it: the delta's values replace the fields `fields` reads, and a
   * many-to-one the delta changes is read again from its new key, shaped by the same sub-fields.
   */
  async overlay(item: Item, fields: readonly FieldNode[], delta: Record<string, unknown> | null): Promise<Item> {
    if (!delta) return item
    const shown: Item = { ...item }
    for (const node of fields) {
      if ((node.kind !== 'field' && node.kind !== 'm2o') || !Object.hasOwn(delta, node.field.name)) continue
      const value = delta[node.field.name]
      if (node.kind === 'field') shown[node.output] = value
      else
        shown[node.output] =
          value == null
            ? null
            : ((await this.repository.readByKeys(node.related, [value as PrimaryKey], node.children, node.scope))[0] ?? null)
    }
    return shown
  }

  private write<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.repository.transaction(this.collection, work)
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

  private async assertKeyFree(collection: Collection, item: PrimaryKey, key: string): Promise<void> {
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
