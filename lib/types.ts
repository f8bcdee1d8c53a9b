// The documented public types: router options, collection and field definitions, access rules and hooks.
import type { EventEmitter } from 'node:events'
import type { IncomingMessage, Server } from 'node:http'
import type { Request, Router } from 'express'
import type { Knex } from 'knex'
import type { ItemShape, ItemsRole, ItemsUser, ShapeOf } from './item-types'

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
  /**
   * A PostgreSQL array column (`text[]`, `integer[]`, ...): a JSON array whose elements have the field's
   * `elementType`. PostgreSQL only; on SQLite and MySQL it is a `ConfigError` at router creation.
   */
  | 'array'
  /**
   * Bytes (MySQL BINARY/VARBINARY/BLOB, PostgreSQL bytea, SQLite BLOB): JSON string in standard base64 with
   * padding. Written from the same form, at most `maxBinaryBytes` decoded bytes. Left out of `fields=*`:
   * ask for it by name. Filters: `_null` / `_nnull`.
   */
  | 'binary'
  /**
   * A MySQL / MariaDB `SET` column: a JSON array of its allowed values (`enum`, required), each at most once,
   * answered in the column's order. MySQL and MariaDB only; elsewhere a `ConfigError` at router creation.
   */
  | 'set'
  /**
   * A MySQL / MariaDB spatial column (`geometry`, `point`, `polygon`, ...): a GeoJSON geometry object of 2D
   * positions, written with SRID 0. MySQL and MariaDB only; elsewhere a `ConfigError` at router creation.
   */
  | 'geometry'

/** How a `date`, `dateTime` or `timestamp` column stores its values on SQLite (see `ScalarFieldDefinition.storage`). */
export type TemporalStorage = 'isoText' | 'sqlText' | 'epochMs'

/** A foreign key's `ON DELETE` action (see `ScalarFieldDefinition.onDelete`). */
export type OnDeleteAction = 'noAction' | 'restrict' | 'cascade' | 'setNull' | 'setDefault'

/** A value the router writes itself (see `ScalarFieldDefinition.onCreate`). */
export type ManagedValue = 'now' | 'user'

