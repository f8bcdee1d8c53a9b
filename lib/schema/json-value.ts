// Checks a json field's value without recursion: its nesting depth, and text no database stores as given.
import { unstorableText } from './field-types'

/**
 * What makes `value` unstorable, or null when nothing does: a depth above `maxDepth`, counted as MySQL's
 * JSON_DEPTH counts it (a scalar or an empty array or object is 1, `[1]` is 2, `[[1]]` is 3), NUL or
 * an unpaired surrogate in a string or key, or a number JSON cannot write back (`1e309` parses as Infinity).
 * An explicit stack, so a value nested 100,000 deep costs a loop, not the call stack.
 */
export function jsonValueProblem(value: unknown, maxDepth: number): string | null {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }]
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!
    if (depth > maxDepth) return `is nested deeper than ${maxDepth} levels (maxJsonDepth)`
    if (typeof current === 'string') {
      if (unstorableText(current)) return 'cannot contain the NUL character or an unpaired surrogate'
    } else if (typeof current === 'number') {
      if (!Number.isFinite(current)) return 'must hold finite numbers only'
    } else if (typeof current === 'object' && current !== null) {
      if (Array.isArray(current)) {
        for (const item of current) stack.push({ value: item, depth: depth + 1 })
      } else {
        for (const [key, item] of Object.entries(current)) {
          if (unstorableText(key)) return 'cannot contain the NUL character or an unpaired surrogate in a key'
          stack.push({ value: item, depth: depth + 1 })
        }
      }
    }
  }
  return null
}
