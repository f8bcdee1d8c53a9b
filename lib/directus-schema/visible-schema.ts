// What one caller can see of the schema: the collections it may read, in each the members it may read, and only
// the relations whose both ends it can see. Every schema answer is built from one of these.
import { openView, type SchemaView } from '../query/schema-view'
import { relatedOf, type Collection, type Field, type Member, type Schema } from '../schema/collection'

export interface VisibleSchema {
  readonly schema: Schema
  /** The readable collections, by name. */
  readonly collections: readonly Collection[]
  /** A readable collection; undefined for one that does not exist or that the caller may not read. */
  collection(name: string): Collection | undefined
  /** The members shown, in definition order: readable ones, and a one-to-many only when its items are readable. */
  members(collection: Collection): readonly Member[]
  /** The collection a relation leads to, when the caller can read it; undefined otherwise or for a plain field. */
  related(member: Member): Collection | undefined
  /** The one-to-many alias shown on the other side of a many-to-one, if any. */
  alias(field: Field): Member | undefined
}

const byName = (a: Collection, b: Collection): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** The schema as seen through `view`, where `canRead` says which collections the caller may read at all. */
export function visibleSchema(schema: Schema, view: SchemaView, canRead: (collection: Collection) => boolean): VisibleSchema {
  const collections = [...schema.collections.values()].filter(canRead).sort(byName)
  const readable = new Set(collections)
  const related = (member: Member): Collection | undefined => {
    const target = relatedOf(member)
    return target !== undefined && readable.has(target) ? target : undefined
  }
  const shown = new Map<Collection, readonly Member[]>()
  const members = (collection: Collection): readonly Member[] => {
    let list = shown.get(collection)
    if (list === undefined) {
      list = readable.has(collection) ? view.members(collection).filter((member) => member.kind === 'field' || related(member)) : []
      shown.set(collection, list)
    }
    return list
  }
  return {
    schema,
    collections,
    collection: (name) => collections.find((collection) => collection.name === name),
    members,
    related,
    alias: (field) =>
      field.references === undefined
        ? undefined
        : members(field.references).find((member) => member.kind === 'o2m' && member.foreignKey === field),
  }
}

/** Everything a client of the router could ever see: every collection, every field but hidden ones. */
export function wholeSchema(schema: Schema): VisibleSchema {
  return visibleSchema(schema, openView(schema), () => true)
}
