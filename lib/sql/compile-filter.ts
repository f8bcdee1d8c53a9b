// Compiles FilterNode trees, function operands and search terms into knex SQL, every value a bound parameter; and
// the counts of related items a query filters or sorts on, joined once (CountJoins).
import type { Knex } from 'knex'
import { OPERATORS } from '../query/operators'
import type { DatePartOperand, FunctionOperand, Search } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import { compileComparison, type ComparisonTarget } from './compile-comparison'
import type { Field } from '../schema/collection'
import type { Dialect, SqlFragment } from '../dialects'
import { columnValue, elementsOf, toComparable, toStorage } from '../dialects/storage'
import { type Geometry, geometryToWkb } from '../schema/geometry-value'
import type { ValueSlots } from './value-slots'

type Where = Knex.QueryBuilder

const MATCH_NOTHING = '1 = 0'

function columnTarget(field: Field, dialect: Dialect): ComparisonTarget {
  return {
    lhs: columnValue(field, field.column, dialect),
    column: field.column,
    exact: field.spec.text ? dialect.exactText : null,
    dialect,
    elements: elementsOf(field, dialect),
    // An array's or a SET's comparisons take one element, bound as it is.
    store: (value) =>
      field.spec.family === 'array'
        ? (value as Knex.Value)
        : field.type === 'geometry' && value !== null
          ? geometryToWkb(value as Geometry)
          : toComparable(field, value, dialect),
  }
}

function operandTarget(operand: SqlFragment, dialect: Dialect): ComparisonTarget {
  // Function values are integers, bound as they are.
  return { lhs: operand, column: null, exact: null, dialect, elements: null, store: (value) => value as Knex.Value }
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
  values: ValueSlots,
  joins?: CountJoins,
): SqlFragment {
  if (operand.kind === 'datePart') return compileDatePart(operand, table, dialect)
  if (joins?.table === table) return joins.add(operand)
  const alias = '__items_count'
  const counted = subquery()
    .from({ [alias]: operand.related.table })
    .count({ count: '*' })
    .whereRaw('?? = ??', [`${alias}.${operand.foreignKey.column}`, `${table}.${operand.parentKey.column}`])
  if (operand.scope) compileFilter(counted, operand.scope, dialect, alias, values)
  return { sql: '?', bindings: [counted] }
}

/**
 * Adds `node` to `qb` as one AND-ed condition; `table` is the table `qb` reads (for correlated subqueries).
 * `values` binds the comparisons' values (see value-slots.ts); `joins` collects the counts of `qb` itself, which
 * the caller joins (see CountJoins).
 */
export function compileFilter(qb: Where, node: FilterNode, dialect: Dialect, table: string, values: ValueSlots, joins?: CountJoins): void {
  switch (node.kind) {
    case 'comparison': {
      const target = columnTarget(node.field, dialect)
      where(qb, values.comparison(node, target, compileComparison(node, target)))
      return
    }
    case 'function': {
      const target = operandTarget(compileOperand(node.operand, table, dialect, subqueryOf(qb), values, joins), dialect)
      where(qb, values.comparison(node, target, compileComparison(node, target)))
      return
    }
    case 'and':
      qb.where((inner) => {
        for (const child of node.children) compileFilter(inner, child, dialect, table, values, joins)
      })
      return
    case 'or':
      if (node.children.length === 0) {
        qb.whereRaw(MATCH_NOTHING)
        return
      }
      qb.where((inner) => {
        for (const child of node.children) inner.orWhere((branch) => compileFilter(branch, child, dialect, table, values, joins))
      })
      return
    case 'm2o': {
      // A subquery rather than a join: the parent rows are never multiplied, so pages stay exact.
      const { related, filter } = node
      qb.whereIn(node.field.column, (sub) => {
        sub.select(related.primaryKey.column).from(related.table)
        compileFilter(sub, filter, dialect, related.table, values)
      })
      return
    }
    case 'o2m': {
      const { related, foreignKey, filter } = node
      // NOT IN over a list holding NULL matches nothing, so parents are listed only through non-null keys.
      const parents = (sub: Knex.QueryBuilder): void => {
        sub.select(foreignKey.column).from(related.table).whereNotNull(foreignKey.column)
        if (filter) compileFilter(sub, filter, dialect, related.table, values)
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

// Counts of related items as LEFT JOINs to one grouped subquery each, instead of a correlated subquery per row.

type CountOperand = Extract<FunctionOperand, { kind: 'count' }>

const KEY = '__items_fk'
const COUNT = '__items_n'

/**
 * The `count(<o2m>)` operands of one query on `table`. A correlated `(select count(*) ... where fk = parent.id)`
 * runs once per row of the parent table; without an index on the foreign key (SQLite and PostgreSQL do not
 * create one) that scans the related table per row: minutes on 200k rows, and on SQLite the event loop frozen
 * all along. `(select fk, count(*) from related group by fk)` reads the related table once; a parent with no
 * related rows finds no group, hence the coalesce to 0. The same counts, on every database.
 */
export class CountJoins {
  private readonly joins: Array<{ alias: string; counted: Knex.QueryBuilder; operand: CountOperand }> = []

  constructor(
    /** The table the query reads: only its own counts become joins; those of subqueries stay correlated. */
    readonly table: string,
    private readonly subquery: () => Knex.QueryBuilder,
    private readonly dialect: Dialect,
    /** How the counts' scopes bind their values (see value-slots.ts). */
    private readonly values: ValueSlots,
  ) {}

  /**
   * Registers the counts a filter on the table compares. knex compiles grouped conditions (`_and`, `_or`)
   * only when it builds the SQL, after the caller has applied the joins, so they are found up front.
   */
  collect(node: FilterNode | null): void {
    if (node === null) return
    if (node.kind === 'and' || node.kind === 'or') node.children.forEach((child) => this.collect(child))
    else if (node.kind === 'function' && node.operand.kind === 'count') this.add(node.operand)
  }

  /** The count's value in the query: the related rows in the operand's scope, per parent. */
  add(operand: CountOperand): SqlFragment {
    const existing = this.joins.find((join) => sameCount(join.operand, operand))
    const alias = existing?.alias ?? `__items_count_${this.joins.length + 1}`
    if (!existing) {
      const inner = `${alias}_rows`
      const grouped = this.subquery()
        .from({ [inner]: operand.related.table })
        .select({ [KEY]: `${inner}.${operand.foreignKey.column}` })
        .count({ [COUNT]: '*' })
        .groupBy(`${inner}.${operand.foreignKey.column}`)
      if (operand.scope) compileFilter(grouped, operand.scope, this.dialect, inner, this.values)
      this.joins.push({ alias, counted: grouped, operand })
    }
    return { sql: 'coalesce(??, 0)', bindings: [`${alias}.${COUNT}`] }
  }

  /** Adds the joins to the query; call after every operand has been compiled. */
  applyTo(qb: Knex.QueryBuilder): void {
    for (const { alias, counted, operand } of this.joins) {
      qb.leftJoin(counted.as(alias), `${alias}.${KEY}`, `${this.table}.${operand.parentKey.column}`)
    }
  }
}

/** Whether two operands count the same rows (`sort` and `filter` on one count parse to two operands). */
function sameCount(a: CountOperand, b: CountOperand): boolean {
  return a.related === b.related && a.foreignKey === b.foreignKey && a.parentKey === b.parentKey && a.scope === b.scope
}
