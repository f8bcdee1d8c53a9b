// Reads a subscription's (or a socket read's) `query`, in its JSON or its query-string form, into a Query
// through the caller's view, as the router parses a request's: the same parser, limits and `beforeRead` hook.
import type { CallerAccess } from '../access/caller-access'
import { InvalidQueryError } from '../errors'
import type { FieldNode, Query } from '../query/query'
import { readQueryBody } from '../query/read-query-body'
import type { RawQuery } from '../query/read-query-string'
import { parseHooked } from '../handlers/hooked-query'
import type { Services } from '../handlers/services'
import type { Collection } from '../schema/collection'
import { keyOfValues } from '../schema/item-key'
import type { Item } from '../types'
import type { KeyedItem } from './subscription'

/** What a subscription's query may hold: what shapes and selects items. Counts, groups and pages of a cursor do not apply to events. */
const SUBSCRIPTION_PARAMETERS: readonly string[] = [
  'fields',
  'filter',
  'sort',
  'limit',
  'offset',
  'page',
  'search',
  'deep',
  'alias',
  'backlink',
]

/** The raw parameters of `query`, checked against `allowed` when given. */
function rawParameters(query: Readonly<Record<string, unknown>>, services: Services, allowed: readonly string[] | null): RawQuery {
  if (allowed !== null) {
    const refused = Object.keys(query).find((name) => !allowed.includes(name))
    if (refused !== undefined) {
      throw new InvalidQueryError(`A subscription's query takes ${allowed.join(', ')}; not "${refused}"`)
    }
  }
  // The SEARCH body's reading: numbers become the text a URL carries, objects stay, so both forms mean the same.
  return readQueryBody({ query }, {}, services.queryString)
}

/** Parses `query` for `collection` through the caller's view; `subscription` limits it to what events can honour. */
export async function parseSocketQuery(
  query: Readonly<Record<string, unknown>>,
  collection: Collection,
  access: CallerAccess,
  services: Services,
  subscription: boolean,
): Promise<Query> {
  const raw = rawParameters(query, services, subscription ? SUBSCRIPTION_PARAMETERS : null)
  return parseHooked(raw, collection, access, services)
}

/** The output names of the key fields a subscription's reads add: no field can have one, so they never meet one. */
const KEY_OUTPUT = '\u0000key'
const keyOutput = (index: number): string => `${KEY_OUTPUT}${index}`

/** `query` with the collection's key fields read too, under names of their own, so every item read comes with its key. */
export function keyedQuery(query: Query, collection: Collection): Query {
  const key = collection.key.map((field, index): FieldNode => ({ kind: 'field', output: keyOutput(index), field }))
  return { ...query, fields: [...query.fields, ...key] }
}

/** Splits the items a keyed query read into keys (in the router's key form) and the items as the client asked for them. */
export function keyedItems(items: readonly Item[], collection: Collection): KeyedItem[] {
  const outputs = new Map(collection.key.map((field, index) => [field, keyOutput(index)]))
  return items.map((item) => {
    // Built anew rather than with the key deleted, which would slow every later access to the item.
    const rest: Item = {}
    for (const output of Object.keys(item)) if (!output.startsWith(KEY_OUTPUT)) rest[output] = item[output]
    return { key: keyOfValues(collection, (field) => item[outputs.get(field)!]), item: rest }
  })
}
