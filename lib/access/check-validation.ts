// Checks a payload against an access rule's `validation` filter, in memory, with the operators' SQL meaning:
// a comparison with null fails, except the ones about null or emptiness. One table per operator arity, typed
// over the operator union, so an operator without a rule here does not compile.
import { FailedValidationError } from '../errors'
import { hasArity, type ComparisonNode, type FilterNode, type Scalar } from '../query/filter-node'
import {
  patternOf,
  type FlagOperator,
  type ListOperator,
  type PairOperator,
  type PatternOperator,
  type ValueOperator,
} from '../query/operators'
import type { Collection, Field } from '../schema/collection'
import { foldCase } from '../schema/field-types'

/** Orders two non-null canonical values of `field`. */
type Order = (a: NonNullable<Scalar>, b: NonNullable<Scalar>) => number

const FLAG: Readonly<Record<FlagOperator, (value: Scalar) => boolean>> = {
  _null: (value) => value === null,
  _nnull: (value) => value !== null,
  _empty: (value) => value === null || value === '',
  _nempty: (value) => value !== null && value !== '',
}

/** A pattern operator's rule: a null value matches no pattern, negated or not, as in SQL. */
function byPattern(operator: PatternOperator): (value: Scalar, term: Scalar) => boolean {
  const { anchor, insensitive, negate } = patternOf(operator)!
  const fold = insensitive ? foldCase : (text: string) => text
  return (value, term) => {
    if (value === null) return false
    const [text, needle] = [fold(String(value)), fold(String(term))]
    const found = anchor === 'contains' ? text.includes(needle) : anchor === 'starts' ? text.startsWith(needle) : text.endsWith(needle)
    return found !== negate
  }
}

/** Spatial conditions need the database; caller-access.ts refuses them in a `validation` rule. */
const notInMemory = (): boolean => {
  throw new Error('A validation rule cannot hold a spatial condition')
}

/** `_eq` and `_neq` take null (IS NULL, IS NOT NULL); every other comparison with null is false, as in SQL. */
const VALUE: Readonly<Record<ValueOperator, (value: Scalar, expected: Scalar, order: Order) => boolean>> = {
  _eq: (value, expected, order) => (expected === null ? value === null : value !== null && order(value, expected) === 0),
  _neq: (value, expected, order) => (expected === null ? value !== null : value !== null && order(value, expected) !== 0),
  _lt: (value, expected, order) => value !== null && expected !== null && order(value, expected) < 0,
  _lte: (value, expected, order) => value !== null && expected !== null && order(value, expected) <= 0,
  _gt: (value, expected, order) => value !== null && expected !== null && order(value, expected) > 0,
  _gte: (value, expected, order) => value !== null && expected !== null && order(value, expected) >= 0,
  _contains: byPattern('_contains'),
  _ncontains: byPattern('_ncontains'),
  _icontains: byPattern('_icontains'),
  _nicontains: byPattern('_nicontains'),
  _starts_with: byPattern('_starts_with'),
  _nstarts_with: byPattern('_nstarts_with'),
  _istarts_with: byPattern('_istarts_with'),
  _nistarts_with: byPattern('_nistarts_with'),
  _ends_with: byPattern('_ends_with'),
  _nends_with: byPattern('_nends_with'),
  _iends_with: byPattern('_iends_with'),
  _niends_with: byPattern('_niends_with'),
  _intersects: notInMemory,
  _nintersects: notInMemory,
  _intersects_bbox: notInMemory,
  _nintersects_bbox: notInMemory,
}

const listed = (value: Scalar, list: readonly Scalar[], order: Order): boolean =>
  value !== null && list.some((item) => item !== null && order(value, item) === 0)

const LIST: Readonly<Record<ListOperator, (value: Scalar, list: readonly Scalar[], order: Order) => boolean>> = {
  _in: listed,
  _nin: (value, list, order) => value !== null && !listed(value, list, order),
}

const within = (value: NonNullable<Scalar>, [low, high]: readonly [Scalar, Scalar], order: Order): boolean =>
  low !== null && high !== null && order(value, low) >= 0 && order(value, high) <= 0

const PAIR: Readonly<Record<PairOperator, (value: Scalar, pair: readonly [Scalar, Scalar], order: Order) => boolean>> = {
  _between: (value, pair, order) => value !== null && within(value, pair, order),
  _nbetween: (value, pair, order) => value !== null && !within(value, pair, order),
}

function matches(node: ComparisonNode, value: Scalar): boolean {
  const order: Order = (a, b) => node.field.spec.compare(a, b)
  if (hasArity(node, 'flag')) return FLAG[node.operator](value)
  if (hasArity(node, 'list')) return LIST[node.operator](value, node.value, order)
  if (hasArity(node, 'pair')) return PAIR[node.operator](value, node.value, order)
  if (hasArity(node, 'value')) return VALUE[node.operator](value, node.value, order)
  const unknown: never = node
  throw new Error(`Unhandled comparison ${JSON.stringify(unknown)}`)
}

const firstField = (node: FilterNode): string =>
  node.kind === 'and' || node.kind === 'or'
    ? node.children.length > 0
      ? firstField(node.children[0]!)
      : ''
    : node.kind === 'comparison'
      ? node.field.name
      : ''

/**
 * The conditions `values` breaks, one error each; an `_or` that fails is one error. Conditions on fields the
 * payload does not hold are not checked: an update only answers for what it changes. Rules are checked when
 * they are resolved to compare the collection's own fields only (see caller-access.ts).
 */
export function validationErrors(
  node: FilterNode,
  values: ReadonlyMap<Field, unknown>,
  collection: Collection,
  item?: number,
): FailedValidationError[] {
  const extras = { collection: collection.name, ...(item === undefined ? {} : { item }) }
  switch (node.kind) {
    case 'and':
      return node.children.flatMap((child) => validationErrors(child, values, collection, item))
    case 'or': {
      if (node.children.some((child) => validationErrors(child, values, collection, item).length === 0)) return []
      const field = firstField(node)
      return [new FailedValidationError(`Field "${field}" matches none of the allowed alternatives.`, { field, type: '_or', ...extras })]
    }
    case 'comparison': {
      if (!values.has(node.field) || matches(node, values.get(node.field) as Scalar)) return []
      const field = node.field.name
      return [
        new FailedValidationError(`Field "${field}" does not satisfy the "${node.operator}" rule.`, {
          field,
          type: node.operator,
          ...extras,
        }),
      ]
    }
    case 'function':
    case 'm2o':
    case 'o2m':
      throw new Error(`A validation rule cannot hold a "${node.kind}" condition`)
  }
}
