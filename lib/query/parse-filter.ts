// Parses ?filter (bracket or JSON form) into a FilterNode tree of schema fields and canonical values.
import { InvalidQueryError } from '../errors'
import type { Collection, Field, O2MRelation } from '../schema/collection'
import { elementSpec, FIELD_TYPES } from '../schema/field-types'
import type { SchemaView } from './schema-view'
import { both, NO_ROWS } from './filter-node'
import { resolveNow } from '../schema/temporal'
import { isFilterOperator, OPERATORS, patternOf, takes, type FilterOperator, type FlagOperator, type OperatorSpec } from './operators'
import { isFunctionCall, parseFunction } from './parse-function'
import { parseObjectParam } from './parse-object-param'
import type { FilterNode, FunctionComparisonNode, Scalar } from './filter-node'
import { ABSENT, isVariable, type Variables } from './variables'
import { isPlainObject } from '../is-plain-object'

export interface FilterLimits {
  /** The caller's view: the fields a filter may name, and the related rows a relational condition may match. */
  readonly schema: SchemaView
  /** Deepest nesting of `_and` / `_or` groups and relations. */
  readonly maxDepth: number
  /** Most values in one `_in` / `_nin` list. */
  readonly maxInListLength: number
  /** Most conditions in one request's filters, list values and group entries included (`maxFilterConditions`). */
  readonly maxConditions: number
  /** Most substring and prefix/suffix matches in one request's filters (`maxPatternConditions`). */
  readonly maxPatternConditions: number
  /** Resolves `$CURRENT_USER` and the other caller variables; without it they are unknown to the filter. */
  readonly variables?: Variables
  /**
   * What the request's filters have used so far. The parser of one request passes one budget to every filter it
   * parses (the main one, `deep` ones, a by-query write's), so the bounds hold per request, not per filter.
   * Without it each filter counts on its own (access rules, which the host writes).
   */
  readonly budget?: FilterBudget
}

/** Conditions counted against the request's bounds. */
export interface FilterBudget {
  conditions: number
  patterns: number
}

export const newFilterBudget = (): FilterBudget => ({ conditions: 0, patterns: 0 })

/** Where the parser stands: the limits, the collection whose fields the current level names, the clock. */
interface FilterState extends FilterLimits {
  readonly collection: Collection
  /** One clock reading per request, so every `$NOW` in a filter means the same instant. */
  readonly now: Date
  /** Conditions parsed so far, shared by every level (and by every filter of the request). */
  readonly counted: FilterBudget
}

/** Counts `count` more conditions, refusing the filter as soon as it passes the bound (before SQL exists). */
function countConditions(state: FilterState, count: number): void {
  state.counted.conditions += count
  if (state.counted.conditions > state.maxConditions) {
    throw new InvalidQueryError(`The filter has more than ${state.maxConditions} conditions (maxFilterConditions)`)
  }
}

/**
 * Pattern matches get a bound of their own: no index serves a substring match, so each one costs a pass over
 * every row it is tested on. On SQLite that pass runs on the event loop; elsewhere it holds a connection.
 */
function countPattern(state: FilterState): void {
  if (++state.counted.patterns > state.maxPatternConditions) {
    throw new InvalidQueryError(
      `The filter has more than ${state.maxPatternConditions} substring, prefix or suffix conditions (maxPatternConditions)`,
    )
  }
}

/** A flag operator given `false` means its opposite (`_null=false` is `_nnull`). */
const OPPOSITE: Readonly<Record<FlagOperator, FlagOperator>> = {
  _null: '_nnull',
  _nnull: '_null',
  _empty: '_nempty',
  _nempty: '_empty',
}

function describeValue(raw: unknown): string {
  return typeof raw === 'string' ? `"${raw}"` : (JSON.stringify(raw) ?? String(raw))
}

