// The public surface: re-exports only.

/** The router factory: the library's entry point. */
export { createItemsRouter } from './router'

/** The documented option and definition types. */
export type {
  Access,
  AccessDecision,
  AccessEntry,
  AccessRule,
  AfterHookMeta,
  BeforeHook,
  CollectionDefinition,
  Collections,
  FieldDefinition,
  FieldType,
  Filter,
  HookMeta,
  Hooks,
  Item,
  ItemsContext,
  ItemsEvent,
  ItemsEventMap,
  ItemsEvents,
  ItemsRouter,
  ItemsRouterOptions,
  LimitOptions,
  Logger,
  ManagedValue,
  O2MFieldDefinition,
  OnDeleteAction,
  DetachAction,
  OpenApiDocument,
  OpenApiOptions,
  PrimaryKey,
  ReadCollectionsOptions,
  ReplicaOptions,
  CollectionOverride,
  DatabaseDescription,
  SkippedTable,
  TableSelection,
  ScalarFieldDefinition,
  TemporalStorage,
  TypedCollectionDefinition,
  UntypedShape,
  WriteAction,
  Realtime,
  RealtimeBroker,
  RealtimeBrokerHandlers,
  RealtimeChange,
  RealtimeOptions,
} from './types'

/** Item types inferred from field definitions, and the registry for the host's user and role types. */
export { defineCollection } from './item-types'
export type {
  FieldInput,
  FieldValue,
  CollectionsOf,
  GeoJsonGeometry,
  ItemInputOf,
  ItemOf,
  ItemWriteOf,
  ItemOfCollection,
  ItemShape,
  ItemsRole,
  ItemsTypes,
  ItemsUser,
  KeyOf,
  ShapeOf,
} from './item-types'

/** Reads collections from the database's catalog, and checks hand-written ones against it. */
export { describeDatabase, readCollections } from './introspect/read-collections'
export { checkCollections } from './introspect/check-collections'

/** Registers the SQL functions the router needs on a better-sqlite3 connection opened outside knex's own pool. */
export { prepareSqliteConnection } from './dialects/sqlite/sqlite-functions'

/** A knex instance that runs SQLite reads on worker threads, off the event loop: pass it as `replica`. */
export { sqliteReader } from './dialects/sqlite/sqlite-reader'
export type { SqliteReaderOptions } from './dialects/sqlite/sqlite-reader'

/** Brokers that carry realtime changes between processes, over PostgreSQL LISTEN/NOTIFY and Redis pub/sub. */
export { createPostgresBroker } from './realtime/brokers/postgres-broker'
export type { PostgresBrokerClient, PostgresBrokerOptions } from './realtime/brokers/postgres-broker'
export { createRedisBroker } from './realtime/brokers/redis-broker'
export type { RedisBrokerClient, RedisBrokerOptions } from './realtime/brokers/redis-broker'

/** Creates the content-versions table, for hosts that run their own migrations. */
export { createVersionsTable } from './versions/versions-table'

/** Creates the Idempotency-Key table, for hosts that run their own migrations. */
export { createIdempotencyTable } from './repository/idempotency-store'

/** Error classes, so host apps can throw and recognise the same errors the API answers with. */
export {
  ConfigError,
  ConflictError,
  FailedValidationError,
  ForbiddenError,
  InvalidPayloadError,
  InvalidQueryError,
  ItemsError,
  ItemsErrorList,
  NotFoundError,
  PreconditionFailedError,
  RouteNotFoundError,
  ServiceUnavailableError,
} from './errors'
export type { ErrorCode, ErrorExtensions } from './errors'
