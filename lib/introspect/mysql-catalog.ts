// Reads MySQL's and MariaDB's information_schema (TABLES, COLUMNS, STATISTICS, KEY_COLUMN_USAGE,
// REFERENTIAL_CONSTRAINTS, and MariaDB's CHECK_CONSTRAINTS) into CatalogTables, for the connection's database.
import type { Knex } from 'knex'
import type { FieldType } from '../types'
import {
  acceptedTypes,
  type CatalogColumn,
  type CatalogReader,
  type CatalogTable,
  checkedValues,
  deleteAction,
  escapeRegExp,
  literalDefault,
  quotedValues,
  unservedReason,
} from './catalog'

/** DATA_TYPE and the field type it reads as; `tinyint(1)` (knex's boolean) and enums are handled apart. */
const TYPES: Readonly<Record<string, FieldType>> = {
  tinyint: 'integer',
  smallint: 'integer',
  mediumint: 'integer',
  // int unsigned (knex's `increments`) too: keys past 2^31 - 1 are refused by the integer type's range.
  int: 'integer',
  bigint: 'bigInteger',
  float: 'float',
  double: 'float',
  decimal: 'decimal',
  char: 'string',
  varchar: 'string',
  tinytext: 'text',
  text: 'text',
  mediumtext: 'text',
  longtext: 'text',
  date: 'date',
  datetime: 'dateTime',
  // A TIMESTAMP is stored in UTC and read in the session's time_zone: exact when that is '+00:00'.
  timestamp: 'timestamp',
  time: 'time',
  json: 'json',
  uuid: 'uuid',
  // A four-digit year (1901 to 2155, and 0); mysql2 reads it as a number.
  year: 'integer',
  // BINARY(n) pads a shorter value with zero bytes, which read back with it.
  ...Object.fromEntries(['binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'].map((type) => [type, 'binary' as const])),
  // GeoJSON; MySQL 8 spells a collection `geomcollection`.
  ...Object.fromEntries(
    [
      'geometry',
      'point',
      'linestring',
      'polygon',
      'multipoint',
      'multilinestring',
      'multipolygon',
      'geometrycollection',
      'geomcollection',
    ].map((type) => [type, 'geometry' as const]),
  ),
}

/** What to do about the types the router leaves out (see unservedReason), by DATA_TYPE: none needs more than the general advice. */
const UNSERVED: Readonly<Record<string, string>> = {}

/** Column types that other field types also fit, for checkCollections: the router's own choices among them. */
const ALSO_ACCEPTS: Readonly<Record<string, readonly FieldType[]>> = {
  'tinyint(1)': ['boolean', 'integer'],
  'char(36)': ['uuid'],
  longtext: ['json'],
  // The router's own `timestamp` columns on MySQL are DATETIME holding UTC.
  datetime: ['timestamp'],
}

interface ColumnRow {
  table: string
  column: string
  column_default: string | null
  is_nullable: string
  data_type: string
  column_type: string
  /** COLUMN_TYPE as declared: an enum's values keep their case (`column_type` is lower-cased for matching). */
  declared_type: string
  max_length: number | string | null
  numeric_precision: number | string | null
  numeric_scale: number | string | null
  extra: string
}

const COLUMNS_SQL = `
select c.TABLE_NAME as \`table\`, c.COLUMN_NAME as \`column\`, c.COLUMN_DEFAULT as column_default,
  c.IS_NULLABLE as is_nullable, lower(c.DATA_TYPE) as data_type, lower(c.COLUMN_TYPE) as column_type,
  c.COLUMN_TYPE as declared_type,
  c.CHARACTER_MAXIMUM_LENGTH as max_length, c.NUMERIC_PRECISION as numeric_precision,
  c.NUMERIC_SCALE as numeric_scale, c.EXTRA as extra
from information_schema.COLUMNS c
where c.TABLE_SCHEMA = database()
order by c.TABLE_NAME, c.ORDINAL_POSITION`

const TABLES_SQL = `select TABLE_NAME as name, TABLE_TYPE as type from information_schema.TABLES where TABLE_SCHEMA = database()`

const INDEXES_SQL = `
select TABLE_NAME as \`table\`, INDEX_NAME as name, NON_UNIQUE as non_unique, COLUMN_NAME as \`column\`,
  SUB_PART as sub_part
from information_schema.STATISTICS
where TABLE_SCHEMA = database()
order by TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX`

const FOREIGN_KEYS_SQL = `
select k.TABLE_NAME as \`table\`, k.CONSTRAINT_NAME as name, k.COLUMN_NAME as \`column\`,
  k.REFERENCED_TABLE_NAME as referenced_table, k.REFERENCED_COLUMN_NAME as referenced_column, r.DELETE_RULE as delete_rule
from information_schema.KEY_COLUMN_USAGE k
join information_schema.REFERENTIAL_CONSTRAINTS r
  on r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA and r.CONSTRAINT_NAME = k.CONSTRAINT_NAME and r.TABLE_NAME = k.TABLE_NAME
where k.TABLE_SCHEMA = database() and k.REFERENCED_TABLE_NAME is not null and k.REFERENCED_TABLE_SCHEMA = database()
order by k.TABLE_NAME, k.CONSTRAINT_NAME, k.ORDINAL_POSITION`

// MariaDB only: its JSON is LONGTEXT with a json_valid() check, and its CHECK_CONSTRAINTS name the table.
const CHECKS_SQL = `
select TABLE_NAME as \`table\`, CHECK_CLAUSE as clause from information_schema.CHECK_CONSTRAINTS
where CONSTRAINT_SCHEMA = database()`

interface IndexRow {
  table: string
  name: string
  non_unique: number | string
  column: string
  sub_part: number | null
}