function coerce(field: Field, operator: FilterOperator, raw: unknown, state: FilterState): Scalar {
  if (raw === null || raw === 'null') return null
  if (typeof raw === 'object' && field.type !== 'geometry')
    throw new InvalidQueryError(`The "${operator}" filter on "${field.name}" needs a single value`)
  // An array's comparisons (`_contains`) take one of its elements.
  const spec = field.spec.family === 'array' ? elementSpec(field) : field.spec
  if (typeof raw === 'string' && spec.fromNow && raw.trim().toUpperCase().startsWith('$NOW')) {
    const now = resolveNow(raw, state.now)
    if (now === null) throw new InvalidQueryError(`${describeValue(raw)} is not a valid $NOW expression`)
    return spec.fromNow(now)
  }
  const value = typeof raw === 'string' ? spec.fromText(raw) : spec.fromJson(raw)
  if (value === undefined) {
    throw new InvalidQueryError(`${describeValue(raw)} is not a valid ${field.elementType ?? field.type} value for field "${field.name}"`)
  }
  // A value outside an enum matches no row; PostgreSQL would refuse to compare its enum type with it.
  if (field.enum !== undefined && !field.enum.includes(value as string)) {
    throw new InvalidQueryError(`${describeValue(raw)} is not one of the values of field "${field.name}" (${field.enum.join(', ')})`)
  }
  return value as Scalar
}

function parseFlag(name: string, operator: FilterOperator, raw: unknown): boolean {
  if (raw === true || raw === 1 || raw === '' || raw === 'true' || raw === '1') return true
  if (raw === false || raw === 0 || raw === 'false' || raw === '0') return false
  throw new InvalidQueryError(`The "${operator}" filter on "${name}" takes true or false`)
}

function toList(field: Field, operator: FilterOperator, raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw
  if (typeof raw === 'string') return raw === '' ? [] : raw.split(',')
  if (typeof raw === 'number') return [raw]
  throw new InvalidQueryError(`The "${operator}" filter on "${field.name}" needs a list of values`)
}

/** A caller variable's value, ABSENT when the caller does not have it; any other value as it is. */
function resolveVariable(value: unknown, state: FilterState): unknown {
  if (!isVariable(value)) return value
  if (!state.variables) throw new InvalidQueryError(`Unknown variable "${value}"`)
  return state.variables(value)
}

function comparison(field: Field, operator: FilterOperator, given: unknown, state: FilterState): FilterNode {
  countConditions(state, 1)
  const spec: OperatorSpec = OPERATORS[operator]
  if (!spec.on.includes(field.spec.family)) {
    throw new InvalidQueryError(`"${field.type}" field type does not contain the "${operator}" filter operator (field "${field.name}")`)
  }
  // An array's `_contains` names an element, which is no text match.
  if (spec.pattern && field.spec.family !== 'array') countPattern(state)
  // PostgreSQL has no LIKE for its enum types; an enum is matched by its values (`_in`) on every database.
  if (field.enum !== undefined && field.spec.family !== 'array' && patternOf(operator)) {
    throw new InvalidQueryError(`The "${operator}" filter does not apply to field "${field.name}", which takes listed values; use "_in"`)
  }
  // Variables are resolved per list item, once a comma-separated list is split. A comparison with an absent
  // one matches no row, as a comparison with SQL NULL would.
  if (takes(operator, 'flag')) {
    const raw = resolveVariable(given, state)
    if (raw === ABSENT) return NO_ROWS
    return { kind: 'comparison', field, operator: parseFlag(field.name, operator, raw) ? operator : OPPOSITE[operator], value: true }
  }
  if (takes(operator, 'value')) {
    const raw = resolveVariable(given, state)
    if (raw === ABSENT) return NO_ROWS
    const value = coerce(field, operator, raw, state)
    if (value === null && operator !== '_eq' && operator !== '_neq') {
      throw new InvalidQueryError(`The "${operator}" filter on "${field.name}" needs a value; use "_null" to match null`)
    }
    if (value === '' && operator === '_eq') {
      throw new InvalidQueryError(`The "_eq" filter on "${field.name}" needs a value; use "_empty" to match empty strings`)
    }
    return { kind: 'comparison', field, operator, value }
  }
  const list = toList(field, operator, given).map((item) => resolveVariable(item, state))
  if (list.includes(ABSENT)) return NO_ROWS
  if (takes(operator, 'pair') && list.length !== 2) {
    throw new InvalidQueryError(`The "${operator}" filter on "${field.name}" needs exactly two values`)
  }
  if (list.length > state.maxInListLength) {
    throw new InvalidQueryError(`The "${operator}" filter on "${field.name}" has more than ${state.maxInListLength} values`)
  }
  countConditions(state, Math.max(list.length - 1, 0))
  const values = list.map((item) => coerce(field, operator, item, state))
  if (values.includes(null)) {
    throw new InvalidQueryError(`The "${operator}" filter on "${field.name}" cannot contain null; use "_null"`)
  }
  if (takes(operator, 'pair')) return { kind: 'comparison', field, operator, value: [values[0]!, values[1]!] }
  if (takes(operator, 'list')) return { kind: 'comparison', field, operator, value: values }
  throw new Error(`Operator "${operator}" takes no known arity`)
}

