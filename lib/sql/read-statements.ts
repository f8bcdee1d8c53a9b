// Compiles the statements of a read: a page from its ReadPlan (plan/read-plan.ts), with the statement that joins
// its many-to-one items around it and its folded key lists; the rows of many parents' lists, plain or numbered
// per parent; items by key; a grouped aggregate; an export's chunk. Each compile is handed how to bind the
// request's values (value-slots.ts), so statement-templates.ts can record it once as a template.
import type { Knex } from 'knex'
import type { AggregateQuery, FieldNode, Selection, SortNode } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import type { Collection, Field } from '../schema/collection'
import type { Dialect, SqlFragment } from '../dialects'
import type { Db } from '../execute/db'
import { aggregateStatement } from './aggregate-items'
import { compileFilter, compileOperand, compileSearch, CountJoins } from './compile-filter'
import { columnValue, selectColumn } from '../dialects/storage'
import { compileAfter, keyColumns, type SortTerm } from './keyset'
import type { Around, Compile } from './statement-templates'
import type { ValueSlots } from './value-slots'
import { joinKey, mayBeNull, orderColumn, readFields, type FoldedList, type ReadPlan } from '../plan/read-plan'

/** The window-function column that numbers each parent's related rows. */
const RANK = '__items_rank'

/** The page, as the statement that joins its many-to-one items names it (see `aroundPage`). */
const PAGE = '__items_page'
/** A joined many-to-one item's table, and its columns, apart from the page's own. */
const joinAlias = (relation: number): string => `__items_m2o_${relation}`
export const joinedColumn = (relation: number, field: Field): string => `${joinAlias(relation)}_${field.name}`

/** A folded key list's column in the item's statement, and its derived table's name and key column. */
export const foldedColumn = (list: number): string => `__items_keys_${list}`
const FOLDED = '__items_keys'
const FOLDED_KEY = '__items_key'

/** The result column of a computed field, apart from every column name. */
export const functionColumn = (output: string): string => `__items_fn_${output}`

/**
 * What a sort node orders by: the column, or for `author.name` a correlated subquery per many-to-one hop
 * (`(select s1.name from authors s1 where s1.id = articles.author)`). Subqueries, unlike joins, never repeat
 * rows; a missing related item, or one outside the hop's scope, reads as NULL and sorts with the NULLs.
 */
function sortExpression(
  knex: Knex,
  collection: Collection,
  node: SortNode,
  dialect: Dialect,
  values: ValueSlots,
  joins?: CountJoins,
): SqlFragment {
  if (node.operand) return compileOperand(node.operand, collection.table, dialect, () => knex.queryBuilder(), values, joins)
  const first = node.path[0]?.field ?? node.field
  let value: SqlFragment = columnValue(first, `${collection.table}.${first.column}`, dialect)
  node.path.forEach(({ related, scope }, index) => {
    const alias = `__items_sort_${index + 1}`
    const next = node.path[index + 1]?.field ?? node.field
    const read = columnValue(next, `${alias}.${next.column}`, dialect)
    const hop = knex
      .queryBuilder()
      .from({ [alias]: related.table })
      .select(knex.raw(read.sql, read.bindings as Knex.RawBinding[]))
      .whereRaw(`?? = ${value.sql}`, [`${alias}.${related.primaryKey.column}`, ...value.bindings])
    if (scope) compileFilter(hop, scope, dialect, alias, values)
    value = { sql: '?', bindings: [hop] }
  })
  return value
}

/** `(a = ? AND b = ?) OR …` for the components of composite keys bound one after another. */
function compositeKeysIn(collection: Collection, bound: readonly unknown[]): [string, Knex.RawBinding[]] {
  const { key } = collection
  const one = `(${key.map(() => '?? = ?').join(' and ')})`
  const bindings: Knex.RawBinding[] = []
  for (let start = 0; start < bound.length; start += key.length) {
    key.forEach((field, index) => bindings.push(`${collection.table}.${field.column}`, bound[start + index] as Knex.Value))
  }
  return [`(${Array.from({ length: bound.length / key.length }, () => one).join(' or ')})`, bindings]
}

export class ReadStatements {
  constructor(
    private readonly knex: Knex,
    private readonly dialect: Dialect,
  ) {}

