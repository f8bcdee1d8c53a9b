// The shapes of Directus's schema answers (/collections, /fields, /relations, /schema/snapshot), as the router fills them.

/** A JSON value the answers may hold. */
export type Json = string | number | boolean | null | readonly Json[] | { readonly [key: string]: Json }

/** `GET /collections` entry. `meta` holds Directus's keys: see docs/reference/directus-schema.md for each value. */
export interface DirectusCollection {
  readonly collection: string
  readonly meta: { readonly [key: string]: Json }
  /** The table: `name` is its name. Directus answers null for a folder, which the router never has. */
  readonly schema: { readonly name: string }
}

/** The database side of a field; null for an alias (a one-to-many, which has no column). */
export interface DirectusFieldSchema {
  readonly name: string
  readonly table: string
  readonly data_type: string
  readonly default_value: Json
  readonly max_length: number | null
  readonly numeric_precision: number | null
  readonly numeric_scale: number | null
  readonly is_generated: boolean
  readonly generation_expression: null
  readonly is_nullable: boolean
  readonly is_unique: boolean
  readonly is_indexed: boolean
  readonly is_primary_key: boolean
  readonly has_auto_increment: boolean
  readonly foreign_key_column: string | null
  readonly foreign_key_table: string | null
}

/** `GET /fields` entry. */
export interface DirectusField {
  readonly collection: string
  readonly field: string
  /** Directus's abstract type: the field type's name, `alias` for a one-to-many. */
  readonly type: string
  readonly schema: DirectusFieldSchema | null
  readonly meta: { readonly [key: string]: Json }
}

/** `GET /relations` entry: one per many-to-one field. */
export interface DirectusRelation {
  readonly collection: string
  readonly field: string
  /** null for a many-to-any's item, which may lead to several collections. */
  readonly related_collection: string | null
  /** null where no foreign key stands behind the relation (a many-to-any's item). */
  readonly schema: { readonly [key: string]: Json } | null
  readonly meta: { readonly [key: string]: Json }
}

/** `GET /schema/snapshot`'s `data`. */
export interface DirectusSnapshot {
  readonly version: 1
  readonly directus: string
  readonly vendor: string
  readonly collections: readonly Json[]
  readonly fields: readonly Json[]
  readonly systemFields: readonly Json[]
  readonly relations: readonly Json[]
}