/**
 * Conditions on a function's value, an integer: checked and coerced as an integer field named after the call
 * would be, then bound to the computed operand.
 */
function parseFunctionConditions(call: string, raw: unknown, state: FilterState): FilterNode[] {
  const operand = parseFunction(call, state.collection, state.schema)
  const asInteger: Field = {
    ...state.collection.primaryKey,
    name: call,
    type: 'integer',
    spec: FIELD_TYPES.integer,
    primaryKey: false,
    nullable: true,
  }
  return parseFieldConditions(asInteger, raw, state, 0).map((node): FunctionComparisonNode => {
    if (node.kind !== 'comparison') throw new InvalidQueryError(`Only operators can follow "${call}"`)
    // The same operator and value, now about the operand: each pair was checked together above.
    return { kind: 'function', operand, operator: node.operator, value: node.value } as FunctionComparisonNode
  })
}

function relatedState(state: FilterState, collection: Collection): FilterState {
  return { ...state, collection }
}

/**
 * Conditions on one field. On a many-to-one, operators compare the key itself and any other key (a field of the
 * related collection, `_and`, `_or`) is a condition on the related item.
 */
function parseFieldConditions(field: Field, raw: unknown, state: FilterState, depth: number): FilterNode[] {
  if (!isPlainObject(raw)) return [comparison(field, '_eq', raw, state)]
  const entries = Object.entries(raw)
  if (entries.length === 0) throw new InvalidQueryError(`The filter on "${field.name}" names no operator`)
  const nodes: FilterNode[] = []
  const through: Record<string, unknown> = {}
  for (const [key, value] of entries) {
    if (isFilterOperator(key)) nodes.push(comparison(field, key, value, state))
    else if (field.references !== undefined && (!key.startsWith('_') || key === '_and' || key === '_or')) through[key] = value
    else throw new InvalidQueryError(`Unknown filter operator "${key}" on field "${field.name}"`)
  }
  if (Object.keys(through).length > 0) {
    const related = relatedState(state, field.references!)
    const filter = both(state.schema.scope(related.collection), parseGroup(through, related, depth + 1))!
    nodes.push({ kind: 'm2o', field, related: related.collection, filter })
  }
  return nodes
}

/**
 * Conditions through a one-to-many: `_some` / `_none` explicitly, `_null` / `_nnull` for "no" / "some" related
 * item at all, and any other key means "some related item".
 */
function parseRelationConditions(relation: O2MRelation, raw: unknown, state: FilterState, depth: number): FilterNode[] {
  if (!isPlainObject(raw) || Object.keys(raw).length === 0) {
    throw new InvalidQueryError(`The filter on "${relation.name}" must be an object of conditions on its related items`)
  }
  const related = relatedState(state, relation.related)
  const common = {
    kind: 'o2m' as const,
    parentKey: state.collection.primaryKey,
    related: related.collection,
    foreignKey: relation.foreignKey,
  }
  // Related rows the caller cannot read never make a parent match, nor keep one from matching `_none`.
  const scope = state.schema.scope(related.collection)
  const nodes: FilterNode[] = []
  const implicit: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(raw)) {
    if (key === '_some' || key === '_none') {
      if (!isPlainObject(value)) throw new InvalidQueryError(`"${key}" on "${relation.name}" must be an object of conditions`)
      const filter = Object.keys(value).length === 0 ? null : parseGroup(value, related, depth + 1)
      nodes.push({ ...common, quantifier: key === '_some' ? 'some' : 'none', filter: both(scope, filter) } as const)
    } else if (key === '_null' || key === '_nnull') {
      // As in Directus: a one-to-many is "null" when the parent has no related rows (that the caller may read).
      const raw = resolveVariable(value, state)
      if (raw === ABSENT) nodes.push(NO_ROWS)
      else
        nodes.push({
          ...common,
          quantifier: parseFlag(relation.name, key, raw) === (key === '_null') ? 'none' : 'some',
          filter: scope,
        } as const)
    } else if (isFilterOperator(key)) {
      throw new InvalidQueryError(`The "${key}" operator does not apply to the one-to-many field "${relation.name}"`)
    } else {
      implicit[key] = value
    }
  }
  if (Object.keys(implicit).length > 0)
    nodes.push({ ...common, quantifier: 'some', filter: both(scope, parseGroup(implicit, related, depth + 1)) } as const)
  return nodes
}

