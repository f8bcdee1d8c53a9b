// Reads SQLite's catalog (sqlite_master and the table_xinfo, index_list, index_info and foreign_key_list
// pragmas) into CatalogTables. SQLite types are declared names only, so the field type follows the name,
// and date columns are sampled to learn how their values are stored.
import type { Knex } from 'knex'
import { FIELD_TYPES } from '../schema/field-types'
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
  unservedReason,
} from './catalog'

/** Declared type names (without their arguments) and the field type each reads as. */
const TYPES: Readonly<Record<string, FieldType>> = {
  INTEGER: 'integer',
  INT: 'integer',
  SMALLINT: 'integer',
  MEDIUMINT: 'integer',
  TINYINT: 'integer',
  BIGINT: 'bigInteger',
  INT8: 'bigInteger',
  REAL: 'float',
  DOUBLE: 'float',
  'DOUBLE PRECISION': 'float',
  FLOAT: 'float',
  NUMERIC: 'decimal',
  DECIMAL: 'decimal',
  BOOLEAN: 'boolean',
  BOOL: 'boolean',
  DATE: 'date',
  DATETIME: 'dateTime',
  TIMESTAMP: 'timestamp',
  TIME: 'time',
  VARCHAR: 'string',
  'CHARACTER VARYING': 'string',
  CHAR: 'string',
  CHARACTER: 'string',
  NCHAR: 'string',
  NVARCHAR: 'string',
  TEXT: 'text',
  CLOB: 'text',
  JSON: 'json',
  JSONB: 'json',
  UUID: 'uuid',
  // Ports of MySQL schemas keep its YEAR; NUMERIC affinity stores the year as an integer.
  YEAR: 'integer',
  BLOB: 'binary',
}

/** What to do about a column the router leaves out (see unservedReason), by declared type name. */
const SPATIAL_ADVICE =
  'spatial values are not served on SQLite (GeoJSON is served on MySQL and MariaDB only): leave it out (`false` in `overrides`), or keep GeoJSON text in a JSON column'
const UNSERVED: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    ['GEOMETRY', 'POINT', 'LINESTRING', 'POLYGON', 'MULTIPOINT', 'MULTILINESTRING', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION'].map((type) => [
      type,
      SPATIAL_ADVICE,
    ]),
  ),
  '': "declared without a type (a view's expression, or CREATE TABLE ... AS SELECT), so SQLite cannot say what it holds: give the field its type in `overrides` (`{ fields: { <column>: { type: 'integer' } } }`)",
}

/** Any type but an array (PostgreSQL only), a set or a geometry (MySQL only): a column without affinity holds whatever is written. */
const ALL_TYPES = (Object.keys(FIELD_TYPES) as FieldType[]).filter((type) => type !== 'array' && type !== 'set' && type !== 'geometry')
const TEMPORAL: readonly FieldType[] = ['date', 'dateTime', 'timestamp']

/**
 * SQLite stores any value in any column; what a column holds follows its type affinity
 * (https://www.sqlite.org/datatype3.html#determination_of_column_affinity), so a hand-written field type
 * fits a column when the affinity can hold its values.
 */
function affinityAccepts(declared: string): readonly FieldType[] {
  const upper = declared.toUpperCase()
  if (upper.includes('INT')) return ['integer', 'bigInteger', 'boolean', ...TEMPORAL]
  if (/CHAR|CLOB|TEXT/.test(upper)) return ['string', 'text', 'decimal', 'json', 'uuid', 'time', ...TEMPORAL]
  if (/REAL|FLOA|DOUB/.test(upper)) return ['float', 'decimal']
  return ALL_TYPES
}

interface ColumnInfo {
  name: string
  type: string
  notnull: number
  dflt_value: string | null
  pk: number
  /** 0 plain, 1 hidden (virtual tables), 2 virtual generated, 3 stored generated. */
  hidden: number
}

interface IndexInfo {
  name: string
  unique: number
  partial: number
}

interface ForeignKeyInfo {
  id: number
  table: string
  from: string
  to: string | null
  on_delete: string
}

/** A default as SQLite keeps its text: `'draft'`, `0`, `CURRENT_TIMESTAMP`, `(datetime('now'))`. */
function parseDefault(text: string | null, type: FieldType | null): Pick<CatalogColumn, 'default' | 'defaultExpression'> {
  if (text === null || /^NULL$/i.test(text)) return {}
  const quoted = /^'((?:[^']|'')*)'$/.exec(text)
  const literal = quoted ? quoted[1]!.replace(/''/g, "'") : /^[-+]?[\d.]+$|^(true|false)$/i.test(text) ? text : undefined
  const value = literal === undefined ? undefined : literalDefault(literal, type)
  return value === undefined ? { defaultExpression: text } : { default: value }
}

/** `VARCHAR(100)` → name VARCHAR, arguments [100]. */
function declaredType(declared: string): { name: string; args: number[] } {
  const match = /^\s*([A-Za-z ]+?)\s*(?:\(([^)]*)\))?\s*$/.exec(declared)
  if (!match) return { name: declared.toUpperCase(), args: [] }
  const args = (match[2] ?? '')
    .split(',')
    .map((arg) => Number(arg.trim()))
    .filter(Number.isFinite)
  return { name: match[1]!.toUpperCase().replace(/\s+/g, ' '), args }
}

/**
 * How the first stored value of a date column looks: knex writes a JS Date as epoch milliseconds, SQLite's
 * CURRENT_TIMESTAMP as `YYYY-MM-DD HH:MM:SS`, most other code ISO-8601 text. undefined when the column is empty.
 */
