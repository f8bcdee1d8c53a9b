// What a version's hash and its own rows read: the fields of an item as FieldNodes, and for a hash also the
// related items a draft writes into.
import { isPlainObject } from '../is-plain-object'
import type { FieldNode } from '../query/query'
import type { Collection } from '../schema/collection'

/** Every visible column of the collection. */
export const scalarNodes = (collection: Collection): FieldNode[] =>
  collection.fields.filter((field) => !field.hidden).map((field) => ({ kind: 'field', output: field.name, field }))

/** The objects a nested value holds for the related collection: an m2o object, a list's objects, `create` and `update`. */
function nestedObjects(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.filter(isPlainObject)
  if (!isPlainObject(value)) return []
  const detailed = ['create', 'update', 'delete'].some((name) => Object.hasOwn(value, name))
  if (!detailed) return [value]
  return [value.create, value.update].flatMap((list) => (Array.isArray(list) ? list.filter(isPlainObject) : []))
}

/**
 * What a version's hash reads of its item: every visible column, and each relation the delta writes into, as deep
 * as it writes (the children's columns, and theirs). A promote of nested changes then changes the hash it consumes.
 */
export function hashNodes(collection: Collection, deltas: readonly Readonly<Record<string, unknown>>[]): FieldNode[] {
  const nodes = scalarNodes(collection)
  for (const [name, member] of collection.members) {
    const written = deltas.filter((delta) => Object.hasOwn(delta, name))
    if (written.length === 0) continue
    const objects = written.flatMap((delta) => nestedObjects(delta[name]))
    if (member.kind === 'o2m') {
      const { related } = member
      nodes.push({
        kind: 'o2m',
        output: name,
        relation: member,
        related,
        children: hashNodes(related, objects),
        selection: {
          filter: null,
          search: null,
          sort: related.key.map((field) => ({ field, direction: 'asc', path: [] }) as const),
          limit: null,
          offset: 0,
        },
      })
    } else if (member.references !== undefined && !member.hidden && objects.length > 0) {
      const index = nodes.findIndex((node) => node.output === name)
      const node: FieldNode = {
        kind: 'm2o',
        output: name,
        field: member,
        related: member.references,
        children: hashNodes(member.references, objects),
        scope: null,
      }
      if (index === -1) nodes.push(node)
      else nodes[index] = node
    } else if (member.referencesAny !== undefined && !member.hidden && objects.length > 0) {
      // A many-to-any's item in each collection the deltas name beside an object.
      const collectionName = member.referencesAny.collectionField.name
      const targets = member.referencesAny.collections.flatMap((related) => {
        const into = written.filter((delta) => delta[collectionName] === related.name).flatMap((delta) => nestedObjects(delta[name]))
        return into.length === 0 ? [] : [{ related, children: hashNodes(related, into), scope: null }]
      })
      const index = nodes.findIndex((node) => node.output === name)
      const node: FieldNode = { kind: 'm2a', output: name, field: member, targets }
      if (index === -1) nodes.push(node)
      else nodes[index] = node
    }
  }
  return nodes
}