/** A field backed by a column of the collection's table. */
export interface ScalarFieldDefinition {
  type: FieldType
  /**
   * The field is (part of) the collection's primary key. At least one field per collection must be; several make a
   * composite key, its components in definition order (see docs/reference/keys.md). @default false
   */
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
  /** Longest accepted string, in characters (`string`, `text`); for `binary`, most bytes. */
  maxLength?: number
  /** For `decimal`: digits after the point in every response (`"12.50"`). Without it trailing zeros are trimmed. */
  scale?: number
  /**
   * For `decimal`: most significant digits the column holds (`decimal(precision, scale)`); a value with more
   * digits before the point than `precision - scale` is a 400 `VALUE_OUT_OF_RANGE` on every database.
   *
   * @default 65 (the most any supported database accepts)
   */
  precision?: number
  /**
   * The field is returned but never accepted in a create or update payload sent by a client; presets and
   * before hooks may still set it (a `beforeUpdate` hook keeping `updated_at`). @default false
   */
  readonly?: boolean
  /** The field is never returned, filtered, sorted or searched; it can still be written. @default false */
  hidden?: boolean
  /**
   * Makes the field a many-to-one: its value is the primary key of an item of the named collection.
   * Writes are checked against it (400 `INVALID_FOREIGN_KEY`) on every database.
   */
  references?: string
  /**
   * Makes the field the item side of a many-to-any (the junction of a page builder): its value is the primary
   * key of an item of one of these collections, and `collectionField` names which one. Directus keeps the key
   * as text, so the field is usually a `string`; an integer or uuid field works when every listed collection
   * has keys of that type. No database can hold such a foreign key: the router checks every write (the
   * collection must be listed, the item must exist and be visible to the caller). Reads expand it per
   * collection: `fields=blocks.item:block_text.*`.
   *
   * @example { collection: { type: 'string' }, item: { type: 'string', referencesAny: ['block_text', 'block_hero'], collectionField: 'collection' } }
   */
  referencesAny?: readonly string[]
  /** For a field with `referencesAny`: the `string` field of the same collection that holds the item's collection name. */
  collectionField?: string
  /**
   * For a field with `references`: the foreign key's `ON DELETE` action. Under `noAction` and `restrict`,
   * deleting an item other items still reference is a 400 `INVALID_FOREIGN_KEY` that deletes nothing, on every
   * database, including SQLite connections without `PRAGMA foreign_keys` (the router checks the referencing
   * rows inside the delete's transaction). `cascade`, `setNull` and `setDefault` are the database's to carry
   * out; on SQLite without the pragma the router does not emulate them (README, "Existing databases").
   * Without it the router checks nothing before a delete, and the database's own refusal is answered as above.
   */
  onDelete?: OnDeleteAction
  /** For `array` fields: the type of the elements (any scalar type but `json` and `array`). */
  elementType?: FieldType
  /**
   * For `string` and `text` fields: the only values accepted (a PostgreSQL enum type, MySQL's `enum(...)`, a
   * CHECK (x IN (...))). Another value is a 400 `FAILED_VALIDATION`, before any SQL.
   */
  enum?: readonly string[]
  /** A unique constraint or index covers the column alone. Informative: the database enforces it (409 `RECORD_NOT_UNIQUE`). @default false */
  unique?: boolean
  /**
   * For `date`, `dateTime` and `timestamp` fields on SQLite, which has no date type: how the column stores its
   * values. `isoText`: ISO-8601 text, what the router writes by default. `sqlText`: `YYYY-MM-DD HH:MM:SS` text
   * (SQLite's `CURRENT_TIMESTAMP`, in UTC). `epochMs`: epoch milliseconds as an integer (what knex writes for a
   * JS `Date`). Writes use this form. With `sqlText` or `epochMs`, reads, filters, sort, date parts, `groupBy`
   * and `min`/`max` go through an expression that understands all three forms, so a column holding a mix still
   * answers right (but an index on it does not serve range filters). Ignored on PostgreSQL and MySQL, whose
   * columns are typed.
   *
   * @default 'isoText'
   */
  storage?: TemporalStorage
  /**
   * The database computes the column (an identity `GENERATED ALWAYS`, a generated or computed column): the
   * router never writes it, hooks and presets included, and a payload naming it is a 400. Implies `readonly`.
   *
   * @default false
   */
  generated?: boolean
  /**
   * A value the router writes on every create, underneath presets and the `beforeCreate` hook's answer (which
   * may still override it): `'now'`, the request's instant in the field's type (`date`, `dateTime`,
   * `timestamp`, `time`); `'user'`, the caller's `context.user` (its `id` when it is an object, null without
   * one), on a `string`, `integer`, `bigInteger` or `uuid` field. A client may not send the field (it is
   * `readonly` to clients).
   *
   * @example { created_at: { type: 'timestamp', onCreate: 'now' }, created_by: { type: 'integer', onCreate: 'user' } }
   */
  onCreate?: ManagedValue
  /**
   * As `onCreate`, on every update, underneath presets and the `beforeUpdate` hook's answer. Only updates: give
   * both (`onCreate: 'now', onUpdate: 'now'`) for an `updated_at` that a create fills too. A client may not send
   * the field.
   *
   * @example { updated_at: { type: 'timestamp', onCreate: 'now', onUpdate: 'now' } }
   */
  onUpdate?: ManagedValue
}

/** A one-to-many alias: no column; the related collection holds a many-to-one `foreignKey` pointing back. */
export interface O2MFieldDefinition {
  type: 'o2m'
  /** The related collection. */
  collection: string
  /** The many-to-one field in the related collection that references this collection. */
  foreignKey: string
  /**
   * What a nested write does to a child it detaches (a child left out of a `PATCH`'s array, or named in its
   * `delete` list): `'nullify'` sets the child's foreign key to null, `'delete'` deletes the child. Either needs
   * the caller's permission on the related collection (update of the foreign key, or delete). `'nullify'` on a
   * foreign key that is not `nullable` is refused when the router is created.
   *
   * @default 'nullify' when the foreign key is nullable, else 'delete' (a junction row means nothing without its parent)
   */
  onDetach?: DetachAction
}

/** What a nested write does to a child it detaches (see `O2MFieldDefinition.onDetach`). */
export type DetachAction = 'nullify' | 'delete'

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
   * Most rows one list (a page, or one parent's related items) may hold. An explicit larger `limit` (or
   * `deep[rel][_limit]`) is a 400 `INVALID_QUERY` naming `maxLimit`; `-1` means "as many as `maxLimit` allows".
   *
   * @default 1000
   */
  maxLimit?: number
  /**
   * Most items one write may create, update or delete (an array body, a `keys` list, or the rows a `query`
   * matches; with nested values, every nested row at every level, detached children included). A larger batch
   * is a 400 and nothing is written.
   *
   * @default 1000
   */
  maxBatchSize?: number
}

