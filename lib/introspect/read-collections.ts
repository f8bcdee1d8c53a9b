// Turns the database's catalog into collection definitions: readCollections (what the router serves) and
// describeDatabase (the same, with what was left out and why). Every SQL question lives in the dialects' catalog readers.
import type { Knex } from 'knex'
import { ConfigError } from '../errors'
import { readCatalog, type CatalogColumn, type CatalogTable } from './read-catalog'
import type {
  CollectionDefinition,
  Collections,
  DatabaseDescription,
  FieldDefinition,
  FieldType,
  ReadCollectionsOptions,
  ScalarFieldDefinition,
  SkippedTable,
  TableSelection,
} from '../types'
import { FIELD_TYPES } from '../schema/field-types'

type Fields = Record<string, FieldDefinition>

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function selects(selection: TableSelection | undefined, table: string): boolean | undefined {
  if (selection === undefined) return undefined
  return typeof selection === 'function' ? selection(table) : selection.includes(table)
}

/** The field a column of a known type reads as. */
function fieldOf(column: CatalogColumn & { type: FieldType }, primaryKey: boolean, composite: boolean): ScalarFieldDefinition {
  const field: ScalarFieldDefinition = { type: column.type }
  if (column.elementType) field.elementType = column.elementType
  if (primaryKey) field.primaryKey = true
  // A composite key's components are all named by a create, even one the database could number.
  if (primaryKey && column.autoIncrement && !composite) field.autoIncrement = true
  if (!primaryKey && !column.nullable) field.nullable = false
  if (column.default !== undefined) field.default = column.default
  // A computed default (now(), a sequence) is unknown in advance; `null` tells the router the column need not be sent.
  else if (column.defaultExpression !== undefined && !column.nullable && !primaryKey) field.default = null
  if (column.maxLength !== undefined) field.maxLength = column.maxLength
  if (column.precision !== undefined) field.precision = column.precision
  if (column.scale !== undefined) field.scale = column.scale
  if (column.enum) field.enum = column.enum
  if (column.unique && !primaryKey) field.unique = true
  if (column.generated) Object.assign(field, { generated: true, readonly: true })
  if (column.storage) field.storage = column.storage
  return field
}

/** Why a table cannot be a collection, or null. A view needs `viewKeys` to name its key. */
function unservable(table: CatalogTable, viewKey: string | undefined): string | null {
  const key = table.view ? (viewKey === undefined ? [] : [viewKey]) : table.primaryKey
  if (table.view && viewKey === undefined) return 'a view has no primary key: name its key column in `viewKeys` to serve it read-only'
  if (key.length === 0) return 'no primary key'
  for (const name of key) {
    const column = table.columns.find((candidate) => candidate.name === name)
    if (!column) return `key column "${name}" does not exist`
    if (column.type === null || column.type === 'array' || !FIELD_TYPES[column.type].keyable) {
      return `primary key "${column.name}" is ${column.dbType}; a key must be an integer, bigInteger, string or uuid`
    }
  }
  return null
}

interface Reading {
  readonly tables: Map<string, CatalogTable>
  readonly collections: Map<string, Fields>
  readonly skipped: SkippedTable[]
  readonly removed: (table: string, field: string) => boolean
}

/**
 * Why leaving `column` out makes every create on its table fail, or null: the database needs a value for it and has
 * none of its own to give.
 */
function createsFailWithout(table: CatalogTable, column: CatalogColumn): string | null {
  const needed = !column.nullable && column.default === undefined && column.defaultExpression === undefined
  if (table.view || !needed || column.autoIncrement || column.generated) return null
  return `NOT NULL without a default: every create on ${table.name} fails unless a trigger fills it; give the column a default in the database, or serve it through \`overrides\``
}

function readFields(table: CatalogTable, key: readonly string[], reading: Reading): Fields {
  const fields: Fields = {}
  for (const column of table.columns) {
    const createsFail = createsFailWithout(table, column)
    if (reading.removed(table.name, column.name)) {
      // Left out on purpose, but the owner may not know the table then refuses every create.
      if (createsFail) reading.skipped.push({ table: table.name, column: column.name, reason: `left out by overrides, but ${createsFail}` })
      continue
    }
    const { type } = column
    if (type === null || (type === 'array' && column.elementType === undefined)) {
      const reason = column.unserved ?? `type ${column.dbType} has no field type`
      reading.skipped.push({ table: table.name, column: column.name, reason: createsFail ? `${reason}; ${createsFail}` : reason })
      continue
    }
    // A view is never written, so its defaults mean nothing to the router.
    const field = fieldOf(
      table.view ? { ...column, type, default: undefined, defaultExpression: undefined } : { ...column, type },
      key.includes(column.name),
      key.length > 1,
    )
    fields[column.name] = table.view ? { ...field, readonly: true } : field
  }
  return fields
}

