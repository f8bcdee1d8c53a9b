// Item types inferred from field definitions (`as const` or `defineCollection`), and the registry through which
// a host declares its user and role types once, for every access rule, hook and event.
import type { CollectionDefinition, FieldDefinition, FieldType, Item, PrimaryKey, TypedCollectionDefinition } from './types'

/**
 * Declarations the host adds by module augmentation; every context (`context` option, access rules, hooks,
 * events) then carries them. Without it, `user` and `role` are `unknown`.
 *
 * @example
 * declare module 'express-items-router' {
 *   interface ItemsTypes { user: { id: number; tenant: number }; role: 'admin' | 'editor' }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface, @typescript-eslint/no-empty-object-type -- filled by augmentation
export interface ItemsTypes {}

/** The host's user type (`ItemsTypes['user']`), or `unknown`. */
export type ItemsUser = ItemsTypes extends { user: infer U } ? U : unknown
/** The host's role type (`ItemsTypes['role']`), or `unknown`. */
export type ItemsRole = ItemsTypes extends { role: infer R } ? R : unknown

/** A field type's value as responses carry it: the README's "Field types and their JSON" table. */
export type FieldValue<T extends FieldType> = T extends 'integer' | 'float'
  ? number
  : T extends 'boolean'
    ? boolean
    : T extends 'json'
      ? unknown
      : T extends 'array'
        ? unknown[]
        : T extends 'set'
          ? string[]
          : T extends 'geometry'
            ? GeoJsonGeometry
            : string

/** A `geometry` field's value: a GeoJSON geometry (RFC 7946, section 3.1). */
export interface GeoJsonGeometry {
  type: 'Point' | 'LineString' | 'Polygon' | 'MultiPoint' | 'MultiLineString' | 'MultiPolygon' | 'GeometryCollection'
  coordinates?: unknown
  geometries?: GeoJsonGeometry[]
}

/** A field type's value as a payload may send it: exact numbers also as JSON numbers. */
export type FieldInput<T extends FieldType> = T extends 'bigInteger' | 'decimal' ? string | number : FieldValue<T>

type Fields = Readonly<Record<string, FieldDefinition>>

/** `null` unless the definition rules it out (`nullable: false`, or a primary key). */
type NullUnlessRequired<D> = D extends { primaryKey: true } ? never : D extends { nullable: false } ? never : null

type ReadValue<D> = D extends { type: 'o2m' }
  ? PrimaryKey[]
  : D extends { type: infer T extends FieldType }
    ? FieldValue<T> | NullUnlessRequired<D>
    : unknown

type InputValue<D> = D extends { type: infer T extends FieldType } ? FieldInput<T> | NullUnlessRequired<D> : never

type VisibleNames<F> = { [K in keyof F]: F[K] extends { hidden: true } ? never : K }[keyof F] & string
/** Fields a client may send: not aliases, `readonly`, `generated` or server-managed (`onCreate` / `onUpdate`). */
type WritableNames<F> = {
  [K in keyof F]: F[K] extends { type: 'o2m' } | { readonly: true } | { generated: true } | { onCreate: string } | { onUpdate: string }
    ? never
    : K
}[keyof F] &
  string
/** Fields the server side (presets, before hooks) may set: any column the database does not compute. */
type ServerWritableNames<F> = { [K in keyof F]: F[K] extends { type: 'o2m' } | { generated: true } ? never : K }[keyof F] & string
type KeyNames<F> = { [K in keyof F]: F[K] extends { primaryKey: true } ? K : never }[keyof F]

/**
 * An item as a read with the default `fields` (`*`) answers it: every field but hidden ones, a many-to-one as
 * its key, a one-to-many as the list of related keys. With wide definitions (`Record<string, ...>`): `Item`.
 */
export type ItemOf<F extends Fields> = string extends keyof F ? Item : { [K in VisibleNames<F>]: ReadValue<F[K]> }

/** What a create or update payload may hold (hidden fields included: they are writable). */
export type ItemInputOf<F extends Fields> = string extends keyof F ? Item : { [K in WritableNames<F>]?: InputValue<F[K]> | undefined }

/** Definitions of several collections by name (`{ teams: typeof teams, ... }`), to type nested writes between them. */
export type CollectionsOf = Readonly<Record<string, { readonly fields: Fields }>>

/** The fields of the collection `Name` when `S` defines it. */
type RelatedFields<S, Name> = Name extends keyof S ? (S[Name] extends { fields: infer R extends Fields } ? R : never) : never

/** A related item in a write: typed by its definition when `S` has it (to any depth), else any object. */
type NestedItem<S, Name> = [RelatedFields<S, Name>] extends [never] ? Record<string, unknown> : ItemWriteOf<RelatedFields<S, Name>, S>
type NestedKey<S, Name> = [RelatedFields<S, Name>] extends [never] ? PrimaryKey : KeyOf<RelatedFields<S, Name>>