  /** The page's statement, without LIMIT and OFFSET (the plan's `page`, which statement-templates.ts adds). */
  page(db: Db, plan: ReadPlan): Compile {
    const { collection, fields, selection, keyed, joined, folded, links, bound } = plan
    return (values) => {
      const joins = this.countJoins(collection, values)
      const qb = db(collection.table).select(this.columns(collection, fields, values, undefined, joins))
      const slots = values.list(bound)
      let next = 0
      folded.forEach((list, index) => {
        qb.select(this.foldedList(index, list, slots.slice(next, next + list.bound.length), values))
        next += list.bound.length
      })
      this.where(qb, collection, selection, values, joins)
      if (keyed || selection.after || links !== null) {
        const terms = this.sortTerms(collection, selection, values, joins)
        if (keyed) qb.select(keyColumns(this.knex, terms, this.dialect))
        if (selection.after) compileAfter(qb, terms, selection.after, this.dialect)
        if (links !== null) {
          joined.forEach((node, index) => {
            const copy = joinKey(index)
            if (links.joinKeys[index] === copy) qb.select(this.knex.raw('?? as ??', [`${collection.table}.${node.field.column}`, copy]))
          })
          terms.forEach(({ expression }, index) => {
            const copy = orderColumn(index)
            if (links.orderColumns[index] === copy) qb.select(this.knex.raw(`${expression.sql} as ??`, [...expression.bindings, copy]))
          })
        }
      }
      const order = this.orderTerms(collection, selection, values, joins)
      joins.applyTo(qb)
      if (order.sql) qb.orderByRaw(order.sql, order.bindings)
      return qb
    }
  }

  /** The statement run around the paged one, joining its many-to-one items; null when the plan joins none. */
  around(plan: ReadPlan): Around | null {
    return plan.links === null ? null : (paged) => this.aroundPage(paged, plan)
  }

  /**
   * The statement that reads a page with its many-to-one items: the page as a derived table, so that its LIMIT
   * applies before the join and a page of 25 joins 25 rows whatever the table's size; each relation LEFT JOINed
   * by its key under a name of its own; the page's order again, from the sort keys the page selected.
   */
  private aroundPage(paged: Knex.QueryBuilder | string, { selection, joined, links }: ReadPlan): Knex.QueryBuilder {
    const source = typeof paged === 'string' ? this.knex.raw(`(${paged}) as ??`, [PAGE]) : paged.as(PAGE)
    const outer = this.knex
      .queryBuilder()
      .select(this.knex.raw('??.*', [PAGE]))
      .from(source)
    joined.forEach((node, index) => {
      const alias = joinAlias(index)
      const { related } = node
      const columns = [...readFields(related, node.children)].map((field) =>
        selectColumn(this.knex, field, this.dialect, { table: alias, output: joinedColumn(index, field) }),
      )
      outer
        .select(columns)
        .leftJoin({ [alias]: related.table }, `${alias}.${related.primaryKey.column}`, `${PAGE}.${links!.joinKeys[index]}`)
    })
    const order = selection.sort.map((node, index) =>
      this.dialect.orderBy(
        { sql: '??', bindings: [`${PAGE}.${links!.orderColumns[index]}`] },
        node.direction,
        node.field.spec.text,
        mayBeNull(node),
      ),
    )
    return outer.orderByRaw(
      order.map((term) => term.sql).join(', '),
      order.flatMap((term) => term.bindings),
    )
  }

  /**
   * A folded key list as one column: its keys from a derived table of the related rows, each numbered in the
   * list's order, then aggregated into `[rank, key]` pairs (see ItemLoader's `unfoldKeys`). The parent's key,
   * the LIMIT and the OFFSET are bound, so no subquery refers to the outer row (MariaDB's derived tables cannot).
   */
  private foldedList(list: number, { node, bound }: FoldedList, slots: readonly unknown[], values: ValueSlots): Knex.Raw {
    const { related } = node
    const order = this.orderTerms(related, node.selection, values)
    const page = bound.length > 2 ? 'limit ? offset ?' : 'limit ?'
    return this.knex.raw(
      `(select ${this.dialect.keyPairs} from (select ?? as ??, row_number() over (order by ${order.sql}) as ?? from ?? ` +
        `where ?? = ? order by ${order.sql} ${page}) as ??) as ??`,
      [
        RANK,
        FOLDED_KEY,
        `${related.table}.${related.primaryKey.column}`,
        FOLDED_KEY,
        ...order.bindings,
        RANK,
        related.table,
        `${related.table}.${node.relation.foreignKey.column}`,
        slots[0],
        ...order.bindings,
        ...slots.slice(1),
        FOLDED,
        foldedColumn(list),
      ] as Knex.RawBinding[],
    )
  }

  /** The rows of `collection` with the keys `stored` (as the database stores them), within `scope`, as `fields` read them. */
  byKeys(db: Db, collection: Collection, fields: readonly FieldNode[], scope: FilterNode | null, stored: readonly unknown[]): Compile {
    const pk = collection.primaryKey
    return (values) => {
      const qb = db(collection.table).select(this.columns(collection, fields, values))
      const bound = values.list(stored)
      if (collection.key.length > 1) qb.whereRaw(...compositeKeysIn(collection, bound))
      // One key is `=`, as in compile-comparison.ts's lists.
      else if (bound.length === 1) qb.where(pk.column, bound[0] as Knex.Value)
      else qb.whereIn(pk.column, bound as Knex.Value[])
      if (scope) compileFilter(qb, scope, this.dialect, collection.table, values)
      return qb
    }
  }

