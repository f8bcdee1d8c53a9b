// The parsed filter: a tree of conditions on schema fields (never on names taken from a request), with values
// already in their canonical form, typed by what each operator takes.
import type { Collection, Field } from '../schema/collection'
import {
  takes,
  type FlagOperator,
  type ListOperator,
  type OperatorArity,
  type OperatorTaking,
  type PairOperator,
  type ValueOperator,
} from './operators'
import type { FunctionOperand } from './query'
import { keyComponents } from '../schema/item-key'
import type { PrimaryKey } from '../types'

/** A canonical scalar value (see schema/field-types.ts); `null` only where an operator allows it. */
export type Scalar = string | number | boolean | null

/** An operator with the value its arity takes. Flags are always `true`: the parser folds `false` into the opposite operator. */
export type OperatorValue =
  | { readonly operator: ValueOperator; readonly value: Scalar }
  | { readonly operator: ListOperator; readonly value: readonly Scalar[] }
  | { readonly operator: PairOperator; readonly value: readonly [Scalar, Scalar] }
  | { readonly operator: FlagOperator; readonly value: true }

/** A condition on a column. */
export type ComparisonNode = { readonly kind: 'comparison'; readonly field: Field } & OperatorValue

/** A condition on a computed integer (`filter[year(published_at)][_eq]=2024`). */
export type FunctionComparisonNode = { readonly kind: 'function'; readonly operand: FunctionOperand } & OperatorValue

export type FilterNode =
  | { readonly kind: 'and'; readonly children: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly children: readonly FilterNode[] }
  | ComparisonNode
  | FunctionComparisonNode
  /** The many-to-one `field` names an item of its related collection that matches `filter`. */
  | { readonly kind: 'm2o'; readonly field: Field; readonly related: Collection; readonly filter: FilterNode }
  /**
   * Some (or no) item of `related` whose `foreignKey` holds this item's `parentKey` matches `filter` (any item
   * when `filter` is null). `none` also matches parents without related items.
   */
  | {
      readonly kind: 'o2m'
      readonly quantifier: 'some' | 'none'
      readonly parentKey: Field
      readonly related: Collection
      readonly foreignKey: Field
      readonly filter: FilterNode | null
    }

/** A filter no row matches (an empty OR). */
export const NO_ROWS: FilterNode = Object.freeze({ kind: 'or', children: [] })

/** `a AND b`, where null means "no condition". */
export function both(a: FilterNode | null, b: FilterNode | null): FilterNode | null {
  if (a === null) return b
  if (b === null) return a
  return { kind: 'and', children: [a, b] }
}

/** `field IN (values)`. */
export function fieldIn(field: Field, values: readonly Scalar[]): ComparisonNode {
  return { kind: 'comparison', field, operator: '_in', value: values }
}

/**
 * The items with these keys (in the router's key form, see schema/item-key.ts): `key IN (…)`, or for a composite key
 * one `AND` of its components per key, joined by `OR`.
 */
export function keysIn(collection: Collection, keys: readonly PrimaryKey[]): FilterNode {
  if (collection.key.length === 1) return fieldIn(collection.primaryKey, keys)
  return {
    kind: 'or',
    children: keys.map((key) => {
      const components = keyComponents(collection, key)
      return {
        kind: 'and',
        children: collection.key.map((field, index) => ({
          kind: 'comparison',
          field,
          operator: '_eq',
          value: components[index] as Scalar,
        })),
      }
    }),
  }
}

/** Narrows a comparison (of a column or a function) to the operators of one arity, and so its value to what they take. */
export function hasArity<N extends OperatorValue, A extends OperatorArity>(
  node: N,
  arity: A,
): node is N & { readonly operator: OperatorTaking<A> } {
  return takes(node.operator, arity)
}
