// The documented public types: router options, collection and field definitions, access rules and hooks.
import type { EventEmitter } from 'node:events'
import type { Request, Router } from 'express'
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
  /**
   * Who may read, create, update and delete which items and fields. Without it the collection follows the
   * router's `defaultAccess` (open unless set).
   */
  access?: Access
  /** Code run around reads and writes of the collection (see `Hooks`). */
  hooks?: Hooks
}

/**
 * The caller as the host describes it, built once per request by the `context` option and handed to every
 * access rule and hook. `user` and `role` feed the filter variables `$CURRENT_USER` (`user`, or `user.id`
 * when `user` is an object), `$CURRENT_USER.<field>` (a property of an object `user`) and `$CURRENT_ROLE`.
 */
export interface ItemsContext {
  user?: unknown
  role?: unknown
  [key: string]: unknown
}

/** A filter in the grammar of `?filter`: `{ owner: { _eq: '$CURRENT_USER' } }`. */
export type Filter = Record<string, unknown>

/** What an allowed action may touch. Every property is optional; an empty rule allows everything. */
export interface AccessRule {
  /**
   * The rows the action applies to. For `read`, rows outside it behave exactly like rows that do not exist,
   * at every relation depth. Not used by `create`.
   */
  filter?: Filter
  /**
   * `read`: the fields the caller may see (the primary key always is); others behave exactly like fields that
   * do not exist. `create` / `update`: the fields the payload may set. `'*'` or absent: all.
   */
  fields?: '*' | readonly string[]
  /** `create` / `update`: values written underneath the payload (the payload wins), e.g. `{ owner: '$CURRENT_USER' }`. */
  presets?: Record<string, unknown>
  /**
   * `create` / `update`: a filter the written values must satisfy, e.g. `{ status: { _in: ['draft', 'review'] } }`.
   * A create is checked as the row will hold it (fields left out: their default, or null); an update only for
   * the fields it sets.
   */
  validation?: Filter
}

/** `true` allows, `false` denies (403 `FORBIDDEN`), a rule allows within limits. */
export type AccessDecision = boolean | AccessRule

/** A decision, or a function of the caller's context (sync or async) returning one. */
export type AccessEntry = AccessDecision | ((context: ItemsContext) => AccessDecision | Promise<AccessDecision>)

/** One entry per action; an action left out is denied. */
export interface Access {
  read?: AccessEntry
  create?: AccessEntry
  update?: AccessEntry
  delete?: AccessEntry
}

/** What every hook receives beside its value. */
export interface HookMeta {
  /** The collection's name. */
  collection: string
  context: ItemsContext
  /** The write's open transaction (run your own statements in it to stay all-or-nothing); for reads the router's knex. */
  db: Knex | Knex.Transaction
  /**
   * Aborted when the hook's time is up (`hookTimeout`) or its client has gone away; pass it to your own I/O
   * (`fetch(url, { signal })`) so it stops too. The router stops waiting for the hook either way.
   */
  signal: AbortSignal
}

/** What an after hook receives beside its event. */
export interface AfterHookMeta {
  /** Aborted when the hook's time is up (`hookTimeout`); the response does not wait longer. */
  signal: AbortSignal
}

/** A before hook: answers a changed value, or nothing to keep the one given; throws to abort (an `ItemsError` picks the response). */
export type BeforeHook<T, M = HookMeta> = (value: T, meta: M) => T | void | Promise<T | void>

/**
 * Code run around the collection's reads and writes. Order of a write: parse → access → before hook →
 * validate → write → commit → after hook and events → response.
 */
export interface Hooks {
  /** The query parameters of a read (`fields`, `filter`, ...), before they are parsed again and access rules applied. */
  beforeRead?: BeforeHook<Record<string, unknown>>
  /** Each created item's payload as sent (array bodies: one call per item), inside the transaction. */
  beforeCreate?: BeforeHook<Item>
  /** The changes as sent, once per set of items that get them, inside the transaction; `meta.keys` names the items. */
  beforeUpdate?: BeforeHook<Item, HookMeta & { keys: PrimaryKey[] }>
  /** The keys about to be deleted, inside the transaction. */
  beforeDelete?: BeforeHook<PrimaryKey[]>
  /** After commit; a failure is logged and does not change the response. Events are emitted right after. */
  afterCreate?: (event: ItemsEvent, meta: AfterHookMeta) => void | Promise<void>
  afterUpdate?: (event: ItemsEvent, meta: AfterHookMeta) => void | Promise<void>
  afterDelete?: (event: ItemsEvent, meta: AfterHookMeta) => void | Promise<void>
}

/** What a write does; access rules, hooks and events are keyed by it. */
export type WriteAction = 'create' | 'update' | 'delete'

/** A committed write, as after hooks and events receive it. */
export interface ItemsEvent {
  action: WriteAction
  collection: string
  /** The items written, in order. */
  keys: PrimaryKey[]
  /** create / update: the values written to `keys[i]` (presets and hook changes included). delete: empty. */
  payloads: Item[]
  context: ItemsContext
}

/**
 * The router's events: `items.create`, `items.update`, `items.delete` for every collection and
 * `<collection>.items.create` (...) for one, each with an `ItemsEvent`, emitted after commit. A listener that
 * throws (or an async one that rejects) is logged.
 */
export type ItemsEvents = EventEmitter

/** The Express router `createItemsRouter` returns, with its event emitter. */
export interface ItemsRouter extends Router {
  readonly events: ItemsEvents
}

/** Where the router reports errors it does not send to the client (unexpected 500s). */
export interface Logger {
  error(message: string, error?: unknown): void
  warn(message: string): void
}

export interface ItemsRouterOptions extends LimitOptions {
  /**
   * The host's knex instance (better-sqlite3, pg or mysql2 client). The router never opens or closes connections.
   * On SQLite, its `pool.afterCreate` must call `prepareSqliteConnection`.
   */
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
  /**
   * Builds the caller's context once per request (sync or async), typically from what the host's own
   * authentication put on `req`. Throwing an `ItemsError` answers with it; other errors are a 500.
   *
   * @default () => ({})
   */
  context?: (req: Request) => ItemsContext | Promise<ItemsContext>
  /**
   * The access of collections without their own `access`: `true` (open; the host protects the mount path),
   * `false` (every action denied) or an `Access` object.
   *
   * @default true
   */
  defaultAccess?: boolean | Access
  /**
   * Longest a single SQL statement of a request may run, in milliseconds, on PostgreSQL and MySQL/MariaDB. The
   * statement is then cancelled on the server, its connection goes back to the pool, a write's transaction rolls
   * back, and the request answers 504 `QUERY_TIMEOUT`. A statement also stops when its client disconnects.
   * SQLite cannot interrupt a statement, so there the router bounds the shape of requests instead (README,
   * "Time limits"). `0` turns the limit off.
   *
   * @default 30000
   */
  statementTimeout?: number
  /**
   * Longest a hook may take, in milliseconds. A before hook past it aborts the request: its `meta.signal`
   * aborts, the transaction rolls back and the request answers 504 `HOOK_TIMEOUT`. An after hook past it is
   * logged and the response goes out anyway. `0` turns the limit off.
   *
   * @default 10000
   */
  hookTimeout?: number
}

/** An item as the API returns it: field names to JSON values. */
export type Item = Record<string, unknown>

/** A primary key value as it appears in URLs and payloads. */
export type PrimaryKey = string | number
