// LIKE patterns that match a search term literally: shared by the dialects whose matcher is LIKE.
import type { PatternSpec } from '../query/operators'

/** Backslash is the escape character every dialect's LIKE is told to use (PostgreSQL's and MySQL's default). */
const escapeLike = (term: string): string => term.replace(/[\\%_]/g, (char) => `\\${char}`)

/** `term` as a LIKE pattern anchored per `anchor`, its own `%`, `_` and `\` escaped. */
export function likePattern(term: string, anchor: PatternSpec['anchor']): string {
  const escaped = escapeLike(term)
  return anchor === 'starts' ? `${escaped}%` : anchor === 'ends' ? `%${escaped}` : `%${escaped}%`
}
