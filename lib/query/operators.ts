// The filter operators: what each takes and which type families it applies to. A new operator without a
// spec here does not compile.
import type { TypeFamily } from '../schema/field-types'

export type FilterOperator =
  | '_eq'
  | '_neq'
  | '_lt'
  | '_lte'
  | '_gt'
  | '_gte'
  | '_in'
  | '_nin'
  | '_null'
  | '_nnull'
  | '_empty'
  | '_nempty'
  | '_contains'
  | '_ncontains'
  | '_icontains'
  | '_nicontains'
  | '_starts_with'
  | '_nstarts_with'
  | '_istarts_with'
  | '_nistarts_with'
  | '_ends_with'
  | '_nends_with'
  | '_iends_with'
  | '_niends_with'
  | '_between'
  | '_nbetween'

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
const ANY: readonly TypeFamily[] = ['string', 'number', 'boolean', 'temporal', 'json', 'uuid']
const TEXT: readonly TypeFamily[] = ['string']

const pattern = (anchor: PatternSpec['anchor'], insensitive: boolean, negate: boolean): OperatorSpec => ({
  takes: 'value',
  on: TEXT,
  pattern: { anchor, insensitive, negate },
})

export const OPERATORS: Readonly<Record<FilterOperator, OperatorSpec>> = Object.freeze({
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
  _empty: { takes: 'flag', on: TEXT },
  _nempty: { takes: 'flag', on: TEXT },
  _contains: pattern('contains', false, false),
  _ncontains: pattern('contains', false, true),
  _icontains: pattern('contains', true, false),
  _nicontains: pattern('contains', true, true),
  _starts_with: pattern('starts', false, false),
  _nstarts_with: pattern('starts', false, true),
  _istarts_with: pattern('starts', true, false),
  _nistarts_with: pattern('starts', true, true),
  _ends_with: pattern('ends', false, false),
  _nends_with: pattern('ends', false, true),
  _iends_with: pattern('ends', true, false),
  _niends_with: pattern('ends', true, true),
  _between: { takes: 'pair', on: ORDERED },
  _nbetween: { takes: 'pair', on: ORDERED },
})

export function isFilterOperator(key: string): key is FilterOperator {
  return Object.hasOwn(OPERATORS, key)
}
