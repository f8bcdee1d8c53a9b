// A caller's view of the schema: the members they may name and the rows they may see. The parser resolves
// every name through a view, so a field the caller may not read is, to them, a field that does not exist.
import type { FilterNode } from './filter-node'
import { isHidden, type Collection, type Field, type Member, type Schema } from '../schema/collection'

export interface SchemaView extends Schema {
  /** The member of `collection` the caller may read under `name`, or undefined. */
  member(collection: Collection, name: string): Member | undefined
  /** The members `*` expands to, in definition order. */
  members(collection: Collection): readonly Member[]
  /** The rows of `collection` the caller may read; null: every row. Applied wherever its rows are consulted. */
  scope(collection: Collection): FilterNode | null
}

/** Each collection's members but hidden fields, worked out once per collection. */
const visible = new WeakMap<Collection, readonly Member[]>()
function visibleMembers(collection: Collection): readonly Member[] {
  let members = visible.get(collection)
  if (!members) visible.set(collection, (members = [...collection.members.values()].filter((member) => !isHidden(member))))
  return members
}

/** What everyone sees without access rules: every member but hidden fields, every row. */
export function openView(schema: Schema): SchemaView {
  return {
    collections: schema.collections,
    member: (collection, name) => {
      const member = collection.members.get(name)
      return member && !isHidden(member) ? member : undefined
    },
    members: visibleMembers,
    scope: () => null,
  }
}

/** What the host's own rule filters may name: every member, hidden fields included, and every row. */
export function fullView(schema: Schema): SchemaView {
  return {
    collections: schema.collections,
    member: (collection, name) => collection.members.get(name),
    members: (collection) => [...collection.members.values()],
    scope: () => null,
  }
}

/** The scalar fields a view lets `search` look in. */
export function searchableFields(view: SchemaView, collection: Collection): Field[] {
  return view.members(collection).filter((member): member is Field => member.kind === 'field')
}
