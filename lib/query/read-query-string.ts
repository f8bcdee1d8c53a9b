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

/** Reads `url`'s query string. Too many parameters, too long arrays or too deep brackets are a 400. */
export function readQueryString(url: string, limits: QueryStringLimits): RawQuery {
  const start = url.indexOf('?')
  if (start === -1) return {}
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
