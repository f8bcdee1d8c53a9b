// Reads PostgreSQL's catalog (pg_class, pg_attribute, pg_index, pg_constraint, pg_enum) into CatalogTables.
import type { Knex } from 'knex'
import type { FieldType } from '../types'
import {
  acceptedTypes,
  type CatalogColumn,
  type CatalogForeignKey,
  type CatalogReader,
  type CatalogTable,
  type DeleteAction,
  escapeRegExp,
  literalDefault,
  quotedValues,
  unservedReason,
} from './catalog'

/** Base type names (pg_type.typname) and the field type each reads as. */
const TYPES: Readonly<Record<string, FieldType>> = {
  int2: 'integer',
  int4: 'integer',
  int8: 'bigInteger',
  float4: 'float',
  float8: 'float',
  numeric: 'decimal',
  bool: 'boolean',
  date: 'date',
  timestamp: 'dateTime',
  timestamptz: 'timestamp',
  time: 'time',
  varchar: 'string',
  bpchar: 'string',
  text: 'text',
  json: 'json',
  jsonb: 'json',
  uuid: 'uuid',
  bytea: 'binary',
}

/** What to do about the types the router leaves out (see unservedReason), by pg_type.typname. */
const SPATIAL_ADVICE =
  'PostGIS values are not served (GeoJSON is served on MySQL and MariaDB only): leave it out (`false` in `overrides`), or serve a view with `ST_AsGeoJSON(<column>)::json` as a json field, with `viewKeys`'
const UNSERVED: Readonly<Record<string, string>> = {
  geometry: SPATIAL_ADVICE,
  geography: SPATIAL_ADVICE,
  tsvector:
    "PostgreSQL's parsed full-text form of other columns (lexemes and their positions), not data a client reads or writes; search the text columns it is made from (`_icontains`, `search`), or to show it serve a view with `<column>::text`, with `viewKeys`",
}

/** pg_constraint.confdeltype, as https://www.postgresql.org/docs/current/catalog-pg-constraint.html lists it. */
const DELETE_TYPES: Readonly<Record<string, DeleteAction>> = {
  a: 'noAction',
  r: 'restrict',
  c: 'cascade',
  n: 'setNull',
  d: 'setDefault',
}

interface ColumnRow {
  table: string
  relkind: string
  column: string
  db_type: string
  typname: string
  typtype: string
  elem_typname: string | null
  typmod: number
  notnull: boolean
  identity: string
  generated: string
  default_expr: string | null
  enum_values: string[] | null
}

// Every column of every table, view and partitioned table of the schema (partitions themselves left out).
// Domains read as their base type; an array's element type comes from pg_type.typelem.
const COLUMNS_SQL = `
select c.relname as "table", c.relkind, a.attname as "column", format_type(a.atttypid, a.atttypmod) as db_type,
  coalesce(bt.typname, t.typname) as typname, coalesce(bt.typtype, t.typtype) as typtype,
  case when t.typcategory = 'A' then et.typname end as elem_typname,
  a.atttypmod as typmod, a.attnotnull as notnull, a.attidentity as identity, a.attgenerated as generated,
  pg_get_expr(d.adbin, d.adrelid) as default_expr,
  (select array_agg(e.enumlabel::text order by e.enumsortorder) from pg_enum e
    where e.enumtypid = coalesce(nullif(t.typbasetype, 0), a.atttypid)) as enum_values
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
join pg_type t on t.oid = a.atttypid
left join pg_type bt on bt.oid = nullif(t.typbasetype, 0)
left join pg_type et on et.oid = t.typelem
left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
where n.nspname = coalesce(?, current_schema()) and c.relkind in ('r', 'p', 'v', 'm') and not c.relispartition
order by c.relname, a.attnum`