interface ForeignKeyRow {
  table: string
  name: string
  column: string
  referenced_table: string
  referenced_column: string
  delete_rule: string
}

/**
 * MariaDB quotes string defaults (`'draft'`), spells a null default `NULL` and an expression as written
 * (`current_timestamp()`); MySQL 8 leaves strings unquoted and marks expressions DEFAULT_GENERATED in EXTRA.
 */
function parseDefault(row: ColumnRow, type: FieldType | null, mariadb: boolean): Pick<CatalogColumn, 'default' | 'defaultExpression'> {
  const text = row.column_default
  if (text === null || text === 'NULL') return {}
  let literal: string | undefined
  if (mariadb) {
    const quoted = /^'((?:[^']|'')*)'$/.exec(text)
    literal = quoted ? quoted[1]!.replace(/''/g, "'") : /^[-+]?[\d.]+$/.test(text) ? text : undefined
  } else if (!/DEFAULT_GENERATED/i.test(row.extra) && !/^current_timestamp/i.test(text)) {
    literal = text
  }
  const value = literal === undefined ? undefined : literalDefault(literal, type)
  return value === undefined ? { defaultExpression: text } : { default: value }
}

function fieldType(row: ColumnRow, checks: readonly string[]): FieldType | null {
  if (row.column_type === 'tinyint(1)') return 'boolean'
  if (row.data_type === 'enum') return 'string'
  if (row.data_type === 'set') return 'set'
  const jsonChecked = checks.some((clause) => new RegExp(`json_valid\\(\`${escapeRegExp(row.column)}\`\\)`, 'i').test(clause))
  if (row.data_type === 'longtext' && jsonChecked) return 'json'
  return TYPES[row.data_type] ?? null
}

const toNumber = (value: number | string | null): number | undefined => (value === null ? undefined : Number(value))

function toColumn(row: ColumnRow, table: TableFacts, mariadb: boolean): CatalogColumn {
  const type = fieldType(row, table.checks)
  const enumValues =
    row.data_type === 'enum' || row.data_type === 'set'
      ? quotedValues(row.declared_type.slice(row.data_type.length + 1, -1))
      : table.checks.map((clause) => checkedValues(`(${clause})`, row.column)).find((values) => values !== undefined)
  const text = type === 'string' || type === 'text' || type === 'set'
  return {
    name: row.column,
    dbType: row.column_type,
    type,
    ...(type === null ? { unserved: unservedReason(row.column_type, UNSERVED[row.data_type]) } : {}),
    accepts: acceptedTypes(type, ALSO_ACCEPTS[row.column_type] ?? ALSO_ACCEPTS[row.data_type] ?? []),
    nullable: row.is_nullable === 'YES',
    ...parseDefault(row, type, mariadb),
    ...((type === 'string' && row.data_type !== 'enum') || (type === 'binary' && /binary/.test(row.data_type))
      ? row.max_length === null
        ? {}
        : { maxLength: Number(row.max_length) }
      : {}),
    ...(type === 'decimal' ? { precision: toNumber(row.numeric_precision), scale: toNumber(row.numeric_scale) } : {}),
    ...(enumValues && text ? { enum: enumValues } : {}),
    autoIncrement: /auto_increment/i.test(row.extra),
    generated: /(VIRTUAL|STORED|PERSISTENT) GENERATED/i.test(row.extra),
    unique: table.unique.has(row.column),
  }
}

interface TableFacts {
  checks: readonly string[]
  unique: ReadonlySet<string>
}

export const readMysqlCatalog: CatalogReader = async (knex: Knex) => {
  const [[versionRows], [tableRows], [columnRows], [indexRows], [keyRows]] = (await Promise.all([
    knex.raw('select version() as version'),
    knex.raw(TABLES_SQL),
    knex.raw(COLUMNS_SQL),
    knex.raw(INDEXES_SQL),
    knex.raw(FOREIGN_KEYS_SQL),
  ])) as [[[{ version: string }]], [{ name: string; type: string }[]], [ColumnRow[]], [IndexRow[]], [ForeignKeyRow[]]]
  const mariadb = /mariadb/i.test(versionRows[0].version)
  const checkRows = mariadb ? ((await knex.raw(CHECKS_SQL)) as [{ table: string; clause: string }[]])[0] : []
  return tableRows.map(({ name, type }): CatalogTable => {
    const indexes = new Map<string, IndexRow[]>()
    for (const row of indexRows.filter((index) => index.table === name)) indexes.set(row.name, [...(indexes.get(row.name) ?? []), row])
    const unique = new Set(
      [...indexes.values()]
        .filter((rows) => rows.length === 1 && Number(rows[0]!.non_unique) === 0 && rows[0]!.sub_part === null)
        .map((rows) => rows[0]!.column),
    )
    const facts: TableFacts = { checks: checkRows.filter((row) => row.table === name).map((row) => row.clause), unique }
    const keys = new Map<string, ForeignKeyRow[]>()
    for (const row of keyRows.filter((key) => key.table === name)) keys.set(row.name, [...(keys.get(row.name) ?? []), row])
    return {
      name,
      view: type === 'VIEW',
      columns: columnRows.filter((row) => row.table === name).map((row) => toColumn(row, facts, mariadb)),
      primaryKey: (indexes.get('PRIMARY') ?? []).map((row) => row.column),
      foreignKeys: [...keys.values()].map((rows) => ({
        columns: rows.map((row) => row.column),
        referencedTable: rows[0]!.referenced_table,
        referencedColumns: rows.map((row) => row.referenced_column),
        onDelete: deleteAction(rows[0]!.delete_rule),
      })),
    }
  })
}
