// Reads a list parameter given as `a,b`, `p[]=a&p[]=b`, a JSON array string or a mix, as trimmed non-empty strings.
import { InvalidQueryError } from '../errors'
import { listParts } from './parse-object-param'

export function parseList(raw: unknown, parameter: string): string[] {
  // Loops rather than flatMap/map/filter: every list request parses `fields` and `sort` twice (counted, then read).
  const entries: string[] = []
  for (const part of listParts(raw, parameter)) {
    if (typeof part !== 'string') throw new InvalidQueryError(`"${parameter}" must be a comma-separated list`)
    for (const piece of part.split(',')) {
      const entry = piece.trim()
      if (entry !== '') entries.push(entry)
    }
  }
  return entries
}

/** A parameter that must appear at most once, as plain text. */
export function parseSingle(raw: unknown, parameter: string): string | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string') throw new InvalidQueryError(`"${parameter}" must be given once, as plain text`)
  return raw
}
