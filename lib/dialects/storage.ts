// Converts canonical API values to bound parameters, and selects columns so they read back canonically.
import type { Knex } from 'knex'
import type { Collection, Field } from '../schema/collection'
import type { Dialect, SqlFragment, ArraySupport } from './dialect'
import { type Geometry, geometryToStorage } from '../schema/geometry-value'
import { keyComponents } from '../schema/item-key'
import type { PrimaryKey } from '../types'

/** The SQL of a field holding several values (a PostgreSQL array, a MySQL SET), or null for a scalar field. */
export function elementsOf(field: Field, dialect: Dialect): ArraySupport | null {
  return field.type === 'array' ? dialect.arrays : field.type === 'set' ? dialect.sets : null
}

/**
 * A canonical value as bound in a comparison with `columnValue(field)`: the form the router writes by default,
 * which is also what a column stored in another form (`storage`) is read as.
 */
export function toComparable(field: Field, value: unknown, dialect: Dialect): Knex.Value {
  if (value === null || value === undefined) return null
  switch (field.type) {
    case 'dateTime':
      return String(value).replace('T', ' ')
    case 'timestamp':
      return dialect.timestampToStorage(String(value))
    case 'json':
      return JSON.stringify(value)
    case 'array':
    case 'set':
      return elementsOf(field, dialect)!.toStorage(value as unknown[])
    case 'binary':
      return Buffer.from(String(value), 'base64')
    case 'geometry':
      return geometryToStorage(value as Geometry)
    default:
      return value as Knex.Value
  }
}

/** A canonical value (see schema/field-types.ts) as the parameter written to `field`'s column. */
export function toStorage(field: Field, value: unknown, dialect: Dialect): Knex.Value {
  const comparable = toComparable(field, value, dialect)
  return field.storage === 'isoText' || comparable === null
    ? comparable
    : dialect.temporalToStorage(field.type, field.storage, String(comparable))
}

/** `key`'s components as stored, in the key's field order (one for a key of one field): what a statement binds for it. */
export function storedKey(collection: Collection, key: PrimaryKey, dialect: Dialect): Knex.Value[] {
  const components = collection.key.length === 1 ? [key] : keyComponents(collection, key)
  return collection.key.map((field, index) => toStorage(field, components[index], dialect))
}

/**
 * What the SQL of a read reads, compares, sorts and groups for `field`'s `column` (bare or table-qualified):
 * the column itself, an enum's as text, or for a temporal field stored in another form the dialect's canonical
 * reading of it.
 */
export function columnValue(field: Field, column: string, dialect: Dialect): SqlFragment {
  const plain: SqlFragment = { sql: '??', bindings: [column] }
  if (field.enum !== undefined) return dialect.enumText(plain)
  return field.storage === 'isoText' ? plain : dialect.storedTemporal(field.type, plain)
}

/**
 * A column in a SELECT list, aliased to the field's name; with `from`, the column of the table or alias
 * `from.table`, aliased to `from.output`.
 */
export function selectColumn(knex: Knex, field: Field, dialect: Dialect, from?: { table: string; output: string }): string | Knex.Raw {
  const column = from ? `${from.table}.${field.column}` : field.column
  const output = from ? from.output : field.name
  const elements = field.type === 'geometry' ? dialect.spatial : elementsOf(field, dialect)
  if (elements) {
    const { sql, bindings } = elements.select(column)
    return knex.raw(`${sql} as ??`, [...bindings, output])
  }
  if (field.storage !== 'isoText') {
    const { sql, bindings } = columnValue(field, column, dialect)
    const read = dialect.readAsText.has(field.type) ? dialect.textCast.replace('??', sql) : sql
    return knex.raw(`${read} as ??`, [...bindings, output])
  }
  return dialect.readAsText.has(field.type) ? knex.raw(`${dialect.textCast} as ??`, [column, output]) : `${column} as ${output}`
}

/**
 * A value read from `field`'s column to its canonical JSON form: the dialect undoes its driver's quirks first.
 * Most values a read returns are already canonical (see FieldTypeSpec.readsAsItself) and pass as they are.
 */
export function fromStorage(field: Field, raw: unknown, dialect: Dialect): unknown {
  if (raw === null || raw === undefined) return null
  return typeof raw === field.spec.readsAsItself ? raw : field.spec.fromDatabase(dialect.readValue(raw, field.type), field)
}
