// Compiles FilterNode trees, function operands and search terms into knex SQL; every value is a bound parameter.
import type { Knex } from 'knex'
import { OPERATORS } from '../query/operators'
import type { DatePartOperand, FunctionOperand, Search } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import { compileComparison, type ComparisonTarget } from './compile-comparison'
import type { CountJoins } from './count-joins'
import type { Field } from '../schema/collection'
import type { Dialect, SqlFragment } from './dialects'
import { columnValue, toComparable, toStorage } from './storage'
import { planned } from './statement-plans'

type Where = Knex.QueryBuilder

const MATCH_NOTHING = '1 = 0'

function columnTarget(field: Field, dialect: Dialect): ComparisonTarget {
  return {
    lhs: columnValue(field, field.column, dialect),
    column: field.column,
    exact: field.spec.text ? dialect.exactText : null,
    dialect,
    array: field.type === 'array',
    // An array's comparisons take one element, bound as it is.
    store: (value) => (field.type === 'array' ? (value as Knex.Value) : toComparable(field, value, dialect)),
  }
}

function operandTarget(operand: SqlFragment, dialect: Dialect): ComparisonTarget {
  // Function values are integers, bound as they are.
  return { lhs: operand, column: null, exact: null, dialect, array: false, store: (value) => value as Knex.Value }
}

function where(qb: Where, { sql, bindings }: SqlFragment): void {
  qb.whereRaw(sql, bindings as Knex.RawBinding[])
}

export function compileDatePart(operand: DatePartOperand, table: string, dialect: Dialect): SqlFragment {
  return dialect.datePart(operand.part, operand.field.type, columnValue(operand.field, `${table}.${operand.field.column}`, dialect))
}

/** Starts a subquery on the same connection as `qb`. */
const subqueryOf = (qb: Where) => (): Knex.QueryBuilder => qb.client.queryBuilder()

/**
 * A function's value in the query on `table` (a date part, or a count of related items). A count is a join
 * to grouped counts when the query collects them (`joins`, see CountJoins), else a correlated subquery, which
 * names the parent's key through `table`, or its own columns would shadow it. Either counts only the related
 * rows in the operand's scope. `subquery` starts a query builder for it.
 */
export function compileOperand(
  operand: FunctionOperand,
  table: string,
  dialect: Dialect,
  subquery: () => Knex.QueryBuilder,
  joins?: CountJoins,
): SqlFragment {
  if (operand.kind === 'datePart') return compileDatePart(operand, table, dialect)
  if (joins?.table === table) return joins.add(operand)
  const alias = '__items_count'
  const counted = subquery()
    .from({ [alias]: operand.related.table })
    .count({ count: '*' })
    .whereRaw('?? = ??', [`${alias}.${operand.foreignKey.column}`, `${table}.${operand.parentKey.column}`])
  if (operand.scope) compileFilter(counted, operand.scope, dialect, alias)
  return { sql: '?', bindings: [counted] }
}

/**
 * Adds `node` to `qb` as one AND-ed condition; `table` is the table `qb` reads (for correlated subqueries).
 * `joins` collects the counts of `qb` itself, which the caller joins (see CountJoins).
 */
export function compileFilter(qb: Where, node: FilterNode, dialect: Dialect, table: string, joins?: CountJoins): void {
  switch (node.kind) {
    case 'comparison': {
      const target = columnTarget(node.field, dialect)
      where(qb, planned(node, target, compileComparison(node, target)))
      return
    }
    case 'function': {
      const target = operandTarget(compileOperand(node.operand, table, dialect, subqueryOf(qb), joins), dialect)
      where(qb, planned(node, target, compileComparison(node, target)))
      return
    }
    case 'and':
      qb.where((inner) => {
        for (const child of node.children) compileFilter(inner, child, dialect, table, joins)
      })
      return
    case 'or':
      if (node.children.length === 0) {
        qb.whereRaw(MATCH_NOTHING)
        return
      }
      qb.where((inner) => {
        for (const child of node.children) inner.orWhere((branch) => compileFilter(branch, child, dialect, table, joins))
      })
      return
    case 'm2o': {
      // A subquery rather than a join: the parent rows are never multiplied, so pages stay exact.
      const { related, filter } = node
      qb.whereIn(node.field.column, (sub) => {
        sub.select(related.primaryKey.column).from(related.table)
        compileFilter(sub, filter, dialect, related.table)
      })
      return
    }
    case 'o2m': {
      const { related, foreignKey, filter } = node
      // NOT IN over a list holding NULL matches nothing, so parents are listed only through non-null keys.
      const parents = (sub: Knex.QueryBuilder): void => {
        sub.select(foreignKey.column).from(related.table).whereNotNull(foreignKey.column)
        if (filter) compileFilter(sub, filter, dialect, related.table)
      }
      if (node.quantifier === 'some') qb.whereIn(node.parentKey.column, parents)
      else qb.whereNotIn(node.parentKey.column, parents)
      return
    }
    default: {
      const unreachable: never = node
      throw new Error(`Unhandled filter node ${JSON.stringify(unreachable)}`)
    }
  }
}

const SEARCH_PATTERN = OPERATORS._icontains.pattern

/** The fields `search` looks in, and how: text by case-insensitive substring, numbers and uuids by equality. */
function searchCondition(field: Field, term: string): ((qb: Where, dialect: Dialect) => void) | null {
  const spec = field.spec
  switch (spec.family) {
    case 'string':
      return (qb, dialect) => {
        const { sql, bindings } = dialect.pattern(field.column, term, SEARCH_PATTERN)
        qb.orWhereRaw(sql, bindings)
      }
    case 'number':
    case 'uuid': {
      const value = spec.fromText(term.trim())
      if (value === undefined) return null
      return (qb, dialect) => {
        qb.orWhere(field.column, '=', toStorage(field, value, dialect))
      }
    }
    default:
      return null
  }
}

/** Adds the search term as one AND-ed group of OR-ed conditions; no searchable field means no match. */
export function compileSearch(qb: Where, search: Search, dialect: Dialect): void {
  const conditions = search.fields.map((field) => searchCondition(field, search.term)).filter((c) => c !== null)
  if (conditions.length === 0) {
    qb.whereRaw(MATCH_NOTHING)
    return
  }
  qb.where((inner) => {
    for (const condition of conditions) condition(inner, dialect)
  })
}