  /** The related rows of some parents (`selection`'s filter picks them), in the list's order, not cut per parent. */
  relatedRows(db: Db, related: Collection, fields: readonly FieldNode[], foreignKey: Field, selection: Selection): Compile {
    return (values) => {
      const qb = db(related.table).select(this.columns(related, fields, values, foreignKey))
      this.where(qb, related, selection, values)
      const order = this.orderTerms(related, selection, values)
      return qb.orderByRaw(order.sql, order.bindings)
    }
  }

  /**
   * The related rows of some parents, each parent's numbered by ROW_NUMBER() in the list's order and kept from
   * `bounds[0]` (exclusive) up to `bounds[1]` (inclusive, if given).
   */
  windowedRows(
    db: Db,
    related: Collection,
    fields: readonly FieldNode[],
    foreignKey: Field,
    selection: Selection,
    bounds: readonly number[],
  ): Compile {
    return (values) => {
      const [after, last] = values.list(bounds)
      const order = this.orderTerms(related, selection, values)
      const ranked = db(related.table).select([
        ...this.columns(related, fields, values, foreignKey),
        this.knex.raw(`row_number() over (partition by ?? order by ${order.sql}) as ??`, [foreignKey.column, ...order.bindings, RANK]),
      ])
      this.where(ranked, related, selection, values)
      const outer = db.select('*').from(ranked.as('ranked')).where(RANK, '>', after!)
      if (last !== undefined) outer.andWhere(RANK, '<=', last)
      return outer.orderBy(RANK)
    }
  }

  /** Groups and summarizes the rows the query's filter and search select (`aggregate`, `groupBy`). */
  aggregate(db: Db, collection: Collection, query: Selection & { aggregate: AggregateQuery }): Compile {
    return (values) => {
      const qb = db(collection.table)
      const joins = this.countJoins(collection, values)
      this.where(qb, collection, query, values, joins)
      joins.applyTo(qb)
      return aggregateStatement(this.knex, qb, collection, query.aggregate, this.dialect)
    }
  }

  /** A chunk's statement: `columns`, then the selection's filter, search, keyset, order, LIMIT and OFFSET. */
  chunk(
    db: Db,
    collection: Collection,
    selection: Selection,
    columns: readonly (string | Knex.Raw)[],
    terms: readonly SortTerm[],
    joins: CountJoins,
    values: ValueSlots,
  ): Knex.QueryBuilder {
    const qb = db(collection.table).select([...columns])
    this.where(qb, collection, selection, values, joins)
    if (selection.after) compileAfter(qb, terms, selection.after, this.dialect)
    const order = this.orderTerms(collection, selection, values, joins)
    joins.applyTo(qb)
    if (order.sql) qb.orderByRaw(order.sql, order.bindings)
    if (selection.limit !== null) qb.limit(selection.limit)
    if (selection.offset > 0) qb.offset(selection.offset)
    return qb
  }

  /** Adds the selection's filter and search to `qb`; its counts go to `joins`, which the caller applies. */
  where(
    qb: Knex.QueryBuilder,
    collection: Collection,
    selection: Pick<Selection, 'filter' | 'search'>,
    values: ValueSlots,
    joins?: CountJoins,
  ): void {
    joins?.collect(selection.filter)
    if (selection.filter) compileFilter(qb, selection.filter, this.dialect, collection.table, values, joins)
    if (selection.search !== null) compileSearch(qb, selection.search, this.dialect)
  }

  /** Collects the counts of one query on the collection's table, to join them once (see CountJoins). */
  countJoins(collection: Collection, values: ValueSlots): CountJoins {
    return new CountJoins(collection.table, () => this.knex.queryBuilder(), this.dialect, values)
  }

  /** The primary key, the columns `fields` reads, and `extra` (a foreign key to group by). */
  columns(
    collection: Collection,
    fields: readonly FieldNode[],
    values: ValueSlots,
    extra?: Field,
    joins?: CountJoins,
  ): (string | Knex.Raw)[] {
    const columns = readFields(collection, fields)
    if (extra) columns.add(extra)
    const computed = fields.flatMap((node) => {
      if (node.kind !== 'function') return []
      const { sql, bindings } = compileOperand(node.operand, collection.table, this.dialect, () => this.knex.queryBuilder(), values, joins)
      return [this.knex.raw(`${sql} as ??`, [...bindings, functionColumn(node.output)])]
    })
    return [...[...columns].map((field) => selectColumn(this.knex, field, this.dialect)), ...computed]
  }

  sortTerms(collection: Collection, selection: Selection, values: ValueSlots, joins?: CountJoins): SortTerm[] {
    return selection.sort.map((node) => ({ node, expression: sortExpression(this.knex, collection, node, this.dialect, values, joins) }))
  }

  private orderTerms(collection: Collection, selection: Selection, values: ValueSlots, joins?: CountJoins): SqlFragment {
    const terms = this.sortTerms(collection, selection, values, joins).map(({ node, expression }) =>
      this.dialect.orderBy(expression, node.direction, !node.operand && node.field.spec.text, mayBeNull(node)),
    )
    return { sql: terms.map((term) => term.sql).join(', '), bindings: terms.flatMap((term) => term.bindings) }
  }
}