/**
 * A collection. `F`, its fields, keeps their literal types where the definition is written with
 * `defineCollection()`, `as const` or `satisfies`, so `ItemOf` and the router's events know the item type.
 * `defineCollection()` also types the hooks and access rules (see `TypedCollectionDefinition`).
 */
export interface CollectionDefinition<
  F extends Readonly<Record<string, FieldDefinition>> = Record<string, FieldDefinition>,
> extends LimitOptions {
  /** The table behind the collection. @default the collection's name */
  table?: string
  /**
   * The collection holds one item: `GET /items/<name>` answers an object, `PATCH` updates or creates it, and
   * `POST` is not served. With an `autoIncrement` primary key the item is created with key 1, so creators on
   * servers the singleton lock does not span (Galera nodes) collide and the later one updates it.
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
  /**
   * Payloads to this collection as clients built for Directus send them (see the router's `lenientPayloads`).
   *
   * @default the router's `lenientPayloads`
   */
  lenientPayloads?: boolean
  /** The collection's fields. Only these are readable, writable, filterable, sortable or searchable. */
  fields: F
  /**
   * A JSON Schema fragment merged (as `allOf`) into the validator generated from the field definitions, for
   * rules the field types cannot say. Its `required` list applies to creates only.
   *
   * @example { properties: { email: { format: 'email' } } }
   */
  schema?: Record<string, unknown>
  /**
   * Who may read, create, update and delete which items and fields. Without it the collection follows the
   * router's `defaultAccess`, and without that it is read-only.
   */
  access?: Access
  /** Code run around reads and writes of the collection (see `Hooks`). */
  hooks?: Hooks
}

/**
 * What `defineCollection()` accepts: a collection whose hooks see its item, payload and key types and whose
 * access rules may only name its fields. It is kept apart from `CollectionDefinition` because TypeScript would
 * otherwise refuse a typed collection where an untyped one is expected.
 */
export interface TypedCollectionDefinition<F extends Readonly<Record<string, FieldDefinition>>> extends Omit<
  CollectionDefinition<F>,
  'access' | 'hooks'
> {
  access?: Access<keyof F & string>
  hooks?: Hooks<ShapeOf<F>>
}

/**
 * The caller as the host describes it, built once per request by the `context` option and handed to every
 * access rule and hook. `user` and `role` feed the filter variables `$CURRENT_USER` (`user`, or `user.id`
 * when `user` is an object), `$CURRENT_USER.<field>` (a property of an object `user`) and `$CURRENT_ROLE`.
 */
export interface ItemsContext {
  /** Typed by declaring `ItemsTypes['user']` (see `ItemsTypes`); `unknown` otherwise. */
  user?: ItemsUser | undefined
  /** Typed by declaring `ItemsTypes['role']`; `unknown` otherwise. */
  role?: ItemsRole | undefined
  [key: string]: unknown
}

/** A filter in the grammar of `?filter`: `{ owner: { _eq: '$CURRENT_USER' } }`. */
export type Filter = Record<string, unknown>

/** What an allowed action may touch. Every property is optional; an empty rule allows everything. */
/** `Name`: the collection's field names, when its definition is typed. */
export interface AccessRule<Name extends string = string> {
  /**
   * The rows the action applies to. For `read`, rows outside it behave exactly like rows that do not exist,
   * at every relation depth. Not used by `create`.
   */
  filter?: Filter
  /**
   * `read`: the fields the caller may see (the primary key always is); others behave exactly like fields that
   * do not exist. `create` / `update`: the fields the payload may set. `'*'` or absent: all.
   */
  fields?: '*' | readonly Name[]
  /** `create` / `update`: values written underneath the payload (the payload wins), e.g. `{ owner: '$CURRENT_USER' }`. */
  presets?: Partial<Record<Name, unknown>>
  /**
   * `create` / `update`: a filter the written values must satisfy, e.g. `{ status: { _in: ['draft', 'review'] } }`.
   * A create is checked as the row will hold it (fields left out: their default, or null); an update only for
   * the fields it sets.
   */
  validation?: Filter
}

