// The normalized schema model: built once from the options as one resolved graph (relations are objects, not
// names); the only source of identifiers for SQL.
import type { DetachAction, FieldType, ManagedValue, OnDeleteAction, TemporalStorage } from '../types'
import type { FieldTypeSpec } from './field-types'

/** A column-backed field. Query nodes hold these objects, never names taken from a request. */
export interface Field {
  readonly kind: 'field'
  readonly name: string
  /** The collection the field belongs to. */
  readonly collection: Collection
  readonly column: string
  readonly type: FieldType
  /** The rules of the field's type (see field-types.ts). */
  readonly spec: FieldTypeSpec
  readonly primaryKey: boolean
  readonly autoIncrement: boolean
  readonly nullable: boolean
  /** The column default in its API form (as a read answers it); `undefined` when there is none. */
  readonly default: unknown
  readonly maxLength?: number
  readonly scale?: number
  /** For `decimal`: most significant digits (`precision - scale` before the point). */
  readonly precision?: number
  readonly readonly: boolean
  readonly hidden: boolean
  /** For a many-to-one: the related collection. */
  readonly references?: Collection
  /** For the item field of a many-to-any: the collections its item may belong to, and the field naming which. */
  readonly referencesAny?: ManyToAny
  /** For the collection field of a many-to-any: the item field whose collection it names. */
  readonly namesCollectionOf?: Field
  /** For a many-to-one: the foreign key's ON DELETE action, when the configuration names it. */
  readonly onDelete?: OnDeleteAction
  /** For `array` fields: the elements' type. */
  readonly elementType?: FieldType
  /** For text fields: the only values accepted. */
  readonly enum?: readonly string[]
  readonly unique: boolean
  /** For `date`, `dateTime` and `timestamp` fields: how SQLite stores them (`isoText` unless configured). */
  readonly storage: TemporalStorage
  /** The database computes the column: never written. */
  readonly generated: boolean
  /** The value the router writes on create / on update, if any. */
  readonly onCreate?: ManagedValue
  readonly onUpdate?: ManagedValue
}

/**
 * The item side of a many-to-any (a junction row's `item`): the key of an item of one of `collections`, whose
 * name `collectionField` holds. No foreign key stands behind it: the router checks every write.
 */
export interface ManyToAny {
  readonly collections: readonly Collection[]
  readonly collectionField: Field
}

/** A one-to-many alias: the items of `related` whose `foreignKey` holds this item's primary key. */
export interface O2MRelation {
  readonly kind: 'o2m'
  readonly name: string
  readonly collection: Collection
  readonly related: Collection
  /** The many-to-one field of `related` that points back at `collection`. */
  readonly foreignKey: Field
  /** What a nested write does to a child it detaches (resolved: never nulls a NOT NULL foreign key). */
  readonly onDetach: DetachAction
}

export type Member = Field | O2MRelation

export interface Limits {
  readonly defaultLimit: number
  /** `undefined`: no cap. */
  readonly maxLimit: number | undefined
  readonly maxBatchSize: number
}

export interface Collection {
  readonly name: string
  readonly table: string
  readonly singleton: boolean
  /** Content versions can be saved for its items (`/versions`, `?version=`). */
  readonly versioning: boolean
  /**
   * The key's fields in key order: one for most collections, several for a composite key (see docs/reference/keys.md).
   * Whatever addresses one item (a path key, a key list, a version's `item`) goes through `key`.
   */
  readonly key: readonly Field[]
  /**
   * The key's one field; for a composite key, its first. Only code that has ruled a composite key out (a reference's
   * target, a one-to-many's parent: both single-field keys, see build-schema.ts) may read it as the item's key.
   */
  readonly primaryKey: Field
  /** Every member in definition order, hidden ones included. */
  readonly members: ReadonlyMap<string, Member>
  /** Column-backed fields in definition order, hidden ones included. */
  readonly fields: readonly Field[]
  readonly limits: Limits
  /** Payloads drop keys that name no field and take numeric strings for numbers (`lenientPayloads`). */
  readonly lenientPayloads: boolean
  /** The collection's JSON Schema fragment, if any. */
  readonly schemaFragment?: Record<string, unknown>
  /**
   * The many-to-one fields (of any collection, this one included) that point here with `onDelete: 'noAction'`
   * or `'restrict'`: a delete checks them first, so it is refused even where the database does not enforce them.
   */
  readonly restrictedBy: readonly Field[]
}

export interface Schema {
  readonly collections: ReadonlyMap<string, Collection>
}

/** A field the API never shows (`hidden`); relations are always visible. */
export const isHidden = (member: Member): boolean => member.kind === 'field' && member.hidden

/** A many-to-one field or a one-to-many alias: a member that leads to another collection. */
export const isRelation = (member: Member): boolean => member.kind === 'o2m' || member.references !== undefined

/** The allowed collection of a many-to-any named `name`, if it is one. */
export const anyTarget = (field: Field, name: unknown): Collection | undefined =>
  field.referencesAny?.collections.find((collection) => collection.name === name)

/** The collection a relation leads to; undefined for a plain field. */
export const relatedOf = (member: Member): Collection | undefined => (member.kind === 'o2m' ? member.related : member.references)