async function sampleStorage(knex: Knex, table: string, column: string): Promise<CatalogColumn['storage']> {
  const row = (await knex.raw('select typeof(??) as kind, ?? as value from ?? where ?? is not null limit 1', [
    column,
    column,
    table,
    column,
  ])) as {
    kind: string
    value: unknown
  }[]
  const first = row[0]
  if (!first) return undefined
  if (first.kind === 'integer' || first.kind === 'real') return 'epochMs'
  return typeof first.value === 'string' && /^\d{4}-\d\d-\d\d \d/.test(first.value) ? 'sqlText' : 'isoText'
}

async function readColumn(
  knex: Knex,
  table: string,
  sql: string,
  info: ColumnInfo,
  single: boolean,
  unique: ReadonlySet<string>,
): Promise<CatalogColumn> {
  const declared = declaredType(info.type)
  const jsonChecked = new RegExp(`json_valid\\(\\s*["\`[]?${escapeRegExp(info.name)}["\`\\]]?\\s*\\)`, 'i').test(sql)
  const enumValues = checkedValues(sql, info.name)
  let type: FieldType | null = TYPES[declared.name] ?? null
  if (type === 'text' && jsonChecked) type = 'json'
  const text = type === 'string' || type === 'text'
  const defaults = parseDefault(info.dflt_value, type)
  const temporal = type !== null && TEMPORAL.includes(type)
  // CURRENT_TIMESTAMP writes `YYYY-MM-DD HH:MM:SS`; otherwise the stored values tell.
  const storage = !temporal
    ? undefined
    : /^CURRENT_(TIMESTAMP|DATE)$/i.test(info.dflt_value ?? '')
      ? 'sqlText'
      : await sampleStorage(knex, table, info.name)
  return {
    name: info.name,
    dbType: info.type,
    type,
    ...(type === null ? { unserved: unservedReason(info.type === '' ? '(none)' : info.type, UNSERVED[declared.name]) } : {}),
    accepts: acceptedTypes(type, affinityAccepts(info.type)),
    // A primary key that is not INTEGER accepts NULL in SQLite (a legacy quirk); the router never writes one.
    nullable: info.notnull === 0 && !(single && info.pk > 0),
    ...defaults,
    ...(type === 'string' && declared.args[0] !== undefined ? { maxLength: declared.args[0] } : {}),
    ...(type === 'decimal' && declared.args[0] !== undefined ? { precision: declared.args[0], scale: declared.args[1] ?? 0 } : {}),
    ...(text && enumValues ? { enum: enumValues } : {}),
    // Only INTEGER PRIMARY KEY is the rowid, which SQLite fills in (https://www.sqlite.org/lang_createtable.html#rowid).
    autoIncrement: single && info.pk > 0 && declared.name === 'INTEGER',
    generated: info.hidden === 2 || info.hidden === 3,
    unique: unique.has(info.name),
    ...(storage ? { storage } : {}),
  }
}

async function readTable(knex: Knex, name: string, kind: string, sql: string): Promise<CatalogTable> {
  const infos = (await knex.raw('pragma table_xinfo(??)', [name])) as ColumnInfo[]
  const indexes = (await knex.raw('pragma index_list(??)', [name])) as IndexInfo[]
  const unique = new Set<string>()
  for (const index of indexes.filter((entry) => entry.unique === 1 && entry.partial === 0)) {
    const columns = (await knex.raw('pragma index_info(??)', [index.name])) as { name: string | null }[]
    if (columns.length === 1 && columns[0]!.name !== null) unique.add(columns[0]!.name)
  }
  const primaryKey = infos
    .filter((info) => info.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((info) => info.name)
  const single = primaryKey.length === 1
  const columns: CatalogColumn[] = []
  for (const info of infos.filter((entry) => entry.hidden !== 1)) columns.push(await readColumn(knex, name, sql, info, single, unique))
  const keys = new Map<number, ForeignKeyInfo[]>()
  for (const row of (await knex.raw('pragma foreign_key_list(??)', [name])) as ForeignKeyInfo[])
    keys.set(row.id, [...(keys.get(row.id) ?? []), row])
  return {
    name,
    view: kind === 'view',
    columns,
    primaryKey,
    foreignKeys: [...keys.values()].map((rows) => ({
      columns: rows.map((row) => row.from),
      referencedTable: rows[0]!.table,
      // A key written `REFERENCES authors` without columns points at the referenced table's primary key.
      referencedColumns: rows.map((row) => row.to ?? ''),
      onDelete: deleteAction(rows[0]!.on_delete),
    })),
  }
}

export const readSqliteCatalog: CatalogReader = async (knex: Knex) => {
  const tables = (await knex.raw(
    "select name, type, coalesce(sql, '') as sql from sqlite_master where type in ('table', 'view') and name not like 'sqlite\\_%' escape '\\' order by name",
  )) as { name: string; type: string; sql: string }[]
  const read: CatalogTable[] = []
  for (const table of tables) read.push(await readTable(knex, table.name, table.type, table.sql))
  // Fill in the columns of keys written without them, now that every table's primary key is known.
  return read.map((table) => ({
    ...table,
    foreignKeys: table.foreignKeys.map((key) => ({
      ...key,
      referencedColumns: key.referencedColumns.some((column) => column === '')
        ? (read.find((other) => other.name === key.referencedTable)?.primaryKey ?? key.referencedColumns)
        : key.referencedColumns,
    })),
  }))
}
