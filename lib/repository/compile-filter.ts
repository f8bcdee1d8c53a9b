// Compiles FilterNode trees, function operands and search terms into knex SQL; every value is a bound parameter.
import type { Knex } from 'knex'
import { OPERATORS, type FilterOperator } from '../query/operators'
import type { DatePartOperand, FilterNode, FunctionOperand, Scalar, Search } from '../query/query'
import type { Field } from '../schema/collection'
import { FIELD_TYPES } from '../schema/field-types'
import type { Dialect, SqlFragment } from './dialects'
import { toStorage } from './storage'

type Where = Knex.QueryBuilder

const MATCH_NOTHING = '1 = 0'
const EXACT_TEXT_OPERATORS: ReadonlySet<FilterOperator> = new Set<FilterOperator>(['_eq', '_neq', '_in', '_nin', '_empty', '_nempty'])

function compileComparison(qb: Where, node: Extract<FilterNode, { kind: 'comparison' }>, dialect: Dialect): void {
  const { field, operator } = node
  const column = field.column
  const one = (): Knex.Value => toStorage(field, node.value, dialect)
  const many = (): Knex.Value[] => (node.value as readonly Scalar[]).map((value) => toStorage(field, value, dialect))
  const pattern = OPERATORS[operator].pattern
  if (pattern) {
    const { sql, bindings } = dialect.pattern(column, String(node.value), pattern)
    qb.whereRaw(sql, bindings)
    return
  }
  const exact = FIELD_TYPES[field.type].family === 'string' ? dialect.exactText : null
  if (exact !== null && node.value !== null && EXACT_TEXT_OPERATORS.has(operator)) {
    compileExactText(qb, node, exact, one, many)
    return
  }
  switch (operator) {
    case '_eq':
      if (node.value === null) qb.whereNull(column)
      else qb.where(column, '=', one())
      return
    case '_neq':
      if (node.value === null) qb.whereNotNull(column)
      else qb.where(column, '<>', one())
      return
    case '_lt':
      qb.where(column, '<', one())
      return
    case '_lte':
      qb.where(column, '<=', one())
      return
    case '_gt':
      qb.where(column, '>', one())
      return
    case '_gte':
      qb.where(column, '>=', one())
      return
    case '_in':
      qb.whereIn(column, many())
      return
    case '_nin':
      qb.whereNotIn(column, many())
      return
    case '_null':
      qb.whereNull(column)
      return
    case '_nnull':
      qb.whereNotNull(column)
      return
    case '_empty':
      qb.where((inner) => inner.whereNull(column).orWhere(column, '=', ''))
      return
    case '_nempty':
      qb.whereNotNull(column).where(column, '<>', '')
      return
    case '_between':
      qb.whereBetween(column, many() as [Knex.Value, Knex.Value])
      return
    case '_nbetween':
      qb.whereNotBetween(column, many() as [Knex.Value, Knex.Value])
      return
    default:
      // Pattern operators returned above; a new operator must be handled here.
      throw new Error(`Unhandled filter operator ${operator}`)
  }
}

/**
 * Text equality where the collation would ignore case, accents or trailing spaces. The plain comparison stays beside the exact
 * one so that an index on the column can still narrow the rows first.
 */
function compileExactText(
  qb: Where,
  node: Extract<FilterNode, { kind: 'comparison' }>,
  exact: string,
  one: () => Knex.Value,
  many: () => Knex.Value[],
): void {
  const column = node.field.column
  switch (node.operator) {
    case '_eq':
      qb.where(column, '=', one()).whereRaw(`?? = ${exact}`, [column, one()])
      return
    case '_neq':
      qb.whereRaw(`?? <> ${exact}`, [column, one()])
      return
    case '_in': {
      const values = many()
      if (values.length === 0) qb.whereRaw(MATCH_NOTHING)
      else qb.whereIn(column, values).whereRaw(`?? IN (${values.map(() => exact).join(', ')})`, [column, ...values])
      return
    }
    case '_nin': {
      const values = many()
      if (values.length > 0) qb.whereRaw(`?? NOT IN (${values.map(() => exact).join(', ')})`, [column, ...values])
      return
    }
    case '_empty':
      qb.where((inner) => inner.whereNull(column).orWhereRaw(`?? = ${exact}`, [column, '']))
      return
    case '_nempty':
      qb.whereRaw(`?? <> ${exact}`, [column, ''])
      return
    default:
      throw new Error(`Unhandled exact text operator ${node.operator}`)
  }
}