// Primary keys and single-column unique indexes (not partial, not on expressions).
const INDEXES_SQL = `
select c.relname as "table", i.indisprimary as primary, i.indisunique as unique, i.indpred is not null as partial,
  (select array_agg(a.attname::text order by k.ord) from unnest(i.indkey) with ordinality k(num, ord)
    join pg_attribute a on a.attrelid = c.oid and a.attnum = k.num) as columns,
  i.indnkeyatts as key_count, i.indexprs is not null as on_expressions
from pg_index i
join pg_class c on c.oid = i.indrelid
join pg_namespace n on n.oid = c.relnamespace
where n.nspname = coalesce(?, current_schema()) and (i.indisprimary or i.indisunique)`

const FOREIGN_KEYS_SQL = `
select c.relname as "table", rc.relname as referenced_table, con.confdeltype as delete_type,
  (select array_agg(a.attname::text order by k.ord) from unnest(con.conkey) with ordinality k(num, ord)
    join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.num) as columns,
  (select array_agg(a.attname::text order by k.ord) from unnest(con.confkey) with ordinality k(num, ord)
    join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.num) as referenced_columns
from pg_constraint con
join pg_class c on c.oid = con.conrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_class rc on rc.oid = con.confrelid
where con.contype = 'f' and n.nspname = coalesce(?, current_schema()) and rc.relnamespace = n.oid
order by c.relname, con.conname`

// CHECK constraints, to find the value lists knex's `enu()` makes (`text check (kind in (...))`).
const CHECKS_SQL = `
select c.relname as "table", pg_get_constraintdef(con.oid) as clause
from pg_constraint con
join pg_class c on c.oid = con.conrelid
join pg_namespace n on n.oid = c.relnamespace
where con.contype = 'c' and n.nspname = coalesce(?, current_schema())
order by c.relname, con.conname`

interface IndexRow {
  table: string
  primary: boolean
  unique: boolean
  partial: boolean
  columns: string[]
  key_count: number
  on_expressions: boolean
}

interface ForeignKeyRow {
  table: string
  referenced_table: string
  delete_type: string
  columns: string[]
  referenced_columns: string[]
}

/**
 * The values a CHECK allows `column` to take, when it is a value list: PostgreSQL keeps `column IN ('a', 'b')` as
 * `column = ANY (ARRAY['a'::text, 'b'::text])`, and over a varchar as `(column)::text = ANY ((ARRAY['a'::character
 * varying, ...])::text[])`. Undefined for any other check.
 */
export function anyArrayValues(clause: string, column: string): string[] | undefined {
  // The name as pg_get_constraintdef prints it: quoted when it needs quotes, bare otherwise.
  const name = String.raw`(?:"${escapeRegExp(column.replace(/"/g, '""'))}"|${escapeRegExp(column)}(?![\w$]))`
  const subject = String.raw`(?:\(${name}\)::text|${name})`
  const list = String.raw`((?:\s*'(?:[^']|'')*'(?:::[\w ]+)?\s*,?)+)`
  const match = new RegExp(String.raw`(?<![\w$"])${subject}\s*=\s*ANY\s*\(\(?ARRAY\[${list}\]`).exec(clause)
  return match ? quotedValues(match[1]!) : undefined
}

/** A default's text as pg_get_expr prints it: `'draft'::character varying`, `(-1)`, `nextval(...)`, `now()`. */
function parseDefault(expression: string | null, type: FieldType | null): Pick<CatalogColumn, 'default' | 'defaultExpression'> {
  if (expression === null || /^NULL(::.*)?$/i.test(expression)) return {}
  const quoted = /^'((?:[^']|'')*)'(?:::[\w\s."[\]()]+)?$/.exec(expression)
  const bare = /^\(?([-+]?[\d.]+|true|false)\)?(?:::[\w\s]+)?$/i.exec(expression)
  const text = quoted ? quoted[1]!.replace(/''/g, "'") : bare?.[1]
  if (type === 'array') return text === '{}' ? { default: [] } : { defaultExpression: expression }
  const value = text === undefined ? undefined : literalDefault(text, type)
  return value === undefined ? { defaultExpression: expression } : { default: value }
}

