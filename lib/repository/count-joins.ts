// Counts of related items as LEFT JOINs to one grouped subquery each, instead of a correlated subquery per row.
import type { Knex } from 'knex'
import type { FilterNode } from '../query/filter-node'
import type { FunctionOperand } from '../query/query'
import { compileFilter } from './compile-filter'
import type { Dialect, SqlFragment } from './dialects'

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
      if (operand.scope) compileFilter(grouped, operand.scope, this.dialect, inner)
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
