// The normalized schema model: built once from the options; the only source of identifiers for SQL.
import type { FieldType } from '../types'

/** A column-backed field. Query nodes hold these objects, never names taken from a request. */
export interface Field {
  readonly kind: 'field'
  readonly name: string
  /** The collection the field belongs to. */
  readonly collection: string
  readonly column: string
  readonly type: FieldType
  readonly primaryKey: boolean
  readonly autoIncrement: boolean
  readonly nullable: boolean
  /** The column default as configured; `undefined` when there is none. */
  readonly default: unknown
  readonly maxLength?: number
  readonly scale?: number
  readonly readonly: boolean
  readonly hidden: boolean
  /** For a many-to-one: the related collection's name. */
  readonly references?: string
}

/** A one-to-many alias: the items of `collection` whose `foreignKey` holds this item's primary key. */
export interface O2MRelation {
  readonly kind: 'o2m'
  readonly name: string
  readonly collection: string
  readonly related: string
  readonly foreignKey: string
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
  readonly primaryKey: Field
  /** Every member in definition order, hidden ones included. */
  readonly members: ReadonlyMap<string, Member>
  /** Column-backed fields in definition order, hidden ones included. */
  readonly fields: readonly Field[]
  readonly limits: Limits
  /** The collection's JSON Schema fragment, if any. */
  readonly schemaFragment?: Record<string, unknown>
}

export interface Schema {
  readonly collections: ReadonlyMap<string, Collection>
}
