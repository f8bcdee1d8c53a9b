// Parses ?version: the key of the content version a read shows.
import { InvalidQueryError } from '../errors'
import { unstorableText } from '../schema/field-types'
import { parseSingle } from './parse-list'

const MAX_VERSION_KEY_LENGTH = 64

export function parseVersion(raw: unknown): string | null {
  const key = parseSingle(raw, 'version')
  if (key === undefined) return null
  if (key === '' || key.length > MAX_VERSION_KEY_LENGTH) {
    throw new InvalidQueryError(`"version" must be a key of 1 to ${MAX_VERSION_KEY_LENGTH} characters`)
  }
  if (unstorableText(key)) throw new InvalidQueryError('"version" cannot contain the NUL character or an unpaired surrogate')
  return key
}