/** `_and` / `_or` take arrays; qs may hand an object with index keys when the indices are sparse. */
function toGroupItems(key: string, raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw
  if (isPlainObject(raw) && Object.keys(raw).every((index) => /^\d+$/.test(index))) return Object.values(raw)
  throw new InvalidQueryError(`"${key}" must be an array of filter objects`)
}

function parseGroup(raw: Record<string, unknown>, state: FilterState, depth: number): FilterNode {
  if (depth > state.maxDepth) {
    throw new InvalidQueryError(`The filter is nested deeper than ${state.maxDepth} levels`)
  }
  const children: FilterNode[] = []
  for (const [key, value] of Object.entries(raw)) {
    if (key === '_and' || key === '_or') {
      const items = toGroupItems(key, value).map((item) => {
        countConditions(state, 1)
        if (!isPlainObject(item)) throw new InvalidQueryError(`Every entry of "${key}" must be a filter object`)
        return parseGroup(item, state, depth + 1)
      })
      children.push({ kind: key === '_and' ? 'and' : 'or', children: items })
    } else if (isFilterOperator(key)) {
      throw new InvalidQueryError(`The "${key}" operator must follow a field name`)
    } else if (isFunctionCall(key)) {
      children.push(...parseFunctionConditions(key, value, state))
    } else {
      const member = state.schema.member(state.collection, key)
      if (!member) {
        const anyItem = key.includes(':') ? state.schema.member(state.collection, key.slice(0, key.indexOf(':'))) : undefined
        if (anyItem?.kind === 'field' && anyItem.referencesAny !== undefined) {
          throw new InvalidQueryError(
            `Filters cannot go through many-to-any field "${anyItem.name}" ("${key}"); filter on "${anyItem.name}" and "${anyItem.referencesAny.collectionField.name}" as values`,
          )
        }
        throw new InvalidQueryError(`Field "${key}" does not exist in collection "${state.collection.name}"`)
      }
      children.push(
        ...(member.kind === 'o2m'
          ? parseRelationConditions(member, value, state, depth)
          : parseFieldConditions(member, value, state, depth)),
      )
    }
  }
  return { kind: 'and', children }
}

/** Flattens single-child groups and nested groups of the same kind; an empty filter is null. */
function simplify(node: FilterNode): FilterNode | null {
  if (node.kind !== 'and' && node.kind !== 'or') return node
  const children: FilterNode[] = []
  for (const child of node.children) {
    const simple = simplify(child)
    if (simple === null) continue
    if (simple.kind === node.kind) for (const grandchild of simple.children) children.push(grandchild)
    else children.push(simple)
  }
  if (children.length === 0) return node.kind === 'and' ? null : { kind: 'or', children: [] }
  return children.length === 1 ? children[0]! : { kind: node.kind, children }
}

/** Parses a filter given as an object (bracket form) or a JSON string. Returns null when there is none. */
export function parseFilter(raw: unknown, collection: Collection, limits: FilterLimits, now: Date): FilterNode | null {
  const tree = parseObjectParam(raw, 'filter')
  if (tree === null) return null
  // The top-level object is not a group: depth counts `_and` / `_or` nesting only.
  return simplify(parseGroup(tree, { ...limits, collection, now, counted: limits.budget ?? newFilterBudget() }, 0))
}
