// Parses ?search: one plain-text term, or null when empty.
import { InvalidQueryError } from '../errors'
import { hasNul } from '../schema/field-types'
import { parseSingle } from './parse-list'

const MAX_SEARCH_LENGTH = 1000

export function parseSearch(raw: unknown): string | null {
  const search = parseSingle(raw, 'search')
  if (search !== undefined && search.length > MAX_SEARCH_LENGTH) {
    throw new InvalidQueryError(`"search" may be at most ${MAX_SEARCH_LENGTH} characters long`)
  }
  if (search !== undefined && hasNul(search)) throw new InvalidQueryError('"search" cannot contain the NUL character')
  return search === undefined || search === '' ? null : search
}
