// Builds Directus's relation answers (/relations): one per many-to-one field whose both ends the caller can see.
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

/** The many-to-one fields of `collection` the caller is shown with the collection they lead to. */
export function relationFields(collection: Collection, sight: VisibleSchema): Field[] {
  return sight.members(collection).filter((member): member is Field => member.kind === 'field' && sight.related(member) !== undefined)
}

/** Every relation the caller can see, in the order of /collections and then of each collection's fields. */
export function visibleRelations(sight: VisibleSchema): Field[] {
  return sight.collections.flatMap((collection) => relationFields(collection, sight))
}

/** The relation of a many-to-one field; `id` is its place among the relations shown, from 1. */
export function describeRelation(field: Field, id: number, sight: VisibleSchema): DirectusRelation {
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
      junction_field: null,
      sort_field: null,
      one_deselect_action: 'nullify',
    },
  }
}