/** A one-to-many child in a write: a related item without its foreign key `FK`, which the relation sets. */
type ChildItem<S, Name, FK> = [RelatedFields<S, Name>] extends [never]
  ? Record<string, unknown>
  : Omit<ItemWriteOf<RelatedFields<S, Name>, S>, FK & string>

/** A one-to-many value: the complete new list (keys and items), the detailed form, or null (no children). */
type ToManyWrite<S, Name, FK> =
  | readonly (NestedKey<S, Name> | ChildItem<S, Name, FK>)[]
  | {
      create?: readonly ChildItem<S, Name, FK>[]
      update?: readonly ChildItem<S, Name, FK>[]
      delete?: readonly NestedKey<S, Name>[]
    }
  | null

/** A many-to-any's item in a write: a key, or an item of one of the collections `Names` (typed one by one). */
type AnyItem<S, Names> = Names extends unknown ? NestedItem<S, Names> : never

type WriteValue<D, S> = D extends { type: 'o2m'; collection: infer C; foreignKey: infer FK }
  ? ToManyWrite<S, C, FK>
  : D extends { references: infer R }
    ? InputValue<D> | NestedItem<S, R>
    : D extends { referencesAny: readonly (infer R)[] }
      ? InputValue<D> | PrimaryKey | AnyItem<S, R>
      : InputValue<D>

/** The collections a many-to-any of `F` may name in its collection field `K`; never for another field. */
type NamedCollections<F, K> = {
  [N in keyof F]: F[N] extends { collectionField: K; referencesAny: readonly (infer R)[] } ? R : never
}[keyof F]

/** Fields a client may send in a write with nested values: the columns of `WritableNames`, and one-to-many aliases. */
type WriteNames<F> = {
  [K in keyof F]: F[K] extends { readonly: true } | { generated: true } | { onCreate: string } | { onUpdate: string } ? never : K
}[keyof F] &
  string

/**
 * What a create or update payload may hold, nested values included (see docs/guide/writes.md): a many-to-one
 * also takes an object, a one-to-many a list of keys and objects (without the foreign key the relation sets) or
 * `{ create, update, delete }`, a many-to-any's item a key or an object of its collections (and its collection
 * field one of their names). With the other
 * collections' definitions (`S`), the related objects are typed too, to any depth; without, they are any object.
 */
export type ItemWriteOf<F extends Fields, S = Record<never, never>> = string extends keyof F
  ? Item
  : {
      [K in WriteNames<F>]?:
        ([NamedCollections<F, K>] extends [never] ? WriteValue<F[K], S> : NamedCollections<F, K> | NullUnlessRequired<F[K]>) | undefined
    }

/** Whether `T` is a union of several types (several key fields: a composite key). */
type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never

/** The primary key's value type; a composite key's is its text form (`"1,23"`, see docs/reference/keys.md). */
export type KeyOf<F extends Fields> = string extends keyof F
  ? PrimaryKey
  : [KeyNames<F>] extends [never]
    ? PrimaryKey
    : true extends IsUnion<KeyNames<F>>
      ? string
      : Extract<ReadValue<F[KeyNames<F>]>, PrimaryKey>

/** The item, payload and key types of one collection, as hooks and events see them. */
export interface ItemShape {
  item: object
  input: object
  key: PrimaryKey
}

/** `input`: what before hooks receive and may answer, and events carry: readonly fields included, which they may set. */
export type ShapeOf<F extends Fields> = {
  item: ItemOf<F>
  input: string extends keyof F ? Item : { [K in ServerWritableNames<F>]?: InputValue<F[K]> | undefined }
  key: KeyOf<F>
}

/** The item type of a collection definition: `ItemOfCollection<typeof articles>`. */
export type ItemOfCollection<C extends { fields: Fields }> = ItemOf<C['fields']>

/**
 * Returns its argument unchanged; its only work is at compile time: the field definitions are inferred as
 * written (`as const`), so hooks and access rules see the collection's item type and field names.
 *
 * @example
 * const articles = defineCollection({
 *   fields: { id: { type: 'integer', primaryKey: true }, title: { type: 'string', nullable: false } },
 *   hooks: { beforeCreate: (item) => ({ ...item, title: item.title?.trim() }) }, // item.title: string | undefined
 * })
 */
export function defineCollection<const F extends Fields>(definition: TypedCollectionDefinition<F>): CollectionDefinition<F> {
  // The same object; only its hooks' and rules' declared parameter types widen back to the untyped ones.
  return definition as CollectionDefinition<F>
}
