// Parses ?backlink: whether a relation read from its other side repeats the link back.
import { InvalidQueryError } from '../errors'
import { parseSingle } from './parse-list'

export function parseBacklink(raw: unknown): boolean {
  const text = parseSingle(raw, 'backlink')
  if (text === undefined || text === 'true') return true
  if (text === 'false') return false
  throw new InvalidQueryError('"backlink" must be true or false')
}
