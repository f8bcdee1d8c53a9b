// Checks a payload against an access rule's `validation` filter, in memory, with the operators' SQL meaning:
// a comparison with null fails, except the ones about null or emptiness.
import { FailedValidationError } from '../errors'
import { OPERATORS } from '../query/operators'
import type { FilterNode, Scalar } from '../query/query'
import type { Collection, Field } from '../schema/collection'
import { foldCase } from '../schema/field-types'

type Comparison = Extract<FilterNode, { kind: 'comparison' }>

/** Orders two canonical values of `field` (numbers, or strings for bigInteger, decimal, temporal and text). */
function compare(field: Field, a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b
  if (field.type === 'bigInteger') return Math.sign(Number(BigInt(String(a)) - BigInt(String(b))))
  if (field.type === 'decimal') return compareDecimals(String(a), String(b))
  const [x, y] = [String(a), String(b)]
  return x < y ? -1 : x > y ? 1 : 0
}

/** Compares canonical decimal strings exactly, as integers at a common scale. */
function compareDecimals(a: string, b: string): number {
  const scale = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0)
  const scaled = (text: string): bigint => {
    const [whole, fraction = ''] = text.split('.')
    return BigInt(whole + fraction.padEnd(scale, '0'))
  }
  const difference = scaled(a) - scaled(b)
  return difference < 0n ? -1 : difference > 0n ? 1 : 0
}

function matchesPattern(node: Comparison, value: string): boolean {
  const pattern = OPERATORS[node.operator].pattern!
  const fold = pattern.insensitive ? foldCase : (text: string) => text
  const [text, term] = [fold(value), fold(String(node.value))]
  const found =
    pattern.anchor === 'contains' ? text.includes(term) : pattern.anchor === 'starts' ? text.startsWith(term) : text.endsWith(term)
  return found !== pattern.negate
}

function matches(node: Comparison, value: Scalar): boolean {
  const { field, operator } = node
  const list = node.value as readonly Scalar[]
  switch (operator) {
    case '_null':
      return value === null
    case '_nnull':
      return value !== null
    case '_empty':
      return value === null || value === ''
    case '_nempty':
      return value !== null && value !== ''
    case '_eq':
      return node.value === null ? value === null : value !== null && compare(field, value, node.value as Scalar) === 0
    case '_neq':
      return node.value === null ? value !== null : value !== null && compare(field, value, node.value as Scalar) !== 0
    default:
      break
  }
  if (value === null) return false
  switch (operator) {
    case '_lt':
      return compare(field, value, node.value as Scalar) < 0
    case '_lte':
      return compare(field, value, node.value as Scalar) <= 0
    case '_gt':
      return compare(field, value, node.value as Scalar) > 0
    case '_gte':
      return compare(field, value, node.value as Scalar) >= 0
    case '_in':
      return list.some((item) => compare(field, value, item) === 0)
    case '_nin':
      return !list.some((item) => compare(field, value, item) === 0)
    case '_between':
      return compare(field, value, list[0]) >= 0 && compare(field, value, list[1]) <= 0
    case '_nbetween':
      return !(compare(field, value, list[0]) >= 0 && compare(field, value, list[1]) <= 0)
    default:
      return matchesPattern(node, String(value))
  }
}

const firstField = (node: FilterNode): string =>
  node.kind === 'and' || node.kind === 'or'
    ? node.children.length > 0
      ? firstField(node.children[0])
      : ''
    : node.kind === 'comparison'
      ? node.field.name
      : ''

/**
 * The conditions `values` breaks, one error each; an `_or` that fails is one error. Conditions on fields the
 * payload does not hold are not checked: an update only answers for what it changes.
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
    default:
      // Rules are checked at resolution to compare own fields only.
      throw new Error(`Unhandled validation node ${node.kind}`)
  }
}
