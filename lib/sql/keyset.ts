// The keyset of a sorted read: its sort keys selected beside each row, and the predicate "after that row" that a
// cursor page or an export's next chunk starts from. NULL sorts first ascending and last descending on every
// database (Dialect.orderBy), so here NULL is the smallest value; the primary key ends every sort, so a row's
// keys name one place in the order.
import type { Knex } from 'knex'
import type { SortNode } from '../query/query'
import type { Dialect, SqlFragment } from '../dialects'
import { fromStorage, toComparable } from '../dialects/storage'

/** A sort node and the expression it orders by (see item-loader's `sortExpression`). */
export interface SortTerm {
  readonly node: SortNode
  readonly expression: SqlFragment
}

type Row = Record<string, unknown>

/** The name the select list gives a sort key (see keyColumns). */
export const keyColumn = (index: number): string => `__items_key_${index}`

const isText = (node: SortNode): boolean => !node.operand && node.field.spec.text

/** The select-list entries reading each sort key, read as text where the dialect reads the field's type so. */
export function keyColumns(knex: Knex, terms: readonly SortTerm[], dialect: Dialect): Knex.Raw[] {
  return terms.map(({ node, expression }, index) => {
    const cast = !node.operand && dialect.readAsText.has(node.field.type)
    const sql = cast ? dialect.textCast.replace('??', expression.sql) : expression.sql
    return knex.raw(`${sql} as ??`, [...expression.bindings, keyColumn(index)])
  })
}

/** A row's sort keys as API values (what a cursor carries). */
export function rowKeys(row: Row, terms: readonly SortTerm[], dialect: Dialect): unknown[] {
  return keysRead((index) => row[keyColumn(index)], terms, dialect)
}

/** The sort keys of a row read as an array (see keyColumns), which holds them from `start` on. */
export function arrayKeys(row: readonly unknown[], start: number, terms: readonly SortTerm[], dialect: Dialect): unknown[] {
  return keysRead((index) => row[start + index], terms, dialect)
}

function keysRead(raw: (index: number) => unknown, terms: readonly SortTerm[], dialect: Dialect): unknown[] {
  return terms.map(({ node }, index) => {
    const value = raw(index)
    if (value === null || value === undefined) return null
    return node.operand ? Number(value) : fromStorage(node.field, value, dialect)
  })
}

/** A key as bound against its sort expression, which reads a stored form other than the default canonically. */
const bound = (node: SortNode, value: unknown, dialect: Dialect): Knex.Value =>
  node.operand ? (value as number) : toComparable(node.field, value, dialect)

function equalTo({ node, expression }: SortTerm, value: unknown, dialect: Dialect): SqlFragment {
  if (value === null) return { sql: `${expression.sql} is null`, bindings: expression.bindings }
  const compared = dialect.sortValue(expression, isText(node))
  return { sql: `${compared.sql} = ?`, bindings: [...compared.bindings, bound(node, value, dialect)] }
}

/** Rows whose key `term` comes after `value` in the sort's direction; null when none can (descending, after NULL). */
function beyond({ node, expression }: SortTerm, value: unknown, dialect: Dialect): SqlFragment | null {
  const compared = dialect.sortValue(expression, isText(node))
  if (node.direction === 'asc') {
    if (value === null) return { sql: `${expression.sql} is not null`, bindings: expression.bindings }
    return { sql: `${compared.sql} > ?`, bindings: [...compared.bindings, bound(node, value, dialect)] }
  }
  if (value === null) return null
  return {
    sql: `(${compared.sql} < ? or ${expression.sql} is null)`,
    bindings: [...compared.bindings, bound(node, value, dialect), ...expression.bindings],
  }
}

/**
 * Keeps the rows after the one whose keys are `after`: for sort keys k1..kn, the rows with k1 beyond, or k1
 * equal and k2 beyond, and so on. Every value is bound; a key sorted by the primary key alone compiles to
 * `id > ?`, which an index serves at any depth.
 */
export function compileAfter(qb: Knex.QueryBuilder, terms: readonly SortTerm[], after: readonly unknown[], dialect: Dialect): void {
  const branches: SqlFragment[] = []
  terms.forEach((term, index) => {
    const next = beyond(term, after[index] ?? null, dialect)
    if (next === null) return
    const parts = [...terms.slice(0, index).map((earlier, position) => equalTo(earlier, after[position] ?? null, dialect)), next]
    branches.push({ sql: parts.map((part) => part.sql).join(' and '), bindings: parts.flatMap((part) => part.bindings) })
  })
  // knex does not wrap a raw condition in parentheses: without them the ORs would escape the filter's ANDs.
  if (branches.length === 0) qb.whereRaw('1 = 0')
  else
    qb.whereRaw(
      `(${branches.map((branch) => `(${branch.sql})`).join(' or ')})`,
      branches.flatMap((branch) => branch.bindings),
    )
}
