// Parses ?sort (`-rating,title` or `sort[]=...`) and appends the primary key as the final tiebreaker.
import { InvalidQueryError } from '../errors'
import { visibleMember, type Collection } from '../schema/collection'
import { parseList } from './parse-list'
import type { SortNode } from './query'

export function parseSort(raw: unknown, collection: Collection): SortNode[] {
  const sort: SortNode[] = []
  for (const entry of parseList(raw, 'sort')) {
    const descending = entry.startsWith('-')
    const name = entry.replace(/^[-+]/, '')
    const member = visibleMember(collection, name)
    if (!member) throw new InvalidQueryError(`Cannot sort by "${name}": no such field in collection "${collection.name}"`)
    if (member.kind !== 'field' || member.type === 'json') {
      throw new InvalidQueryError(`Cannot sort by "${name}": only scalar fields can be sorted`)
    }
    if (!sort.some((node) => node.field === member)) sort.push({ field: member, direction: descending ? 'desc' : 'asc' })
  }
  if (!sort.some((node) => node.field === collection.primaryKey)) sort.push({ field: collection.primaryKey, direction: 'asc' })
  return sort
}
