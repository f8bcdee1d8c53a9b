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
  FieldDefinition,
  FieldType,
  Filter,
  HookMeta,
  Hooks,
  Item,
  ItemsContext,
  ItemsEvent,
  ItemsEvents,
  ItemsRouter,
  ItemsRouterOptions,
  LimitOptions,
  Logger,
  O2MFieldDefinition,
  PrimaryKey,
  ScalarFieldDefinition,
  WriteAction,
} from './types'

/** Registers the SQL functions the router needs on each better-sqlite3 connection, from knex's `pool.afterCreate`. */
export { prepareSqliteConnection } from './repository/dialects/sqlite-functions'

/** Creates the content-versions table, for hosts that run their own migrations. */
export { createVersionsTable } from './versions/versions-table'

/** Error classes, so host apps can throw and recognise the same errors the API answers with. */
export {
  ConfigError,
  FailedValidationError,
  ForbiddenError,
  InvalidPayloadError,
  InvalidQueryError,
  ItemsError,
  ItemsErrorList,
  NotFoundError,
  RouteNotFoundError,
} from './errors'
export type { ErrorCode, ErrorExtensions } from './errors'