/** Foreign keys become many-to-ones when both ends are served and the key points at the other table's primary key. */
function linkForeignKeys(reading: Reading): Array<{ table: string; column: string; target: string }> {
  const links: Array<{ table: string; column: string; target: string }> = []
  for (const [name, fields] of reading.collections) {
    for (const key of reading.tables.get(name)!.foreignKeys) {
      const column = key.columns[0]!
      const target = reading.tables.get(key.referencedTable)
      const skip = (reason: string): void => void reading.skipped.push({ table: name, column: key.columns.join(', '), reason })
      if (key.columns.length > 1) skip(`composite foreign key to ${key.referencedTable}: not a relation`)
      else if (!target || !reading.collections.has(target.name))
        skip(`foreign key to ${key.referencedTable}, which is not served: a plain field`)
      else if (target.primaryKey.length > 1)
        skip(`foreign key to ${key.referencedTable}, whose primary key has ${target.primaryKey.length} columns: a plain field`)
      else if (key.referencedColumns[0] !== target.primaryKey[0])
        skip(`foreign key to ${key.referencedTable}.${key.referencedColumns.join(', ')}, not its primary key: a plain field`)
      else if (fields[column]) {
        const field = fields[column] as ScalarFieldDefinition
        const keyType = (reading.collections.get(target.name)![target.primaryKey[0]!] as ScalarFieldDefinition).type
        if (FIELD_TYPES[field.type].family !== FIELD_TYPES[keyType].family)
          skip(`foreign key ${field.type} to a ${keyType} key: a plain field`)
        else {
          Object.assign(field, { references: target.name, onDelete: key.onDelete })
          links.push({ table: name, column, target: target.name })
        }
      }
    }
  }
  // Sorted by referencing table and column, whatever order the catalog lists keys in, so alias names are stable.
  return links.sort((a, b) => compare(a.table, b.table) || compare(a.column, b.column))
}

/**
 * The one-to-many alias each many-to-one gets on the collection it references: the referencing table's name
 * (`authors.articles` for `articles.author`); `<table>_by_<column>` when that table references it more than
 * once or the name is taken; then `_2`, `_3`, … until the name is free. Links come sorted, so names are stable.
 */
function addAliases(links: ReturnType<typeof linkForeignKeys>, reading: Reading): void {
  for (const link of links) {
    const fields = reading.collections.get(link.target)!
    const twice = links.filter((other) => other.table === link.table && other.target === link.target).length > 1
    let name = twice || Object.hasOwn(fields, link.table) ? `${link.table}_by_${link.column}` : link.table
    for (let n = 2; Object.hasOwn(fields, name); n++) name = `${link.table}_by_${link.column}_${n}`
    if (!reading.removed(link.target, name)) fields[name] = { type: 'o2m', collection: link.table, foreignKey: link.column }
  }
}

function applyOverrides(collections: Record<string, CollectionDefinition>, options: ReadCollectionsOptions): void {
  for (const [name, override] of Object.entries(options.overrides ?? {})) {
    const collection = collections[name]
    if (!collection) throw new ConfigError('CONFIG_BAD_OVERRIDE', `overrides.${name}: the database has no table "${name}" to serve`)
    const { fields: fieldOverrides, ...rest } = override
    Object.assign(collection, rest)
    for (const [field, change] of Object.entries(fieldOverrides ?? {})) {
      if (change === false) continue
      const read = collection.fields[field]
      collection.fields[field] = (read ? { ...read, ...change } : change) as FieldDefinition
    }
  }
}

/** The collections a catalog's tables make, and what was left out of them, with the reason. */
export function collectionsFromCatalog(catalog: readonly CatalogTable[], options: ReadCollectionsOptions = {}): DatabaseDescription {
  const removals = options.overrides ?? {}
  const reading: Reading = {
    tables: new Map(catalog.map((table) => [table.name, table])),
    collections: new Map(),
    skipped: [],
    removed: (table, field) => removals[table]?.fields?.[field] === false,
  }
  for (const table of catalog) {
    if (selects(options.include, table.name) === false || selects(options.exclude, table.name) === true) continue
    const viewKey = options.viewKeys?.[table.name]
    const reason = unservable(table, viewKey)
    if (reason) reading.skipped.push({ table: table.name, reason })
    else reading.collections.set(table.name, readFields(table, viewKey === undefined ? table.primaryKey : [viewKey], reading))
  }
  addAliases(linkForeignKeys(reading), reading)
  const collections: Record<string, CollectionDefinition> = {}
  for (const [name, fields] of reading.collections) {
    // A view is served for reading only; the router refuses its writes with 403 FORBIDDEN.
    collections[name] = reading.tables.get(name)!.view ? { fields, access: { read: true } } : { fields }
  }
  applyOverrides(collections, options)
  return { collections, skipped: reading.skipped }
}

/** The collections the database's tables make, and what was left out of them, with the reason. */
export async function describeDatabase(knex: Knex, options: ReadCollectionsOptions = {}): Promise<DatabaseDescription> {
  return collectionsFromCatalog(await readCatalog(knex, options.schema), options)
}

/**
 * The collections the database's tables make, for `createItemsRouter({ collections: await readCollections(knex) })`.
 * What cannot be served (tables without a primary key, views without `viewKeys`, columns of types without a
 * field type, composite foreign keys) is left out and reported through `options.logger.warn`.
 */
export async function readCollections(knex: Knex, options: ReadCollectionsOptions = {}): Promise<Collections> {
  const { collections, skipped } = await describeDatabase(knex, options)
  const logger = options.logger ?? console
  for (const entry of skipped) logger.warn(`readCollections: ${entry.table}${entry.column ? `.${entry.column}` : ''}: ${entry.reason}`)
  return collections
}
