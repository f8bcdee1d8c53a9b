// The documented public types: router options, collection and field definitions.
import type { Knex } from 'knex'

/** The column types a field can have. Each maps to one JSON representation, identical on every database. */
export type FieldType =
  /** Short text. JSON string. */
  | 'string'
  /** Long text. JSON string. */
  | 'text'
  /** 32-bit integer. JSON number. */
  | 'integer'
  /** 64-bit integer. JSON string, so that no digit is lost. Accepts a number or a string of digits. */
  | 'bigInteger'
  /** Double-precision float. JSON number. */
  | 'float'
  /** Exact decimal. JSON string (`"12.50"`). Accepts a number or a numeric string. */
  | 'decimal'
  /** JSON `true` / `false`. */
  | 'boolean'
  /** Calendar date, `YYYY-MM-DD`. */
  | 'date'
  /** Wall-clock date and time without a zone, `YYYY-MM-DDTHH:mm:ss`. */
  | 'dateTime'
  /** An instant, rendered as ISO-8601 UTC (`2024-05-01T10:00:00.000Z`). Input may carry any offset. */
  | 'timestamp'
  /** Time of day, `HH:mm:ss`. */
  | 'time'
  /** Any JSON value, stored as JSON text (or a native JSON column). */
  | 'json'
  /** A UUID string, rendered lower-case. */
  | 'uuid'

/** A field backed by a column of the collection's table. */
export interface ScalarFieldDefinition {
  type: FieldType
  /** The field is the collection's primary key. Exactly one field per collection must be. @default false */
  primaryKey?: boolean
  /** The database assigns the value (integer primary keys). An explicit value on create is still honoured. @default false */
  autoIncrement?: boolean
  /** `null` is an accepted value. @default true (primary keys: false) */
  nullable?: boolean
  /**
   * The value the database gives the column when a create omits it. The router never writes it itself; it
   * uses it to decide which fields a create requires and to answer a singleton read before the row exists.
   */
  default?: unknown
  /** Longest accepted string, in characters (`string`, `text`). */
  maxLength?: number
  /** For `decimal`: digits after the point in every response (`"12.50"`). Without it trailing zeros are trimmed. */
  scale?: number
  /** The field is returned but never accepted in a create or update payload. @default false */
  readonly?: boolean
  /** The field is never returned, filtered, sorted or searched; it can still be written. @default false */
  hidden?: boolean
  /**
   * Makes the field a many-to-one: its value is the primary key of an item of the named collection.
   * Writes are checked against it (400 `INVALID_FOREIGN_KEY`) on every database.
   */
  references?: string
}

/** A one-to-many alias: no column; the related collection holds a many-to-one `foreignKey` pointing back. */
export interface O2MFieldDefinition {
  type: 'o2m'
  /** The related collection. */
  collection: string
  /** The many-to-one field in the related collection that references this collection. */
  foreignKey: string
}

export type FieldDefinition = ScalarFieldDefinition | O2MFieldDefinition

/** Limits that can be set for the whole router and overridden per collection. */
export interface LimitOptions {
  /**
   * Page size when a read gives no `limit`.
   *
   * @default 100
   */
  defaultLimit?: number
  /**
   * Largest `limit` a read may ask for; a larger one is a 400 `INVALID_QUERY`, and `limit=-1` is capped to it.
   * Without it `limit=-1` returns every row.
   *
   * @default undefined (no cap)
   */
  maxLimit?: number
  /**
   * Most items one write may create, update or delete (an array body, a `keys` list, or the rows a `query`
   * matches). A larger batch is a 400 and nothing is written.
   *
   * @default 1000
   */
  maxBatchSize?: number
}

export interface CollectionDefinition extends LimitOptions {
  /** The table behind the collection. @default the collection's name */
  table?: string
  /**
   * The collection holds one item: `GET /items/<name>` answers an object, `PATCH` updates or creates it, and
   * `POST` is not served.
   *
   * @default false
   */
  singleton?: boolean
  /**
   * Content versions (named drafts) can be saved for the collection's items through `/versions`, and read
   * with `?version=<key>`. Needs the versions table (see `createVersionsTable`).
   *
   * @default false
   */
  versioning?: boolean
  /** The collection's fields. Only these are readable, writable, filterable, sortable or searchable. */
  fields: Record<string, FieldDefinition>
  /**
   * A JSON Schema fragment merged (as `allOf`) into the validator generated from the field definitions, for
   * rules the field types cannot say. Its `required` list applies to creates only.
   *
   * @example { properties: { email: { format: 'email' } } }
   */
  schema?: Record<string, unknown>
}

/** Where the router reports errors it does not send to the client (unexpected 500s). */
export interface Logger {
  error(message: string, error?: unknown): void
  warn(message: string): void
}

export interface ItemsRouterOptions extends LimitOptions {
  /** The host's knex instance (better-sqlite3, pg or mysql2 client). The router never opens or closes connections. */
  knex: Knex
  /** The collections to serve, by name. Nothing else is reachable. */
  collections: Record<string, CollectionDefinition>
  /**
   * Largest JSON body accepted, in bytes or as a string such as `'1mb'`; a larger one is a 413 `PAYLOAD_TOO_LARGE`.
   *
   * @default '1mb'
   */
  bodyLimit?: number | string
  /**
   * Deepest nesting of `_and` / `_or` groups in a filter.
   *
   * @default 10
   */
  maxFilterDepth?: number
  /**
   * Most values in one `_in` / `_nin` list.
   *
   * @default 1000
   */
  maxInListLength?: number
  /**
   * Most query-string parameters one request may carry (counted by `qs`).
   *
   * @default 1000
   */
  maxQueryParameters?: number
  /**
   * Most relations one `fields` path may cross (`comments.author.name` crosses two).
   *
   * @default 10
   */
  maxRelationalDepth?: number
  /**
   * Most relations one request may expand (each costs one statement); `*.*.*` over a rich schema grows fast.
   *
   * @default 50
   */
  maxRelations?: number
  /**
   * The table holding content versions.
   *
   * @default 'items_versions'
   */
  versionsTable?: string
  /**
   * Create the versions table on first use when it does not exist, instead of expecting the host's migrations
   * to have run `createVersionsTable()`.
   *
   * @default false
   */
  createVersionsTable?: boolean
  /**
   * Receives unexpected errors (the client only sees a generic 500).
   *
   * @default console
   */
  logger?: Logger
}

/** An item as the API returns it: field names to JSON values. */
export type Item = Record<string, unknown>

/** A primary key value as it appears in URLs and payloads. */
export type PrimaryKey = string | number
