// Parses ?search: one plain-text term, or null when empty.
import { InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import { unstorableText } from '../schema/field-types'
import { searchableFields, type SchemaView } from './schema-view'
import { parseSingle } from './parse-list'
import type { Search } from './query'

const MAX_SEARCH_LENGTH = 1000

/** The term, searched in the fields of `collection` the view lets the caller read. */
export function parseSearch(raw: unknown, collection: Collection, view: SchemaView): Search | null {
  const search = parseSingle(raw, 'search')
  if (search !== undefined && search.length > MAX_SEARCH_LENGTH) {
    throw new InvalidQueryError(`"search" may be at most ${MAX_SEARCH_LENGTH} characters long`)
  }
  if (search !== undefined && unstorableText(search))
    throw new InvalidQueryError('"search" cannot contain the NUL character or an unpaired surrogate')
  return search === undefined || search === '' ? null : { term: search, fields: searchableFields(view, collection) }
}
