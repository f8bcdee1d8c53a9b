// What a database's catalog says about its tables, in one shape for the three databases; each
// `*-catalog.ts` reads its own catalog into it. read-collections.ts turns it into collections.
import type { Knex } from 'knex'
import type { FieldType, OnDeleteAction } from '../types'

/** A foreign key's ON DELETE action, in the router's spelling. */
export type DeleteAction = OnDeleteAction

export interface CatalogColumn {
  readonly name: string
  /** The type as the database spells it (`numeric(10,2)`, `text[]`, `enum('a','b')`), for reports and comments. */
  readonly dbType: string
  /** The field type the column reads as, or null when none fits (the column is then left out and reported). */
  readonly type: FieldType | null
  /** Where `type` is null: why, and what the owner can do instead (see `unservedReason`). */
  readonly unserved?: string
  /** For `array` columns: the element's field type. */
  readonly elementType?: FieldType
  /** Every field type a hand-written configuration may give the column (checkCollections); `type` among them. */
  readonly accepts: readonly FieldType[]
  readonly nullable: boolean
  /** A constant default in the API's form (`'draft'`, `0`, `true`); undefined when none or computed. */
  readonly default?: unknown
  /** A default the database computes (`now()`, `gen_random_uuid()`, a sequence), as it spells it. */
  readonly defaultExpression?: string
  readonly maxLength?: number
  readonly precision?: number
  readonly scale?: number
  /** The values an enum column (or a recognisable `CHECK (col IN (...))`) accepts. */
  readonly enum?: readonly string[]
  /** The database assigns the value when a create omits it (serial, identity, AUTO_INCREMENT, SQLite rowid). */
  readonly autoIncrement: boolean
  /** The database computes the value and refuses writes (GENERATED ALWAYS identity, generated columns). */
  readonly generated: boolean
  /** A unique constraint or index on this column alone. */
  readonly unique: boolean
  /** SQLite: how the stored date values look (sampled); undefined elsewhere or when the column is empty. */
  readonly storage?: 'isoText' | 'sqlText' | 'epochMs'
}

export interface CatalogForeignKey {
  /** The referencing column (single-column keys only; composite ones are reported by the reader's caller). */
  readonly columns: readonly string[]
  readonly referencedTable: string
  readonly referencedColumns: readonly string[]
  readonly onDelete: DeleteAction
}

export interface CatalogTable {
  readonly name: string
  readonly view: boolean
  /** In the table's column order. */
  readonly columns: readonly CatalogColumn[]
  /** The primary key's columns, in key order; empty when there is none. */
  readonly primaryKey: readonly string[]
  readonly foreignKeys: readonly CatalogForeignKey[]
}

/** Reads every table and view of `schema` (PostgreSQL; default `current_schema()`) or of the connection's database. */
export type CatalogReader = (knex: Knex, schema?: string) => Promise<CatalogTable[]>

const DELETE_ACTIONS: Readonly<Record<string, DeleteAction>> = {
  'NO ACTION': 'noAction',
  RESTRICT: 'restrict',
  CASCADE: 'cascade',
  'SET NULL': 'setNull',
  'SET DEFAULT': 'setDefault',
}

/** The router's spelling of an ON DELETE action as information_schema and SQLite's pragma spell it. */
export function deleteAction(rule: string): DeleteAction {
  return DELETE_ACTIONS[rule.toUpperCase()] ?? 'noAction'
}

/** Text types that hold each other's values: a hand-written `string` over a `text` column is fine, and back. */
const TEXTUAL: readonly FieldType[] = ['string', 'text']

/** The field types a configuration may give a column whose type reads as `type`. */
export function acceptedTypes(type: FieldType | null, extra: readonly FieldType[] = []): FieldType[] {
  const base: FieldType[] = type === null || type === 'array' ? [] : [type]
  if (type === 'string' || type === 'text') base.push(...TEXTUAL)
  if (type === 'integer' || type === 'bigInteger') base.push('integer', 'bigInteger')
  return [...new Set([...base, ...extra])]
}

/**
 * A constant default in the API's form, from the literal text the catalog holds (quotes and casts removed), or
 * undefined when the text is no constant of the type.
 */
export function literalDefault(text: string, type: FieldType | null): unknown {
  switch (type) {
    case 'integer':
    case 'float':
      return /^[-+]?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(text) ? Number(text) : undefined
    case 'bigInteger':
    case 'decimal':
      return /^[-+]?\d+(\.\d+)?$/.test(text) ? text : undefined
    case 'boolean':
      if (/^(true|1|'1'|t)$/i.test(text)) return true
      return /^(false|0|'0'|f)$/i.test(text) ? false : undefined
    case 'json':
      try {
        return JSON.parse(text) as unknown
      } catch {
        return undefined
      }
    case 'set':
      return text === '' ? [] : text.split(',')
    case null:
    case 'array':
      return undefined
    default:
      return text
  }
}

/**
 * Why a column of type `dbType` is left out, and what to do: `advice` where the reader knows the type's kind, else
 * the two ways that always work.
 */
export function unservedReason(dbType: string, advice?: string): string {
  return `type ${dbType} has no field type: ${
    advice ?? 'leave it out (`false` in `overrides`), or serve a view that casts it to a type the router reads, with `viewKeys`'
  }`
}

/** A single-quoted SQL string list (`'a', 'it''s'`) as its values. */
export function quotedValues(list: string): string[] {
  return [...list.matchAll(/'((?:[^']|'')*)'/g)].map((match) => match[1]!.replace(/''/g, "'"))
}

/**
 * The values `CHECK (column IN ('a', 'b'))` allows, found in `sql` (a CREATE TABLE statement or a check
 * clause), or undefined. The column may be quoted with "", `` or [].
 */
export function checkedValues(sql: string, column: string): string[] | undefined {
  const name = escapeRegExp(column)
  const pattern = new RegExp(`\\(\\s*["\`[]?${name}["\`\\]]?\\s+in\\s*\\(((?:\\s*'(?:[^']|'')*'\\s*,?)+)\\)\\s*\\)`, 'i')
  const match = pattern.exec(sql)
  return match ? quotedValues(match[1]!) : undefined
}

/** `text` as a regular expression matching itself. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
