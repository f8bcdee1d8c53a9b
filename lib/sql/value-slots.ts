// How a compiler writes a request's values into the statement it builds. A statement compiled for one request
// binds the values themselves (`OWN_VALUES`); a statement compiled as a template for every request of its key
// binds slots instead, each naming where a later request's value comes from (statement-templates.ts). The compilers
// are handed one or the other explicitly, so no compile depends on a mode set elsewhere.
import type { ComparisonNode } from '../query/query-key'
import type { ComparisonTarget } from './compile-comparison'
import type { SqlFragment } from '../dialects'

export interface ValueSlots {
  /** A comparison's fragment, as the statement binds it. */
  comparison(node: ComparisonNode, target: ComparisonTarget, fragment: SqlFragment): SqlFragment
  /** The values a statement binds besides its comparisons and its page (a key list, a window's rank bounds). */
  list<T>(values: readonly T[]): readonly T[]
}

/** The request's own values, bound as they are. */
export const OWN_VALUES: ValueSlots = {
  comparison: (_node, _target, fragment) => fragment,
  list: (values) => values,
}
