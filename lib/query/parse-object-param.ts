// Reads an object parameter given in bracket form (`filter[a][_eq]=1`) or as a JSON string (`filter={...}`).
import { InvalidQueryError } from '../errors'
import { isPlainObject } from '../is-plain-object'

/** The parameter as an object, or null when it is absent or empty. */
export function parseObjectParam(raw: unknown, parameter: string): Record<string, unknown> | null {
  if (raw === undefined || raw === '') return null
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw new InvalidQueryError(`Invalid JSON for ${parameter} object`)
    }
  }
  if (!isPlainObject(value)) throw new InvalidQueryError(`"${parameter}" must be an object`)
  return value
}