export function compileDatePart(operand: DatePartOperand, table: string, dialect: Dialect): SqlFragment {
  return dialect.datePart(operand.part, operand.field.type, { sql: '??', bindings: [`${table}.${operand.field.column}`] })
}

/** Starts a subquery on the same connection as `qb`. */
const subqueryOf = (qb: Where) => (): Knex.QueryBuilder => qb.client.queryBuilder()

/**
 * A function's value in the query on `table` (a date part, or a count of related items). A count is a
 * correlated subquery, so it names the parent's key through `table`, or its own columns would shadow it; it
 * counts only the related rows in the operand's scope. `subquery` starts a query builder for it.
 */
export function compileOperand(operand: FunctionOperand, table: string, dialect: Dialect, subquery: () => Knex.QueryBuilder): SqlFragment {
  if (operand.kind === 'datePart') return compileDatePart(operand, table, dialect)
  const alias = '__items_count'
  const counted = subquery()
    .from({ [alias]: operand.related.table })
    .count({ count: '*' })
    .whereRaw('?? = ??', [`${alias}.${operand.foreignKey.column}`, `${table}.${operand.parentKey.column}`])
  if (operand.scope) compileFilter(counted, operand.scope, dialect, alias)
  return { sql: '?', bindings: [counted] }
}

/** A function's value compared as an integer. */
function compileFunction(qb: Where, node: Extract<FilterNode, { kind: 'function' }>, table: string, dialect: Dialect): void {
  const { sql, bindings } = compileOperand(node.operand, table, dialect, subqueryOf(qb))
  const values = Array.isArray(node.value) ? (node.value as number[]) : [node.value as number]
  const list = values.map(() => '?').join(', ')
  const raw = (template: string, extra: readonly unknown[] = values): void => {
    qb.whereRaw(template, [...bindings, ...extra] as Knex.RawBinding[])
  }
  switch (node.operator) {
    case '_eq':
      return node.value === null ? raw(`${sql} is null`, []) : raw(`${sql} = ?`)
    case '_neq':
      return node.value === null ? raw(`${sql} is not null`, []) : raw(`${sql} <> ?`)
    case '_lt':
      return raw(`${sql} < ?`)
    case '_lte':
      return raw(`${sql} <= ?`)
    case '_gt':
      return raw(`${sql} > ?`)
    case '_gte':
      return raw(`${sql} >= ?`)
    case '_in':
      if (values.length === 0) qb.whereRaw(MATCH_NOTHING)
      else raw(`${sql} in (${list})`)
      return
    case '_nin':
      return values.length === 0 ? undefined : raw(`${sql} not in (${list})`)
    case '_between':
      return raw(`${sql} between ? and ?`)
    case '_nbetween':
      return raw(`${sql} not between ? and ?`)
    case '_null':
      return raw(`${sql} is null`, [])
    case '_nnull':
      return raw(`${sql} is not null`, [])
    default:
      throw new Error(`Unhandled function operator ${node.operator}`)
  }
}

/** Adds `node` to `qb` as one AND-ed condition; `table` is the table `qb` reads (for correlated subqueries). */
export function compileFilter(qb: Where, node: FilterNode, dialect: Dialect, table: string): void {
  switch (node.kind) {
    case 'comparison':
      compileComparison(qb, node, dialect)
      return
    case 'function':
      compileFunction(qb, node, table, dialect)
      return
    case 'and':
      qb.where((inner) => {
        for (const child of node.children) compileFilter(inner, child, dialect, table)
      })
      return
    case 'or':
      if (node.children.length === 0) {
        qb.whereRaw(MATCH_NOTHING)
        return
      }
      qb.where((inner) => {
        for (const child of node.children) inner.orWhere((branch) => compileFilter(branch, child, dialect, table))
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

const SEARCH_PATTERN = OPERATORS._icontains.pattern!

/** The fields `search` looks in, and how: text by case-insensitive substring, numbers and uuids by equality. */
function searchCondition(field: Field, term: string): ((qb: Where, dialect: Dialect) => void) | null {
  const spec = FIELD_TYPES[field.type]
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
