// Compiles one comparison (an operator and its value) against a column or a computed operand. One table per
// operator arity, typed over the operator union: an operator without SQL here does not compile.
import type { Knex } from 'knex'
import { hasArity, type OperatorValue } from '../query/filter-node'
import {
  patternOf,
  type FlagOperator,
  type ListOperator,
  type PairOperator,
  type PatternOperator,
  type ValueOperator,
} from '../query/operators'
import type { Dialect, SqlFragment } from '../dialects'

/** What a comparison is about, and how its values are bound. */
export interface ComparisonTarget {
  /** The compared expression: `??` with the column, or a function operand's SQL. */
  readonly lhs: SqlFragment
  /** The column, for pattern matches (which only apply to text columns). */
  readonly column: string | null
  /**
   * The dialect's exact text comparison (see Dialect.exactText) when the target is a text column on a database
   * whose collation would ignore case, accents or trailing spaces; null otherwise.
   */
  readonly exact: string | null
  readonly dialect: Dialect
  /** The target is an array column: `_contains` / `_ncontains` test an element, `_empty` its length. */
  readonly array: boolean
  /** A canonical value as the parameter bound for the target. */
  store(value: unknown): Knex.Value
}

type Value = Knex.Value
const fragment = (sql: string, bindings: readonly Knex.RawBinding[]): SqlFragment => ({ sql, bindings })
const placeholders = (values: readonly unknown[], each = '?'): string => values.map(() => each).join(', ')

// The forms knex's own whereIn / whereNotIn give empty lists.
const MATCH_NOTHING = fragment('1 = ?', [0])
const MATCH_EVERYTHING = fragment('1 = ?', [1])

/** `lhs <op> ?`; on text that must compare exactly, the exact comparison too (the plain one lets an index narrow first). */
function compared(target: ComparisonTarget, operator: '=' | '<>' | '<' | '<=' | '>' | '>=', value: Value): SqlFragment {
  const { lhs, exact } = target
  if (exact === null || (operator !== '=' && operator !== '<>')) return fragment(`${lhs.sql} ${operator} ?`, [...lhs.bindings, value])
  if (operator === '<>') return fragment(`${lhs.sql} <> ${exact}`, [...lhs.bindings, value])
  return fragment(`${lhs.sql} = ? and ${lhs.sql} = ${exact}`, [...lhs.bindings, value, ...lhs.bindings, value])
}

function pattern(operator: PatternOperator): (target: ComparisonTarget, value: Value) => SqlFragment {
  const spec = patternOf(operator)!
  return (target, value) => {
    if (target.array) return target.dialect.arrays!.contains(target.lhs, value, spec.negate)
    if (target.column === null) throw new Error(`"${operator}" applies to text columns only`)
    return target.dialect.pattern(target.column, String(value), spec)
  }
}

const FLAG: Readonly<Record<FlagOperator, (target: ComparisonTarget) => SqlFragment>> = {
  _null: ({ lhs }) => fragment(`${lhs.sql} is null`, lhs.bindings),
  _nnull: ({ lhs }) => fragment(`${lhs.sql} is not null`, lhs.bindings),
  _empty: ({ lhs, exact, array, dialect }) =>
    array
      ? dialect.arrays!.empty(lhs, false)
      : fragment(`(${lhs.sql} is null or ${lhs.sql} = ${exact ?? '?'})`, [...lhs.bindings, ...lhs.bindings, '']),
  _nempty: ({ lhs, exact, array, dialect }) =>
    array
      ? dialect.arrays!.empty(lhs, true)
      : exact === null
        ? fragment(`${lhs.sql} is not null and ${lhs.sql} <> ?`, [...lhs.bindings, ...lhs.bindings, ''])
        : fragment(`${lhs.sql} <> ${exact}`, [...lhs.bindings, '']),
}

/** `_eq` / `_neq` with null are IS NULL / IS NOT NULL. */
const VALUE: Readonly<Record<ValueOperator, (target: ComparisonTarget, value: Value) => SqlFragment>> = {
  _eq: (target, value) => (value === null ? FLAG._null(target) : compared(target, '=', value)),
  _neq: (target, value) => (value === null ? FLAG._nnull(target) : compared(target, '<>', value)),
  _lt: (target, value) => compared(target, '<', value),
  _lte: (target, value) => compared(target, '<=', value),
  _gt: (target, value) => compared(target, '>', value),
  _gte: (target, value) => compared(target, '>=', value),
  _contains: pattern('_contains'),
  _ncontains: pattern('_ncontains'),
  _icontains: pattern('_icontains'),
  _nicontains: pattern('_nicontains'),
  _starts_with: pattern('_starts_with'),
  _nstarts_with: pattern('_nstarts_with'),
  _istarts_with: pattern('_istarts_with'),
  _nistarts_with: pattern('_nistarts_with'),
  _ends_with: pattern('_ends_with'),
  _nends_with: pattern('_nends_with'),
  _iends_with: pattern('_iends_with'),
  _niends_with: pattern('_niends_with'),
}

/**
 * An empty `_in` matches nothing and an empty `_nin` everything. A list of one is `=` / `<>`, as every key list
 * of a one-item read is: SQLite runs `IN (?)` slower than `= ?` (bench row "one item with o2m keys").
 */
const LIST: Readonly<Record<ListOperator, (target: ComparisonTarget, values: readonly Value[]) => SqlFragment>> = {
  _in: (target, values) => {
    if (values.length === 0) return MATCH_NOTHING
    if (values.length === 1) return compared(target, '=', values[0]!)
    const { lhs, exact } = target
    const plain = fragment(`${lhs.sql} in (${placeholders(values)})`, [...lhs.bindings, ...values])
    if (exact === null) return plain
    return fragment(`${plain.sql} and ${lhs.sql} IN (${placeholders(values, exact)})`, [...plain.bindings, ...lhs.bindings, ...values])
  },
  _nin: (target, values) => {
    if (values.length === 0) return MATCH_EVERYTHING
    if (values.length === 1) return compared(target, '<>', values[0]!)
    const { lhs, exact } = target
    const each = exact ?? '?'
    return fragment(`${lhs.sql} ${exact === null ? 'not in' : 'NOT IN'} (${placeholders(values, each)})`, [...lhs.bindings, ...values])
  },
}

const PAIR: Readonly<Record<PairOperator, (target: ComparisonTarget, low: Value, high: Value) => SqlFragment>> = {
  _between: ({ lhs }, low, high) => fragment(`${lhs.sql} between ? and ?`, [...lhs.bindings, low, high]),
  _nbetween: ({ lhs }, low, high) => fragment(`${lhs.sql} not between ? and ?`, [...lhs.bindings, low, high]),
}

/** The SQL of `node`'s operator and value against `target`. */
export function compileComparison(compared: OperatorValue, target: ComparisonTarget): SqlFragment {
  if (hasArity(compared, 'flag')) return FLAG[compared.operator](target)
  if (hasArity(compared, 'value')) return VALUE[compared.operator](target, target.store(compared.value))
  if (hasArity(compared, 'list'))
    return LIST[compared.operator](
      target,
      compared.value.map((value) => target.store(value)),
    )
  if (hasArity(compared, 'pair')) return PAIR[compared.operator](target, target.store(compared.value[0]), target.store(compared.value[1]))
  const unknown: never = compared
  throw new Error(`Unhandled comparison ${JSON.stringify(unknown)}`)
}
