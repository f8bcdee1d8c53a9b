// The filter operators: what each takes and which type families it applies to. The operator union is derived
// from this table, and every consumer (SQL compiler, validation checker) keeps a table per arity typed over it,
// so an operator added here without a case there does not compile.
import type { TypeFamily } from '../schema/field-types'

/** `value`: one scalar; `list`: zero or more; `pair`: exactly two; `flag`: true or false. */
export type OperatorArity = 'value' | 'list' | 'pair' | 'flag'

/** How a pattern operator matches: where the term must sit, case rule, and whether the result is negated. */
export interface PatternSpec {
  readonly anchor: 'contains' | 'starts' | 'ends'
  readonly insensitive: boolean
  readonly negate: boolean
}

export interface OperatorSpec {
  readonly takes: OperatorArity
  readonly on: readonly TypeFamily[]
  readonly pattern?: PatternSpec
}

const EQUALITY: readonly TypeFamily[] = ['string', 'number', 'boolean', 'temporal', 'uuid']
const ORDERED: readonly TypeFamily[] = ['number', 'temporal']
const LISTED: readonly TypeFamily[] = ['string', 'number', 'temporal', 'uuid']
const ANY: readonly TypeFamily[] = ['string', 'number', 'boolean', 'temporal', 'json', 'uuid', 'array', 'binary', 'geometry']
const TEXT: readonly TypeFamily[] = ['string']
/** `_contains` / `_ncontains` on an array test whether it holds an element; `_empty` whether it has none. */
const TEXT_OR_ARRAY: readonly TypeFamily[] = ['string', 'array']

/** `_intersects` and `_intersects_bbox` take a GeoJSON geometry. */
const SPATIAL: readonly TypeFamily[] = ['geometry']

const pattern = <const P extends PatternSpec>(spec: P) => ({ takes: 'value', on: TEXT, pattern: spec }) as const

export const OPERATORS = Object.freeze({
  _eq: { takes: 'value', on: EQUALITY },
  _neq: { takes: 'value', on: EQUALITY },
  _lt: { takes: 'value', on: ORDERED },
  _lte: { takes: 'value', on: ORDERED },
  _gt: { takes: 'value', on: ORDERED },
  _gte: { takes: 'value', on: ORDERED },
  _in: { takes: 'list', on: LISTED },
  _nin: { takes: 'list', on: LISTED },
  _null: { takes: 'flag', on: ANY },
  _nnull: { takes: 'flag', on: ANY },
  _empty: { takes: 'flag', on: TEXT_OR_ARRAY },
  _nempty: { takes: 'flag', on: TEXT_OR_ARRAY },
  _contains: { ...pattern({ anchor: 'contains', insensitive: false, negate: false }), on: TEXT_OR_ARRAY },
  _ncontains: { ...pattern({ anchor: 'contains', insensitive: false, negate: true }), on: TEXT_OR_ARRAY },
  _icontains: pattern({ anchor: 'contains', insensitive: true, negate: false }),
  _nicontains: pattern({ anchor: 'contains', insensitive: true, negate: true }),
  _starts_with: pattern({ anchor: 'starts', insensitive: false, negate: false }),
  _nstarts_with: pattern({ anchor: 'starts', insensitive: false, negate: true }),
  _istarts_with: pattern({ anchor: 'starts', insensitive: true, negate: false }),
  _nistarts_with: pattern({ anchor: 'starts', insensitive: true, negate: true }),
  _ends_with: pattern({ anchor: 'ends', insensitive: false, negate: false }),
  _nends_with: pattern({ anchor: 'ends', insensitive: false, negate: true }),
  _iends_with: pattern({ anchor: 'ends', insensitive: true, negate: false }),
  _niends_with: pattern({ anchor: 'ends', insensitive: true, negate: true }),
  _intersects: { takes: 'value', on: SPATIAL },
  _nintersects: { takes: 'value', on: SPATIAL },
  _intersects_bbox: { takes: 'value', on: SPATIAL },
  _nintersects_bbox: { takes: 'value', on: SPATIAL },
  _between: { takes: 'pair', on: ORDERED },
  _nbetween: { takes: 'pair', on: ORDERED },
} as const satisfies Record<string, OperatorSpec>)

type Table = typeof OPERATORS

export type FilterOperator = keyof Table

/** The operators of one arity. */
export type OperatorTaking<A extends OperatorArity> = { [O in FilterOperator]: Table[O]['takes'] extends A ? O : never }[FilterOperator]

/** The single-value operators that match text against a pattern (`_contains`, `_istarts_with`, ...). */
export type PatternOperator = { [O in FilterOperator]: Table[O] extends { readonly pattern: PatternSpec } ? O : never }[FilterOperator]

export type ValueOperator = OperatorTaking<'value'>
export type ListOperator = OperatorTaking<'list'>
export type PairOperator = OperatorTaking<'pair'>
export type FlagOperator = OperatorTaking<'flag'>
/** The single-value operators that compare (`_eq`, `_lt`, ...), as opposed to matching a pattern. */
export type CompareOperator = Exclude<ValueOperator, PatternOperator>

export function isFilterOperator(key: string): key is FilterOperator {
  return Object.hasOwn(OPERATORS, key)
}

/** The pattern of a pattern operator, or undefined for any other. */
export function patternOf(operator: FilterOperator): PatternSpec | undefined {
  const spec: OperatorSpec = OPERATORS[operator]
  return spec.pattern
}

/** Narrows an operator to those of one arity. */
export function takes<A extends OperatorArity>(operator: FilterOperator, arity: A): operator is OperatorTaking<A> {
  return OPERATORS[operator].takes === arity
}
