// The value lists a CHECK constraint allows, as each database prints the constraint back.
import { checkedValues } from '../../lib/introspect/catalog'
import { anyArrayValues } from '../../lib/introspect/postgres-catalog'

describe('anyArrayValues (PostgreSQL keeps `col IN (...)` as `col = ANY (ARRAY[...])`)', () => {
  it.each([
    ["CHECK ((kind = ANY (ARRAY['Feature'::text, 'TV-Movie'::text])))", 'kind', ['Feature', 'TV-Movie']],
    ["CHECK (((kind)::text = ANY ((ARRAY['A b'::character varying, 'It''s'::character varying])::text[])))", 'kind', ['A b', "It's"]],
    ['CHECK (("Kind" = ANY (ARRAY[\'X\'::text])))', 'Kind', ['X']],
  ])('%s', (clause, column, values) => {
    expect(anyArrayValues(clause, column)).toEqual(values)
  })

  it.each([
    ["CHECK ((subkind = ANY (ARRAY['a'::text])))", 'kind'],
    ["CHECK ((kind_2 = ANY (ARRAY['a'::text])))", 'kind'],
    ['CHECK ((price > (0)::numeric))', 'price'],
  ])('finds no list for another column or check: %s', (clause, column) => {
    expect(anyArrayValues(clause, column)).toBeUndefined()
  })
})

describe('checkedValues (SQLite and MariaDB keep the IN list as written)', () => {
  it('keeps the values in their case', () => {
    expect(checkedValues("rating text check (rating in ('G', 'PG-13', 'NC-17'))", 'rating')).toEqual(['G', 'PG-13', 'NC-17'])
  })
})
