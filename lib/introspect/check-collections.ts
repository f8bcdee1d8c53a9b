// Compares hand-written collections with the database's catalog and reports every mismatch at once, so a
// wrong type, scale, nullability or foreign key shows up at startup rather than as a 500 or a rounded value.
import type { Knex } from 'knex'
import { ConfigError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { acceptedTypes } from './catalog'
import { readCatalog, type CatalogColumn, type CatalogTable } from './read-catalog'
import type { CollectionDefinition, FieldDefinition, FieldType } from '../types'

/** The options a field may carry, read loosely: the definitions come from the host, unchecked yet. */
interface LooseField {
  type?: unknown
  elementType?: unknown
  primaryKey?: unknown
  nullable?: unknown
  scale?: unknown
  precision?: unknown
  maxLength?: unknown
  references?: unknown
  onDelete?: unknown
  enum?: unknown
}

function checkType(field: LooseField, column: CatalogColumn): string | null {
  if (column.type === 'array' || field.type === 'array') {
    const elements = column.elementType === undefined ? [] : acceptedTypes(column.elementType)
    return field.type === 'array' && column.type === 'array' && elements.includes(field.elementType as FieldType)
      ? null
      : `declared ${String(field.type)}${field.type === 'array' ? ` of ${String(field.elementType)}` : ''}, the column is ${column.dbType}`
  }
  if (column.accepts.includes(field.type as never)) return null
  return `declared ${String(field.type)}, the column is ${column.dbType}${column.type ? ` (read as ${column.type})` : ''}`
}

function checkColumn(field: LooseField, column: CatalogColumn): string[] {
  const problems: string[] = []
  const type = checkType(field, column)
  if (type) return [type]
  if (field.type === 'decimal' && column.scale !== undefined && field.scale !== column.scale) {
    problems.push(`scale ${String(field.scale ?? 'not declared')}, the column's is ${column.scale}`)
  }
  if (field.type === 'decimal' && field.precision !== undefined && column.precision !== undefined && field.precision !== column.precision) {
    problems.push(`precision ${String(field.precision)}, the column's is ${column.precision}`)
  }
  const nullable = field.primaryKey !== true && field.nullable !== false
  if (nullable && !column.nullable && field.primaryKey !== true)
    problems.push('nullable, but the column is NOT NULL (declare nullable: false)')
  if (!nullable && column.nullable && field.primaryKey !== true) problems.push('nullable: false, but the column accepts NULL')
  if (typeof field.maxLength === 'number' && column.maxLength !== undefined && field.maxLength > column.maxLength) {
    problems.push(`maxLength ${field.maxLength}, the column holds ${column.maxLength}`)
  }
  if (Array.isArray(field.enum) && column.enum) {
    const extra = (field.enum as unknown[]).filter((value) => !column.enum!.includes(String(value)))
    if (extra.length > 0) problems.push(`enum value(s) ${extra.join(', ')} the column does not accept`)
  }
  return problems
}

function checkReference(
  field: LooseField,
  column: string,
  table: CatalogTable,
  tableOf: ReadonlyMap<string, string>,
  catalog: ReadonlyMap<string, CatalogTable>,
): string[] {
  const key = table.foreignKeys.find((candidate) => candidate.columns.length === 1 && candidate.columns[0] === column)
  const declared = typeof field.references === 'string' ? tableOf.get(field.references) : undefined
  if (typeof field.references === 'string') {
    if (!key) return [`references ${field.references}, but the column has no foreign key`]
    if (key.referencedTable !== declared) return [`references ${field.references}, but the foreign key points at ${key.referencedTable}`]
    if (key.referencedColumns[0] !== catalog.get(key.referencedTable)?.primaryKey[0]) {
      return [`the foreign key points at ${key.referencedTable}.${key.referencedColumns.join(', ')}, not its primary key`]
    }
    if (field.onDelete !== undefined && field.onDelete !== key.onDelete)
      return [`onDelete ${String(field.onDelete)}, the foreign key's is ${key.onDelete}`]
    return []
  }
  const served = key && [...tableOf.values()].includes(key.referencedTable)
  return served ? [`the column has a foreign key to ${key.referencedTable}; declare references`] : []
}

function checkCollection(
  name: string,
  definition: CollectionDefinition,
  catalog: ReadonlyMap<string, CatalogTable>,
  tableOf: ReadonlyMap<string, string>,
): string[] {
  const tableName = tableOf.get(name)!
  const table = catalog.get(tableName)
  if (!table) return [`${name}: the table "${tableName}" does not exist`]
  const problems: string[] = []
  for (const [fieldName, definitionOfField] of Object.entries(definition.fields as Record<string, FieldDefinition>)) {
    if (!isPlainObject(definitionOfField) || definitionOfField.type === 'o2m') continue
    const field = definitionOfField as LooseField
    const column = table.columns.find((candidate) => candidate.name === fieldName)
    const where = `${name}.${fieldName}`
    if (!column) {
      problems.push(`${where}: the column "${fieldName}" does not exist in ${tableName}`)
      continue
    }
    for (const problem of [...checkColumn(field, column), ...checkReference(field, fieldName, table, tableOf, catalog)]) {
      problems.push(`${where}: ${problem}`)
    }
  }
  return problems
}

/**
 * Compares `collections` with the database behind `knex` and throws one ConfigError
 * (`CONFIG_SCHEMA_MISMATCH`) listing every mismatch: a missing table or column, a type the column cannot hold,
 * a decimal's scale or precision, nullability, a longer maxLength, enum values, and foreign keys (declared
 * without one in the database, pointing elsewhere, or present but not declared). Run it before `listen`.
 */
export async function checkCollections(
  knex: Knex,
  collections: Readonly<Record<string, CollectionDefinition>>,
  options: { schema?: string } = {},
): Promise<void> {
  const catalog = new Map((await readCatalog(knex, options.schema)).map((table) => [table.name, table]))
  const tableOf = new Map(Object.entries(collections).map(([name, definition]) => [name, definition.table ?? name]))
  const problems = Object.entries(collections).flatMap(([name, definition]) => checkCollection(name, definition, catalog, tableOf))
  if (problems.length > 0) {
    throw new ConfigError(
      'CONFIG_SCHEMA_MISMATCH',
      `the collections do not match the database (${problems.length} mismatch${problems.length === 1 ? '' : 'es'}):\n  ${problems.join('\n  ')}\n`,
    )
  }
}