/** The varchar/char length or the numeric precision and scale pg_attribute.atttypmod encodes (-1: none). */
function modifiers(typname: string, typmod: number): Pick<CatalogColumn, 'maxLength' | 'precision' | 'scale'> {
  if (typmod < 0) return {}
  if (typname === 'varchar' || typname === 'bpchar') return { maxLength: typmod - 4 }
  if (typname === 'numeric') return { precision: ((typmod - 4) >> 16) & 0xffff, scale: (typmod - 4) & 0xffff }
  return {}
}

function toColumn(row: ColumnRow, primaryKey: readonly string[], unique: ReadonlySet<string>, checks: readonly string[]): CatalogColumn {
  const enumType = row.typtype === 'e' && row.enum_values ? row.enum_values : undefined
  const elementType = row.elem_typname === null ? undefined : TYPES[row.elem_typname]
  const type: FieldType | null =
    row.elem_typname !== null ? (elementType ? 'array' : null) : enumType ? 'string' : (TYPES[row.typname] ?? null)
  const enumValues =
    enumType ??
    (type === 'string' || type === 'text'
      ? checks.map((clause) => anyArrayValues(clause, row.column)).find((values) => values !== undefined)
      : undefined)
  const sequence = row.default_expr?.startsWith('nextval(') === true
  const single = primaryKey.length === 1 && primaryKey[0] === row.column
  return {
    name: row.column,
    dbType: row.db_type,
    type,
    ...(type === null ? { unserved: unservedReason(row.db_type, UNSERVED[row.typname]) } : {}),
    ...(elementType && type === 'array' ? { elementType } : {}),
    accepts: acceptedTypes(type),
    nullable: !row.notnull,
    ...(sequence || row.identity !== '' || row.generated !== '' ? {} : parseDefault(row.default_expr, type)),
    ...(type === 'array' ? {} : modifiers(row.typname, row.typmod)),
    ...(enumValues ? { enum: enumValues } : {}),
    autoIncrement: single && (sequence || row.identity !== ''),
    // attidentity 'a' is GENERATED ALWAYS (writes refused); attgenerated 's' a generated stored column.
    generated: row.identity === 'a' || row.generated !== '',
    unique: unique.has(row.column),
  }
}

export const readPostgresCatalog: CatalogReader = async (knex: Knex, schema?: string) => {
  const binding = schema ?? null
  const [columns, indexes, foreignKeys, checks] = await Promise.all([
    knex.raw<{ rows: ColumnRow[] }>(COLUMNS_SQL, [binding]),
    knex.raw<{ rows: IndexRow[] }>(INDEXES_SQL, [binding]),
    knex.raw<{ rows: ForeignKeyRow[] }>(FOREIGN_KEYS_SQL, [binding]),
    knex.raw<{ rows: Array<{ table: string; clause: string }> }>(CHECKS_SQL, [binding]),
  ])
  const tables = new Map<string, ColumnRow[]>()
  for (const row of columns.rows) tables.set(row.table, [...(tables.get(row.table) ?? []), row])
  return [...tables].map(([name, rows]): CatalogTable => {
    const own = indexes.rows.filter((index) => index.table === name)
    const primaryKey = own.find((index) => index.primary)?.columns ?? []
    const unique = new Set(
      own
        .filter((index) => index.unique && !index.partial && !index.on_expressions && index.key_count === 1)
        .map((index) => index.columns[0]!),
    )
    return {
      name,
      view: rows[0]!.relkind === 'v' || rows[0]!.relkind === 'm',
      columns: rows.map((row) =>
        toColumn(
          row,
          primaryKey,
          unique,
          checks.rows.filter((check) => check.table === name).map((check) => check.clause),
        ),
      ),
      primaryKey,
      foreignKeys: foreignKeys.rows
        .filter((key) => key.table === name)
        .map((key): CatalogForeignKey => ({
          columns: key.columns,
          referencedTable: key.referenced_table,
          referencedColumns: key.referenced_columns,
          onDelete: DELETE_TYPES[key.delete_type] ?? 'noAction',
        })),
    }
  })
}