/** `true` allows, `false` denies (403 `FORBIDDEN`), a rule allows within limits. */
export type AccessDecision<Name extends string = string> = boolean | AccessRule<Name>

/** A decision, or a function of the caller's context (sync or async) returning one. */
export type AccessEntry<Name extends string = string> =
  AccessDecision<Name> | ((context: ItemsContext) => AccessDecision<Name> | Promise<AccessDecision<Name>>)

/** One entry per action; an action left out is denied. */
export interface Access<Name extends string = string> {
  read?: AccessEntry<Name>
  create?: AccessEntry<Name>
  update?: AccessEntry<Name>
  delete?: AccessEntry<Name>
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
// Methods, not function-typed properties: method parameters are compared bivariantly, so the hooks of a typed
// collection (item: { title: string }) still fit where untyped ones (item: Item) are expected.
export interface Hooks<S extends ItemShape = UntypedShape> {
  /** The query parameters of a read (`fields`, `filter`, ...), before they are parsed again and access rules applied. */
  beforeRead?(query: Record<string, unknown>, meta: HookMeta): Record<string, unknown> | void | Promise<Record<string, unknown> | void>
  /** Each created item's payload as sent (array bodies: one call per item), inside the transaction. */
  beforeCreate?(item: S['input'], meta: HookMeta): S['input'] | void | Promise<S['input'] | void>
  /** The changes as sent, once per set of items that get them, inside the transaction; `meta.keys` names the items. */
  beforeUpdate?(data: S['input'], meta: HookMeta & { keys: S['key'][] }): S['input'] | void | Promise<S['input'] | void>
  /** The keys about to be deleted, inside the transaction. */
  beforeDelete?(keys: S['key'][], meta: HookMeta): S['key'][] | void | Promise<S['key'][] | void>
  /** After commit; a failure is logged and does not change the response. Events are emitted right after. */
  afterCreate?(event: ItemsEvent<S>, meta: AfterHookMeta): void | Promise<void>
  afterUpdate?(event: ItemsEvent<S>, meta: AfterHookMeta): void | Promise<void>
  afterDelete?(event: ItemsEvent<S>, meta: AfterHookMeta): void | Promise<void>
}

/** The shape of an untyped collection: any item, any key. */
export interface UntypedShape extends ItemShape {
  item: Item
  input: Item
  key: PrimaryKey
}

/** What a write does; access rules, hooks and events are keyed by it. */
export type WriteAction = 'create' | 'update' | 'delete'

/** A committed write, as after hooks and events receive it. */
export interface ItemsEvent<S extends ItemShape = UntypedShape> {
  action: WriteAction
  collection: string
  /** The items written, in order. */
  keys: S['key'][]
  /** create / update: the values written to `keys[i]` (presets and hook changes included). delete: empty. */
  payloads: S['input'][]
  context: ItemsContext
}

/** Collections by name, as `options.collections` holds them. */
export type Collections = Readonly<Record<string, CollectionDefinition>>

/** Every event name with the event it carries: `items.<action>` for all collections, `<name>.items.<action>` for one. */
export type ItemsEventMap<C extends Collections = Collections> = { [A in WriteAction as `items.${A}`]: ItemsEvent } & {
  [K in keyof C & string as `${K}.items.${WriteAction}`]: ItemsEvent<ShapeOf<C[K]['fields']>>
}

type Listener<E> = (event: E) => void | Promise<void>

/**
 * The router's events: `items.create`, `items.update`, `items.delete` for every collection and
 * `<collection>.items.create` (...) for one, each with an `ItemsEvent`, emitted after commit. A listener that
 * throws (or an async one that rejects) is logged.
 */
export interface ItemsEvents<C extends Collections = Collections> extends EventEmitter {
  on<N extends keyof ItemsEventMap<C>>(name: N, listener: Listener<ItemsEventMap<C>[N]>): this
  // The emitter's own signature, kept so the router's emitter still fits wherever an EventEmitter is expected.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter's own listener type
  on(name: string | symbol, listener: (...args: any[]) => void): this
  once<N extends keyof ItemsEventMap<C>>(name: N, listener: Listener<ItemsEventMap<C>[N]>): this
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter's own listener type
  once(name: string | symbol, listener: (...args: any[]) => void): this
  off<N extends keyof ItemsEventMap<C>>(name: N, listener: Listener<ItemsEventMap<C>[N]>): this
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- EventEmitter's own listener type
  off(name: string | symbol, listener: (...args: any[]) => void): this
}

/** The Express router `createItemsRouter` returns, with its event emitter. */
export interface ItemsRouter<C extends Collections = Collections> extends Router {
  readonly events: ItemsEvents<C>
  /**
   * The OpenAPI 3.1 document of every endpoint this router serves, built from the same collection model and
   * payload schemas the router validates with. Hidden fields never appear in it. Its paths are relative to
   * where the router is mounted; pass `serverUrl` (`'/api'`) to say where that is. `/versions` is left out once
   * the router has found that the versions table does not exist (it looks on the first request that needs it,
   * the served document's included); before that, it is listed.
   */
  openapi(options?: { serverUrl?: string }): OpenApiDocument
  /**
   * Serves live subscriptions and item actions over WebSocket, in the Directus realtime protocol, on the host's
   * own HTTP server (see docs/guide/realtime.md). Throws a `ConfigError` for options that cannot work.
   */
  attachRealtime(server: Server, options?: RealtimeOptions): Realtime
}

/** An OpenAPI 3.1 document, as JSON. */
export interface OpenApiDocument {
  openapi: string
  info: { title: string; version: string; description?: string }
  paths: Record<string, unknown>
  components: Record<string, unknown>
  servers?: { url: string }[]
  [key: string]: unknown
}

/** Serving the OpenAPI document (see `ItemsRouter.openapi()`). */
export interface OpenApiOptions {
  /**
   * Where the router serves the document, relative to its mount path. Its `servers` entry is the mount path.
   *
   * @default '/openapi.json'
   */
  path?: string
  /** The document's `info.title`. @default 'Items API' */
  title?: string
  /** The document's `info.version` (your API's version, not this library's). @default '1.0.0' */
  version?: string
  /** The document's `info.description`. */
  description?: string
}

/** A read replica for the router's reads (see `ItemsRouterOptions.replica`). */
export interface ReplicaOptions {
  /** A knex instance whose connections reach a replica of the primary's database. */
  knex: Knex
  /**
   * Whether a read request must read from the primary, to see its client's own writes.
   *
   * @default (req) => req.get('Items-Consistency') === 'strong'
   */
  readsPrimary?: (req: Request) => boolean
}

/** Where the router reports errors it does not send to the client (unexpected 500s). */
export interface Logger {
  error(message: string, error?: unknown): void
  warn(message: string): void
}

/** `C`: the collections, inferred from `collections` so that `events` knows each collection's item type. */
export interface ItemsRouterOptions<C extends Collections = Collections> extends LimitOptions {
  /**
   * The host's knex instance (better-sqlite3, pg or mysql2 client), never a transaction (`ConfigError`
   * `CONFIG_KNEX_TRANSACTION`): the router runs its own. The router never opens or closes connections.
   * On SQLite, its `pool.afterCreate` must call `prepareSqliteConnection`.
   */
  knex: Knex
  /** The collections to serve, by name. Nothing else is reachable. */
  collections: C
  /**
   * A read replica of `knex`'s database. Untransacted reads of GET, HEAD and SEARCH requests run on
   * `replica.knex`; writes, everything inside a transaction, the read-back after a write, version saves and
   * promotes, idempotency keys and hooks' `meta.db` stay on `knex`, so replica lag never changes a write's answer.
   * A client that must see its own writes sends `Items-Consistency: strong` (or what `readsPrimary` looks for).
   * Same client (dialect) as `knex`; the router never opens or closes its connections either.
   *
   * On SQLite, `sqliteReader(knex)` gives a reader of the same database file on worker threads: reads then run
   * off the event loop, with no lag.
   *
   * @example { knex: knexFactory({ client: 'pg', connection: process.env.REPLICA_URL }) }
   */
  replica?: ReplicaOptions
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
   * Most relations one `fields` path may cross (`comments.author.name` crosses two), and one nested value of
   * a write (`{ "players": [{ "skills": [...] }] }` crosses two).
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
   * Most rows one read may load across all its statements: the page plus every related row of every
   * relation node (`fields=*.*.*`). Reads stop at the first statement that would pass it, with a 400
   * `INVALID_QUERY` naming `maxLoadedRows`, so memory stays bounded whatever the data holds.
   *
   * @default 10000
   */
  maxLoadedRows?: number
  /**
   * Most conditions one request's filters may hold together (the `filter` parameter and every
   * `deep[rel][_filter]`, or a by-query write's `query.filter`), each value of an `_in` / `_nin` / `_between`
   * list and each `_and` / `_or` entry counting as one. Together with the other bounds it keeps every statement
   * below each driver's bind-variable limit.
   *
   * @default 2000
   */
  maxFilterConditions?: number
  /**
   * Most substring, prefix and suffix conditions (`_contains`, `_icontains`, `_starts_with`, ... and their
   * negations) one request's filters may hold together. No index serves them, so each costs a pass over the rows
   * it is tested on: on SQLite that pass blocks the event loop (about 20–40 ms per condition per 200,000 rows),
   * elsewhere it holds a connection. `search` is not counted: the collection's text fields, which the host
   * chooses, bound it.
   *
   * @default 3
   */
  maxPatternConditions?: number
  /**
   * Most entries in each list parameter: `fields`, `sort`, `groupBy`, `alias`, and the fields of `aggregate`.
   *
   * @default 100
   */
  maxListEntries?: number
  /**
   * Deepest nesting of a `json` field's value, counted as MySQL's `JSON_DEPTH` counts it (a scalar is 1, `[1]`
   * is 2, `{"a":[1]}` is 3). MariaDB refuses more than 32, and a bound keeps every walk over the value short.
   *
   * @default 32
   */
  maxJsonDepth?: number
  /**
   * Most bytes one `binary` field's value may hold once decoded from its base64 text; a larger value is a 400
   * `FAILED_VALIDATION`. The JSON body's `bodyLimit` bounds it too (base64 is a third longer than its bytes).
   *
   * @default 1048576
   */
  maxBinaryBytes?: number
  /**
   * Most rows one `export` (a streamed download: `export=csv|json|ndjson`) may hold. Exports are not held to
   * `maxLimit`: they stream in chunks, so memory does not grow with their size. A larger explicit `limit` is a
   * 400 `INVALID_QUERY` naming `maxExportRows`; `limit=-1` exports every matching row up to this many.
   *
   * @default 10000000
   */
  maxExportRows?: number
  /**
   * Most exports (`export=csv|json|ndjson`) the router streams at once; one more answers 503 `TOO_MANY_EXPORTS`
   * with `Retry-After`. An export holds its place from its first statement until its download ends or its client
   * leaves (or is cut off by `exportIdleTimeout`), and a stalled export holds about one chunk in memory, so this
   * bounds both the memory and the share of the database exports take. One count for the whole router.
   *
   * @default 20
   */
  maxConcurrentExports?: number
  /**
   * Longest, in ms, an export waits for a client that takes none of its download (the socket's buffer stays
   * full) before it cuts the connection and gives back its place. `0`: never; the client then holds its place
   * until it reads or leaves.
   *
   * @default 60000
   */
  exportIdleTimeout?: number
  /**
   * The key that signs page cursors (`cursor`, `meta=next_cursor`), at least 32 characters. Without it each
   * process draws a random key, so a cursor stays valid only on the instance that gave it out, until it
   * restarts; set the same secret on every instance behind a load balancer.
   *
   * @default a random key per process
   */
  cursorSecret?: string
  /**
   * Hand unexpected errors to the host's own error middleware (`next(error)`) instead of answering the generic
   * 500. They are logged either way; `error.requestId` holds the request's id.
   *
   * @default false
   */
  passUnexpectedErrors?: boolean
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
   * The table holding `Idempotency-Key` records: which key made which write, and its answer. Create it from your
   * migrations with `createIdempotencyTable(knex)`, or set `createIdempotencyTable`.
   *
   * @default 'items_idempotency'
   */
  idempotencyTable?: string
  /**
   * Create the Idempotency-Key table on first use when it does not exist, instead of expecting the host's
   * migrations to have run `createIdempotencyTable()`.
   *
   * @default false
   */
  createIdempotencyTable?: boolean
  /**
   * Seconds an `Idempotency-Key` is remembered. A retry after that writes again; expired records are deleted by
   * later writes that carry a key.
   *
   * @default 86400
   */
  idempotencyTtl?: number
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
   * `false` (every action denied) or an `Access` object. Unset, such collections are read-only: anyone who
   * reaches the mount path may read them, and every create, update and delete is a 403 `FORBIDDEN`.
   *
   * @default { read: true, create: false, update: false, delete: false }
   */
  defaultAccess?: boolean | Access
  /**
   * Serve the OpenAPI 3.1 document (`true`: at `/openapi.json` under the mount path). It lists every
   * collection and field but hidden ones, whoever asks, so leave it off where that is a secret; the document
   * is available from `router.openapi()` either way.
   *
   * @default false
   */
  openapi?: boolean | OpenApiOptions
  /**
   * Serve Directus's read-only schema endpoints (`/collections`, `/fields`, `/relations`, `/schema/snapshot`),
   * which type generators and admin tools built for Directus read. Each caller sees only the collections and
   * fields its access rules let it read; what it sees names tables, columns, types and defaults, so leave it off
   * where the database's layout is not meant for clients.
   *
   * @default false
   */
  schemaEndpoints?: boolean
  /**
   * Payloads as clients built for Directus send them: keys that name no field the caller can see are dropped
   * instead of refused, and numeric strings (`"4"`) are accepted for number fields. Per collection with
   * `collections.<name>.lenientPayloads`. A misspelt field name is then silently ignored.
   *
   * @default false
   */
  lenientPayloads?: boolean
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
  /**
   * Attempts a write's transaction gets, the first included, when the database rolls it back for colliding with
   * concurrent ones (deadlock, serialization failure, lock wait, a Galera certification failure). Each retry
   * waits a random time that doubles with the attempt (up to 20 ms, 40 ms, 80 ms, ...). A collision that outlasts
   * them answers 409 `CONFLICT`. On a multi-primary cluster, where writers to one row on different nodes collide
   * at commit, 8 keeps a hot row's writes from running out (README, "Running at scale").
   *
   * @default 4
   */
  transactionAttempts?: number
  /**
   * Runs the router's statements through statements prepared once per connection: a request shape (the same
   * fields, filter structure, sort and relations, other values) compiles to the same SQL text, so only its values
   * are bound again. Each connection keeps at most 256. Statements inside a transaction (writes) are not reused.
   *
   * - SQLite (better-sqlite3): `Statement` objects kept per connection. Default `true`: they live in the process
   *   and save a prepare per statement.
   * - PostgreSQL (pg): named prepared statements, prepared once per backend connection; a reused statement is
   *   not marked with the request's id in its SQL, and an aborted request cancels it through its connection's
   *   backend pid instead. Default `false`: behind a transaction-pooling proxy such as PgBouncer in
   *   `pool_mode = transaction` (before 1.21, or without `max_prepared_statements`) the next statement may reach
   *   a server connection that never prepared the name, and fails. Turn it on for direct connections or a
   *   proxy that tracks prepared statements.
   * - MySQL / MariaDB: no effect; knex runs statements with mysql2's text protocol.
   *
   * @default true on SQLite, false on PostgreSQL
   */
  preparedStatements?: boolean
}

/** An item as the API returns it: field names to JSON values. */
export type Item = Record<string, unknown>

/** A primary key value as it appears in URLs and payloads. */
export type PrimaryKey = string | number

/** Which tables `readCollections` serves: names, or a test of the name. */
export type TableSelection = readonly string[] | ((table: string) => boolean)

/**
 * Changes merged into one collection `readCollections` reads. `fields.<name>` is merged into the field read
 * from the column (`{ hidden: true }`, `{ readonly: true }`), `false` leaves the field out, and a name the
 * database does not have adds a field (an `o2m` alias, say). Renaming is not offered: a field's name is its column's.
 */
export interface CollectionOverride extends Partial<Omit<CollectionDefinition, 'fields'>> {
  fields?: Record<string, Partial<ScalarFieldDefinition> | FieldDefinition | false>
}

/** How `readCollections` and `describeDatabase` read the database. */
export interface ReadCollectionsOptions {
  /** Only these tables (and views) become collections. @default every table */
  include?: TableSelection
  /** These tables are left out, after `include`. @default none */
  exclude?: TableSelection
  /** PostgreSQL: the schema to read. The router addresses tables unqualified, so set knex's `searchPath` to match. @default current_schema() */
  schema?: string
  /** Changes per collection (by table name), merged into what is read. */
  overrides?: Record<string, CollectionOverride>
  /**
   * Views to serve, read-only, each with the column that identifies its rows (a view has no primary key of its
   * own). Other views are left out and reported.
   *
   * @example { published_articles: 'id' }
   */
  viewKeys?: Record<string, string>
  /** Where `readCollections` reports what it left out, one `warn` per table or column. @default console */
  logger?: Pick<Logger, 'warn'>
}

/** A table or column `readCollections` left out, and why. */
export interface SkippedTable {
  table: string
  /** Set when only this column was left out. */
  column?: string
  reason: string
}

/** What `describeDatabase` answers: the collections, and what was left out of them. */
export interface DatabaseDescription {
  collections: Record<string, CollectionDefinition>
  skipped: SkippedTable[]
}

/** A write, as realtime passes it between processes: which items changed, never their values or the writer. */
export interface RealtimeChange {
  action: WriteAction
  collection: string
  keys: PrimaryKey[]
}

/** What a broker hands the processes it connects. */
export interface RealtimeBrokerHandlers {
  /** A change another process published. */
  change(change: RealtimeChange): void
  /** The connection to the engine was lost and is back: changes published meanwhile may have been missed. */
  gap(): void
}

/**
 * Carries changes between the processes serving one database, through an engine they share (see
 * `createPostgresBroker`, `createRedisBroker`). A process hears its own changes directly, not through the broker.
 */
export interface RealtimeBroker {
  /** Starts listening; resolves once changes published from now on reach `handlers`. */
  start(handlers: RealtimeBrokerHandlers): Promise<void>
  /** Sends a change to the other processes; rejects when the engine cannot take it. */
  publish(change: RealtimeChange): Promise<void>
  /** Stops listening and closes what `start` opened. */
  stop(): Promise<void>
}

/** `router.attachRealtime(server, options)`. Every option has a safe default. */
export interface RealtimeOptions {
  /**
   * The path of the upgrade request, as the client sends it: the router's mount path included.
   *
   * @default '/websocket'
   */
  path?: string
  /**
   * Turns a token (the `access_token` of an `auth` message, or `?access_token=` in the upgrade URL) into the
   * caller's context; `null` (or a throw) refuses it. `req` is the upgrade request. Without it, only
   * `publicAccess` connections work.
   */
  authenticate?: (token: string, req: IncomingMessage) => ItemsContext | null | Promise<ItemsContext | null>
  /**
   * Whether a connection without a token acts at once as the caller the router's `context` option gives for its
   * upgrade request (a session cookie, say). Off: it must send an `auth` message within `authTimeout`.
   *
   * @default false
   */
  publicAccess?: boolean
  /** Carries writes to and from the router's other processes; none: one process. @default none */
  broker?: RealtimeBroker
  /** Most open connections; one more is closed with code 1013 `TOO_MANY_CONNECTIONS`. @default 1000 */
  maxConnections?: number
  /** Most subscriptions one connection holds; one more is refused with `LIMIT_EXCEEDED`. @default 100 */
  maxSubscriptions?: number
  /** Largest message a client may send, in bytes; a larger one closes its connection with code 1009. @default 65536 */
  maxMessageBytes?: number
  /**
   * Most bytes waiting to be sent to one connection; a client that reads slower than its messages come is closed
   * with code 4429 `SLOW_CONSUMER` rather than growing the process's memory.
   *
   * @default 1048576
   */
  maxBufferedBytes?: number
  /**
   * Most items a subscription remembers having sent, to tell updates from items entering or leaving its filter;
   * past it the oldest are forgotten (see docs/guide/realtime.md).
   *
   * @default 10000
   */
  maxKnownItems?: number
  /** Milliseconds a connection has to authenticate; then it is closed with code 4408 `AUTH_TIMEOUT`. @default 10000 */
  authTimeout?: number
  /**
   * Milliseconds between the server's pings; a connection that did not answer the previous one by the next is
   * closed with code 4000 `HEARTBEAT_TIMEOUT`. 0: no pings.
   *
   * @default 30000
   */
  heartbeatInterval?: number
}

/** The realtime endpoint `attachRealtime` returns. */
export interface Realtime {
  /** Open connections. */
  readonly connections: number
  /** Subscriptions held by every connection. */
  readonly subscriptions: number
  /** Resolves once the broker listens (at once without one); rejects when it could not start. */
  readonly ready: Promise<void>
  /** Closes every connection (code 1001), stops the broker and stops answering upgrades. */
  close(): Promise<void>
}
