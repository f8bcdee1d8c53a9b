// Builds Directus's relation answers (/relations): one per many-to-one field whose both ends the caller can see,
// and one per many-to-any item field, with the collections the caller can see among its own.
import type { Collection, Field } from '../schema/collection'
import type { OnDeleteAction } from '../types'
import type { DirectusRelation } from './directus-shapes'
import type { VisibleSchema } from './visible-schema'

/** The SQL words of a configured ON DELETE action. */
const ON_DELETE: Readonly<Record<OnDeleteAction, string>> = {
  noAction: 'NO ACTION',
  restrict: 'RESTRICT',
  cascade: 'CASCADE',
  setNull: 'SET NULL',
  setDefault: 'SET DEFAULT',
}

/** The collections of a many-to-any's item field the caller can read (none for another field). */
const anyTargets = (field: Field, sight: VisibleSchema): Collection[] =>
  field.referencesAny?.collections.filter((collection) => sight.collection(collection.name) !== undefined) ?? []

/**
 * The many-to-one fields of `collection` the caller is shown with the collection they lead to, and its
 * many-to-any item fields with the collections the caller can read among theirs.
 */
export function relationFields(collection: Collection, sight: VisibleSchema): Field[] {
  return sight
    .members(collection)
    .filter(
      (member): member is Field => member.kind === 'field' && (sight.related(member) !== undefined || anyTargets(member, sight).length > 0),
    )
}

/**
 * The junction's other side, as Directus links a many-to-any's two relations: for its item field, the
 * many-to-one back to the parent whose one-to-many the caller is shown; for that many-to-one, the item field.
 */
function junctionField(field: Field, sight: VisibleSchema): Field | null {
  const fields = sight.members(field.collection).filter((member): member is Field => member.kind === 'field')
  if (field.referencesAny !== undefined) return fields.find((other) => sight.alias(other) !== undefined) ?? null
  if (sight.alias(field) === undefined) return null
  const items = fields.filter((other) => anyTargets(other, sight).length > 0)
  return items.length === 1 ? items[0]! : null
}

/** The relation of a many-to-any's item field: no related collection and no foreign key, its collections listed. */
function describeAnyRelation(field: Field, id: number, sight: VisibleSchema): DirectusRelation {
  return {
    collection: field.collection.name,
    field: field.name,
    related_collection: null,
    schema: null,
    meta: {
      id,
      many_collection: field.collection.name,
      many_field: field.name,
      one_collection: null,
      one_field: null,
      one_collection_field: field.referencesAny!.collectionField.name,
      one_allowed_collections: anyTargets(field, sight).map((collection) => collection.name),
      junction_field: junctionField(field, sight)?.name ?? null,
      sort_field: null,
      one_deselect_action: 'nullify',
    },
  }
}

/** Every relation the caller can see, in the order of /collections and then of each collection's fields. */
export function visibleRelations(sight: VisibleSchema): Field[] {
  return sight.collections.flatMap((collection) => relationFields(collection, sight))
}

/** The relation of a many-to-one field; `id` is its place among the relations shown, from 1. */
export function describeRelation(field: Field, id: number, sight: VisibleSchema): DirectusRelation {
  if (field.referencesAny !== undefined) return describeAnyRelation(field, id, sight)
  const related = sight.related(field)!
  const alias = sight.alias(field)
  return {
    collection: field.collection.name,
    field: field.name,
    related_collection: related.name,
    schema: {
      table: field.collection.table,
      column: field.column,
      foreign_key_table: related.table,
      foreign_key_column: related.primaryKey.column,
      // Only what the configuration says: the router does not read constraints from the catalog here.
      on_update: null,
      on_delete: field.onDelete === undefined ? null : ON_DELETE[field.onDelete],
      constraint_name: null,
    },
    meta: {
      id,
      many_collection: field.collection.name,
      many_field: field.name,
      one_collection: related.name,
      one_field: alias?.name ?? null,
      one_collection_field: null,
      one_allowed_collections: null,
      junction_field: junctionField(field, sight)?.name ?? null,
      sort_field: null,
      one_deselect_action: 'nullify',
    },
  }
}
