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
import { compositeKeyText } from '../schema/item-key'
import type { Item, PrimaryKey } from '../types'
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

/** The output name of the key a subscription's reads add: no field can have it, so it never meets one. */
const KEY_OUTPUT = '\u0000key'

/** `query` with the collection's key read too, under a name of its own, so every item read comes with its key. */
export function keyedQuery(query: Query, collection: Collection): Query {
  const key: FieldNode[] =
    collection.key.length === 1
      ? [{ kind: 'field', output: KEY_OUTPUT, field: collection.primaryKey }]
      : collection.key.map((field, index) => ({ kind: 'field', output: `${KEY_OUTPUT}${index}`, field }))
  return { ...query, fields: [...query.fields, ...key] }
}

/** Splits the items a keyed query read into keys and the items as the client asked for them. */
export function keyedItems(items: readonly Item[], collection: Collection): KeyedItem[] {
  if (collection.key.length > 1) {
    const outputs = collection.key.map((_, index) => `${KEY_OUTPUT}${index}`)
    return items.map((item) => {
      const rest = { ...item }
      for (const output of outputs) delete rest[output]
      return { key: compositeKeyText(outputs.map((output) => item[output])), item: rest }
    })
  }
  return items.map((item) => {
    const { [KEY_OUTPUT]: key, ...rest } = item
    return { key: key as PrimaryKey, item: rest }
  })
}
