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
    throw new InvalidQueryError(`The query string is too large or too deeply nested (${(error as Error).message})`)
  }
}
