// The checks a write makes on keys before it changes anything: that the keys it names exist within the caller's
// view (404) and rule (403), that each many-to-one value it writes names an item, and that no row still
// references an item it deletes. The API answers the same on every database, whatever constraints it enforces.
import { ForbiddenError, ItemsError, NotFoundError } from '../errors'
import type { FilterNode } from '../query/filter-node'
import type { Collection } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import type { Db } from '../execute/db'
import { fromStorage, toStorage } from '../dialects/storage'
import { chunk } from '../plan/relation-plans'
import { keyId, type ItemLoader } from './item-loader'
import { unbounded } from './row-budget'
import type { KnownKeys, ScopeOf } from './write-types'

export class KeyChecks {
  constructor(
    private readonly loader: ItemLoader,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Checks keys a write names: a key without an item within `visible` is a 404, as if missing, and one within
   * it but outside `allowed` a 403 (null: no limit). One statement, two when `allowed` is set.
   */
  async checkKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    visible: FilterNode | null = null,
    allowed: FilterNode | null = null,
  ): Promise<void> {
    const unique = [...new Set(keys)]
    const found = await this.existingKeys(db, collection, unique, visible)
    const missing = unique.filter((key) => !found.has(keyId(key)))
    if (missing.length > 0) {
      throw new NotFoundError(
        missing.length === 1
          ? `Item "${missing[0]}" not found in "${collection.name}".`
          : `${missing.length} items not found in "${collection.name}".`,
        { collection: collection.name, keys: missing },
      )
    }
    if (allowed === null) return
    const permitted = await this.existingKeys(db, collection, unique, allowed)
    if (unique.some((key) => !permitted.has(keyId(key)))) throw new ForbiddenError()
  }

  /**
   * Every many-to-one value written must name an existing item: one query per reference field, before any
   * write. The database's own constraint would catch most, but not SQLite without `PRAGMA foreign_keys` nor
   * tables without constraints, and each driver words it differently; the API answers the same everywhere.
   * A self-reference may name an item that the same batch creates with an explicit key. An item outside
   * `visible` counts as missing, so a write cannot probe for rows the writer may not read.
   */
  async checkReferences(trx: Db, collection: Collection, payloads: readonly Payload[], visible: ScopeOf, known: KnownKeys): Promise<void> {
    const batchKeys = new Set(
      payloads
        .map((payload) => payload.get(collection.primaryKey))
        .filter((key) => key != null)
        .map(keyId),
    )
    for (const field of collection.fields) {
      const related = field.references
      if (related === undefined) continue
      const values = [...new Set(payloads.map((payload) => payload.get(field)).filter((value) => value != null))] as PrimaryKey[]
      const selfReferenced = (value: PrimaryKey): boolean => related === collection && batchKeys.has(keyId(value))
      const checked = known(related)
      const toCheck = values.filter((value) => !selfReferenced(value) && checked?.has(keyId(value)) !== true)
      if (toCheck.length === 0) continue
      const found = await this.existingKeys(trx, related, toCheck, visible(related))
      const missing = toCheck.find((value) => !found.has(keyId(value)))
      if (missing !== undefined) {
        throw new ItemsError(
          'INVALID_FOREIGN_KEY',
          `Invalid foreign key (field "${field.name}"): "${related.name}" has no item ${JSON.stringify(missing)}.`,
          { collection: collection.name, field: field.name, value: missing },
        )
      }
    }
  }

  /**
   * Refuses the delete (400 `INVALID_FOREIGN_KEY`, nothing deleted) when a row still references one of `keys`
   * through a many-to-one whose `onDelete` is `noAction` or `restrict`. The database would refuse too where it
   * enforces the key; SQLite does only under `PRAGMA foreign_keys`, which the host may not set. Rows of the
   * same collection that are deleted with it do not count (a subtree deleted at once). One statement per such
   * field and chunk of keys.
   */
  async checkUnreferenced(trx: Db, collection: Collection, keys: readonly PrimaryKey[]): Promise<void> {
    const pk = collection.primaryKey
    const stored = keys.map((key) => toStorage(pk, key, this.dialect))
    const deleted = new Set(keys.map(keyId))
    for (const field of collection.restrictedBy) {
      const referencing = field.collection
      for (const part of chunk(stored, this.dialect.maxParameters)) {
        let referenced: boolean
        if (referencing === collection) {
          // A row of the batch itself may point at another one; more such rows than keys cannot all be in it.
          const rows = (await trx(referencing.table)
            .select(pk.column)
            .whereIn(field.column, part)
            .limit(keys.length + 1)) as Record<string, unknown>[]
          referenced = rows.some((row) => !deleted.has(keyId(fromStorage(pk, row[pk.column], this.dialect) as PrimaryKey)))
        } else {
          referenced = (await trx(referencing.table).first(field.column).whereIn(field.column, part)) !== undefined
        }
        if (referenced) {
          throw new ItemsError('INVALID_FOREIGN_KEY', 'Invalid foreign key: other items still reference this item.', {
            collection: collection.name,
          })
        }
      }
    }
  }

  /** Which of `keys` name an item of `collection` within `scope`, as key ids. One query per chunk. */
  private async existingKeys(
    db: Db,
    collection: Collection,
    keys: readonly PrimaryKey[],
    scope: FilterNode | null = null,
  ): Promise<Set<string>> {
    return new Set((await this.loader.byKeys(db, collection, [...new Set(keys)], [], scope, unbounded())).keys())
  }
}
