// MySQL / MariaDB SET columns: read as the comma-joined text MySQL answers, written the same way, filtered by
// membership with FIND_IN_SET.
import type { ArraySupport } from '../dialect'

export const mysqlSets: ArraySupport = {
  // The driver answers a SET as its members joined by commas, in the column's order; the field type splits it.
  select: (column) => ({ sql: '??', bindings: [column] }),
  // A SET's members cannot hold a comma, and the payload validator allows listed members only.
  toStorage: (values) => values.join(','),
  // FIND_IN_SET answers 0 for a member the value does not hold, NULL for a NULL set (no match either way).
  contains: ({ sql, bindings }, value, negate) => ({
    sql: negate ? `find_in_set(?, ${sql}) = 0` : `find_in_set(?, ${sql}) > 0`,
    bindings: [value, ...bindings],
  }),
  empty: ({ sql, bindings }, negate) => ({
    sql: negate ? `${sql} <> ''` : `(${sql} is null or ${sql} = '')`,
    bindings: negate ? bindings : [...bindings, ...bindings],
  }),
}
