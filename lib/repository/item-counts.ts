// The counts a list's `meta` asks for: rows within the caller's scope, rows the filter and search match, and the
// planner's estimate where the dialect asks one.
import type { Knex } from 'knex'
import type { Search } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import type { Collection } from '../schema/collection'
import type { Dialect } from '../dialects'
import type { ReadStatements } from '../sql/read-statements'
import { OWN_VALUES } from '../sql/value-slots'

export class ItemCounts {
  constructor(
    private readonly statements: ReadStatements,
    private readonly dialect: Dialect,
  ) {}

  /**
   * The rows within `scope` as the planner estimates them, where the dialect asks one; else counted. The
   * estimate covers the same rows as `total_count` (the caller's scope applies), so it tells no more than that.
   */
  async estimate(db: Knex, collection: Collection, scope: FilterNode | null): Promise<number> {
    const estimate = this.dialect.estimateRows
    if (estimate === null) return this.count(db, collection, scope, null)
    const qb = db(collection.table).select(db.raw('1'))
    const joins = this.statements.countJoins(collection, OWN_VALUES)
    this.statements.where(qb, collection, { filter: scope, search: null }, OWN_VALUES, joins)
    joins.applyTo(qb)
    return (await estimate(db, qb)) ?? this.count(db, collection, scope, null)
  }

  async count(db: Knex, collection: Collection, filter: FilterNode | null, search: Search | null): Promise<number> {
    const qb = db(collection.table).count({ count: '*' })
    const joins = this.statements.countJoins(collection, OWN_VALUES)
    this.statements.where(qb, collection, { filter, search }, OWN_VALUES, joins)
    joins.applyTo(qb)
    const [row] = await qb
    return Number(row!.count)
  }
}
