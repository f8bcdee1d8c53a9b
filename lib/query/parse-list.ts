// Reads a list parameter given as `a,b`, `p[]=a&p[]=b`, a JSON array string or a mix, as trimmed non-empty strings.
import { InvalidQueryError } from '../errors'
import { listParts } from './parse-object-param'

export function parseList(raw: unknown, parameter: string): string[] {
  return listParts(raw, parameter).flatMap((part) => {
    if (typeof part !== 'string') throw new InvalidQueryError(`"${parameter}" must be a comma-separated list`)
    return part
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
  })
}

/** A parameter that must appear at most once, as plain text. */
export function parseSingle(raw: unknown, parameter: string): string | undefined {
  if (raw === undefined) return undefined
  if (typeof raw !== 'string') throw new InvalidQueryError(`"${parameter}" must be given once, as plain text`)
  return raw
}
