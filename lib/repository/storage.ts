// Converts canonical API values to bound parameters, and selects columns so they read back canonically.
import type { Knex } from 'knex'
import type { Field } from '../schema/collection'
import type { Dialect } from './dialects'

/** A canonical value (see schema/field-types.ts) as the parameter bound for `field`'s column. */
export function toStorage(field: Field, value: unknown, dialect: Dialect): Knex.Value {
  if (value === null || value === undefined) return null
  switch (field.type) {
    case 'dateTime':
      return String(value).replace('T', ' ')
    case 'timestamp':
      return dialect.timestampToStorage(String(value))
    case 'json':
      return JSON.stringify(value)
    default:
      return value as Knex.Value
  }
}

/** A column in a SELECT list, aliased to the field's name. */
export function selectColumn(knex: Knex, field: Field, dialect: Dialect): string | Knex.Raw {
  return dialect.readAsText.has(field.type)
    ? knex.raw(`${dialect.textCast} as ??`, [field.column, field.name])
    : `${field.column} as ${field.name}`
}

/** A value read from `field`'s column to its canonical JSON form: the dialect undoes its driver's quirks first. */
export function fromStorage(field: Field, raw: unknown, dialect: Dialect): unknown {
  return raw === null || raw === undefined ? null : field.spec.fromDatabase(dialect.readValue(raw, field.type), field)
}
