// Decodes the two encodings of a structured parameter: bracket form (`filter[a][_eq]=1`, `fields[]=id`), which qs
// has already turned into objects and arrays, and a JSON string (`filter={...}`, `fields=["id"]`), which clients
// such as @directus/sdk send. Every object- or list-valued parameter goes through here, so both mean the same.
import { InvalidQueryError } from '../errors'
import { isPlainObject } from '../is-plain-object'

/** A JSON string of the expected shape; anything else that does not parse is the request's 400. */
function decodeJson(text: string, parameter: string, shape: 'object' | 'array'): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new InvalidQueryError(`Invalid JSON for ${parameter} ${shape}`)
  }
}

/**
 * The parameter as an object, or null when it is absent or empty. `form` shows the bracket form in the
 * message for a value that is neither.
 */
export function parseObjectParam(raw: unknown, parameter: string, form = `${parameter}[...]`): Record<string, unknown> | null {
  if (raw === undefined || raw === '') return null
  const value = typeof raw === 'string' ? decodeJson(raw, parameter, 'object') : raw
  if (!isPlainObject(value)) throw new InvalidQueryError(`"${parameter}" must be an object, given as ${form} or as JSON`)
  return value
}

/**
 * A list parameter's parts as given: the array of the bracket form, the elements of a JSON array string
 * (`["id","title"]`; no field name starts with `[`), or the one string. Splitting on commas is the caller's.
 */
export function listParts(raw: unknown, parameter: string): unknown[] {
  if (raw === undefined) return []
  if (typeof raw === 'string' && raw.trimStart().startsWith('[')) {
    const value = decodeJson(raw, parameter, 'array')
    if (!Array.isArray(value)) throw new InvalidQueryError(`Invalid JSON for ${parameter} array`)
    return value
  }
  return Array.isArray(raw) ? raw : [raw]
}
