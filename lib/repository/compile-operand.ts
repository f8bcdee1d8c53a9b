// Compiles a FunctionOperand (a date part, or a count of related items) into SQL for the query on `table`.
import type { FunctionOperand } from '../query/query'
import type { Dialect, SqlFragment } from './dialect'

/**
 * `table` is the table of the query the operand appears in: a count's correlated subquery must name the
 * parent's key with it, or the subquery's own columns would shadow it.
 */
export function compileOperand(operand: FunctionOperand, table: string, dialect: Dialect): SqlFragment {
  if (operand.kind === 'datePart') {
    return dialect.datePart(operand.part, operand.field.type, { sql: '??', bindings: [`${table}.${operand.field.column}`] })
  }
  const alias = '__items_count'
  return {
    sql: '(select count(*) from ?? as ?? where ?? = ??)',
    bindings: [operand.related.table, alias, `${alias}.${operand.foreignKey.column}`, `${table}.${operand.parentKey.column}`],
  }
}
