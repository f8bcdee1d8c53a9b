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

/** How qs reads a query string within `limits`: past one of them it throws, and objects have no prototype. */
export const qsOptions = (limits: QueryStringLimits): qs.IParseOptions => ({
  depth: limits.maxDepth,
  strictDepth: true,
  parameterLimit: limits.maxParameters,
  arrayLimit: limits.maxArrayLength,
  throwOnLimitExceeded: true,
  allowPrototypes: false,
  plainObjects: true,
})

/** A key of plain names in brackets (`filter[author][_eq]`): no list index, no empty or unclosed bracket. */
const PLAIN_KEY = /^[^[\]]+(?:\[(?=[^[\]]*[^[\]\d])[^[\]]+\])*$/
const SEGMENTS = /[^[\]]+/g

/** qs's decoding of a key or value: `+` is a space, and a malformed escape leaves the text as it is. */
function decoded(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text
  const spaced = text.replace(/\+/g, ' ')
  try {
    return decodeURIComponent(spaced)
  } catch {
    return spaced
  }
}

type Plain = Record<string, unknown>

/**
 * What qs gives for the usual query string, read in one pass: every key plain names in brackets (see PLAIN_KEY),
 * each key once, none both a value and a parent. Anything else answers null, for qs to read: lists (`fields[]`,
 * `_and[0]`), repeated keys, limits reached. qs is general, and a request runs it cold, at several times its cost
 * in a loop (bench row "list 25, a new URL each request"). spec/query/query-string.spec.ts holds this to qs's
 * answers.
 */
export function readPlainQueryString(text: string, limits: QueryStringLimits): RawQuery | null {
  // As qs, brackets escaped anywhere count as brackets.
  const source = text.includes('%') ? text.replace(/%5B/gi, '[').replace(/%5D/gi, ']') : text
  const parts = source.split('&')
  if (parts.length > limits.maxParameters || limits.maxArrayLength < 1) return null
  const query: Plain = Object.create(null) as Plain
  let nameless = false
  for (const part of parts) {
    const bracketEquals = part.indexOf(']=')
    const split = bracketEquals === -1 ? part.indexOf('=') : bracketEquals + 1
    const key = decoded(split === -1 ? part : part.slice(0, split))
    // qs drops a part without a name, but first counts each such part as the same key: a second one repeats it.
    if (key === '') {
      if (nameless) return null
      nameless = true
      continue
    }
    if (!PLAIN_KEY.test(key)) return null
    const names = key.match(SEGMENTS)!
    if (names.length - 1 > limits.maxDepth || names.includes('__proto__')) return null
    let parent = query
    for (let depth = 0; depth < names.length - 1; depth++) {
      const child = parent[names[depth]!]
      if (child === undefined) parent = parent[names[depth]!] = Object.create(null) as Plain
      else if (typeof child === 'object') parent = child as Plain
      else return null
    }
    const name = names[names.length - 1]!
    if (parent[name] !== undefined) return null
    parent[name] = split === -1 ? '' : decoded(part.slice(split + 1))
  }
  return query
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
  const plain = readPlainQueryString(text, limits)
  if (plain !== null) return plain
  try {
    return qs.parse(text, qsOptions(limits)) as RawQuery
  } catch (error) {
    throw new InvalidQueryError(describeLimit(error, limits))
  }
}
