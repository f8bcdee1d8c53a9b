// Parses ?fields into the ordered list of response entries.
import { InvalidQueryError } from '../errors'
import { visibleMember, visibleMembers, type Collection, type Member } from '../schema/collection'
import { parseList } from './parse-list'
import type { FieldNode } from './query'

function toNode(member: Member): FieldNode {
  return member.kind === 'o2m'
    ? { kind: 'o2m', output: member.name, relation: member }
    : { kind: 'field', output: member.name, field: member }
}

export function parseFields(raw: unknown, collection: Collection): FieldNode[] {
  const names = parseList(raw, 'fields')
  const nodes = new Map<string, FieldNode>()
  for (const name of names.length === 0 ? ['*'] : names) {
    if (name === '*') {
      for (const member of visibleMembers(collection)) if (!nodes.has(member.name)) nodes.set(member.name, toNode(member))
      continue
    }
    if (name.includes('.')) {
      throw new InvalidQueryError(`Relational field paths such as "${name}" are not supported yet`)
    }
    const member = visibleMember(collection, name)
    if (!member) throw new InvalidQueryError(`Field "${name}" does not exist in collection "${collection.name}"`)
    if (!nodes.has(name)) nodes.set(name, toNode(member))
  }
  return [...nodes.values()]
}
