// Parses the raw query string with qs and explicit limits, independent of the host app's `query parser`.
import qs from 'qs'
import { InvalidQueryError } from '../errors'

export interface QueryStringLimits {
  /** Most parameters (qs `parameterLimit`). */
  readonly maxParameters: number
  /** Most elements in one array parameter (qs `arrayLimit`). */
  readonly maxArrayLength: number
  /** Deepest bracket nesting (qs `depth`). */
  readonly maxDepth: number
}

export type RawQuery = Record<string, unknown>

function describeLimit(error: unknown, limits: QueryStringLimits): string {
  const message = error instanceof Error ? error.message : String(error)
  if (/parameter limit/i.test(message)) return `The query string has more than ${limits.maxParameters} parameters`
  if (/array limit/i.test(message)) return `A list in the query string has more than ${limits.maxArrayLength} values`
  if (/depth/i.test(message)) return `The query string nests brackets deeper than ${limits.maxDepth} levels`
  return 'The query string cannot be parsed'
}

/** A key segment qs would drop silently (`filter[__proto__][_eq]=1`), leaving the filter without its condition. */
const PROTOTYPE_KEY = /(^|\[)__proto__(\]|$)/

function decodeKey(part: string): string {
  const key = part.split('=', 1)[0]!.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(key)
  } catch {
    return key
  }
}

/** Reads `url`'s query string. Too many parameters, too long arrays or too deep brackets are a 400. */
export function readQueryString(url: string, limits: QueryStringLimits): RawQuery {
  const start = url.indexOf('?')
  if (start === -1) return {}
  const text = url.slice(start + 1)
  // Checked only when the text could spell one, so ordinary requests pay a single search.
  if (text.includes('__proto__') || text.includes('%')) {
    for (const part of text.split('&', limits.maxParameters + 1)) {
      const key = decodeKey(part)
      if (PROTOTYPE_KEY.test(key)) throw new InvalidQueryError(`"${key}" names no parameter, field or operator`)
    }
  }
  try {
    return qs.parse(url.slice(start + 1), {
      depth: limits.maxDepth,
      strictDepth: true,
      parameterLimit: limits.maxParameters,
      arrayLimit: limits.maxArrayLength,
      throwOnLimitExceeded: true,
      allowPrototypes: false,
      plainObjects: true,
    }) as RawQuery
  } catch (error) {
    throw new InvalidQueryError(describeLimit(error, limits))
  }
}
