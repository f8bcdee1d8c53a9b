// Parses ?sort (`-rating,author.name` or `sort[]=...`) and appends the primary key as the final tiebreaker.
import { InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { isOrderable } from './orderable'
import type { SchemaView } from './schema-view'
import { parseList } from './parse-list'
import { isFunctionCall, parseFunction } from './parse-function'
import type { FunctionOperand, SortNode } from './query'

/** Resolves `author.name`: every segment but the last must be a many-to-one, the last a sortable field. */
function resolvePath(entry: string, collection: Collection, schema: SchemaView): Pick<SortNode, 'field' | 'path' | 'operand'> {
  const segments = entry.split('.')
  const path: SortNode['path'][number][] = []
  let current = collection
  for (const [index, name] of segments.entries()) {
    if (isFunctionCall(name) && index === segments.length - 1) {
      if (path.length > 0) throw new InvalidQueryError(`Cannot sort by "${entry}": functions apply to the collection's own fields`)
      const operand = parseFunction(name, current, schema)
      return { field: operand.kind === 'datePart' ? operand.field : operand.parentKey, path, operand }
    }
    const member = schema.member(current, name)
    if (!member) throw new InvalidQueryError(`Cannot sort by "${entry}": no field "${name}" in collection "${current.name}"`)
    if (index === segments.length - 1) {
      if (!isOrderable(member)) {
        throw new InvalidQueryError(`Cannot sort by "${entry}": only scalar fields can be sorted`)
      }
      return { field: member, path }
    }
    if (member.kind !== 'field' || member.references === undefined) {
      throw new InvalidQueryError(`Cannot sort by "${entry}": "${name}" is not a many-to-one relation`)
    }
    current = member.references
    path.push({ field: member, related: current, scope: schema.scope(current) })
  }
  throw new InvalidQueryError(`Cannot sort by "${entry}"`)
}

type Target = Pick<SortNode, 'field' | 'path' | 'operand'>

function sameOperand(a: FunctionOperand | undefined, b: FunctionOperand | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  if (a.kind === 'datePart') return b.kind === 'datePart' && a.part === b.part && a.field === b.field
  return b.kind === 'count' && a.foreignKey === b.foreignKey
}

const sameTarget = (a: Target, b: Target): boolean =>
  a.field === b.field &&
  sameOperand(a.operand, b.operand) &&
  a.path.length === b.path.length &&
  a.path.every((hop, index) => hop.field === b.path[index]?.field)

export function parseSort(raw: unknown, collection: Collection, schema: SchemaView): SortNode[] {
  const sort: SortNode[] = []
  for (const entry of parseList(raw, 'sort')) {
    const descending = entry.startsWith('-')
    const target = resolvePath(entry.replace(/^[-+]/, ''), collection, schema)
    if (!sort.some((node) => sameTarget(node, target))) sort.push({ ...target, direction: descending ? 'desc' : 'asc' } as const)
  }
  // Every key field ends the sort, so that a row's sort keys name one place in the order (keysets, cursors).
  for (const field of collection.key) {
    const key: SortNode = { field, path: [], direction: 'asc' }
    if (!sort.some((node) => sameTarget(node, key))) sort.push(key)
  }
  return sort
}
