// PostgreSQL array columns (`text[]`, `integer[]`, ...): read as JSON arrays of text, written as array literals.
import type { ArraySupport } from '../dialect'

/** One element of an array literal: quoted, with `"` and `\` escaped; NULL unquoted. */
const element = (value: unknown): string => (value === null ? 'NULL' : `"${String(value).replace(/[\\"]/g, (char) => `\\${char}`)}"`)

export const postgresArrays: ArraySupport = {
  // Elements as text, whatever their type, so pg's per-type array parsers (Dates in the process's zone,
  // numbers past 2^53) play no part: the field type table parses each one.
  select: (column) => ({ sql: 'to_json(??::text[])', bindings: [column] }),
  // An untyped literal such as '{"a","b"}' takes the column's array type in INSERT and UPDATE.
  toStorage: (values) => `{${values.map(element).join(',')}}`,
  // array_position() compares with IS NOT DISTINCT FROM and takes the element's type from the column, so one
  // form serves every element type; a NULL array contains nothing and is no match for either.
  contains: ({ sql, bindings }, value, negate) => ({
    sql: negate ? `(${sql} is not null and array_position(${sql}, ?) is null)` : `array_position(${sql}, ?) is not null`,
    bindings: negate ? [...bindings, ...bindings, value] : [...bindings, value],
  }),
  empty: ({ sql, bindings }, negate) => ({
    sql: negate ? `cardinality(${sql}) > 0` : `(${sql} is null or cardinality(${sql}) = 0)`,
    bindings: negate ? bindings : [...bindings, ...bindings],
  }),
}
