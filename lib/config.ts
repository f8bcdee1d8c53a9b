// Turns the public ItemsRouterOptions into the internal, fully resolved RouterConfig. Runs once.
import { randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import { checkKnownOptions, checkPositiveInteger, resolveLimits } from './schema/build-schema'
import type { Limits } from './schema/collection'
import { DEFAULT_BINARY_BYTES } from './schema/binary-value'
import { ConfigError } from './errors'
import type { Request } from 'express'
import type { ItemsContext, ItemsRouterOptions, Logger, OpenApiOptions } from './types'
import { DEFAULT_VERSIONS_TABLE } from './versions/versions-table'
import { DEFAULT_IDEMPOTENCY_TABLE } from './repository/idempotency-store'
import { DEFAULT_TRANSACTION_ATTEMPTS } from './execute/retry-transaction'

/** A day: long enough for any client's retries, short enough to keep the table small. */
const DEFAULT_IDEMPOTENCY_TTL = 86_400

/** Resolved options; `ItemsRouterOptions` documents each one. Not exported from the package. */
export interface RouterConfig {
  readonly knex: Knex
  /** The replica's knex and the primary-read test; null: every statement on `knex`. */
  readonly replica: { readonly knex: Knex; readonly readsPrimary: ((req: Request) => boolean) | undefined } | null
  readonly limits: Limits
  readonly bodyLimit: number | string
  readonly maxFilterDepth: number
  readonly maxInListLength: number
  readonly maxQueryParameters: number
  readonly maxRelationalDepth: number
  readonly maxRelations: number
  readonly maxLoadedRows: number
  readonly maxFilterConditions: number
  readonly maxPatternConditions: number
  readonly maxListEntries: number
  readonly maxJsonDepth: number
  readonly maxBinaryBytes: number
  readonly maxExportRows: number
  readonly maxConcurrentExports: number
  readonly exportIdleTimeout: number
  readonly cursorSecret: Buffer
  readonly passUnexpectedErrors: boolean
  readonly versionsTable: string
  readonly createVersionsTable: boolean
  readonly idempotencyTable: string
  readonly createIdempotencyTable: boolean
  readonly idempotencyTtl: number
  readonly logger: Logger
  readonly context: (req: Request) => ItemsContext | Promise<ItemsContext>
  readonly statementTimeout: number
  readonly hookTimeout: number
  readonly transactionAttempts: number
  /** Whether statements run through prepared statements kept per connection, where the driver can (see types.ts). */
  readonly preparedStatements: boolean | undefined
  /** Where to serve the OpenAPI document, and its `info`; null: not served. */
  readonly openapi: (Omit<OpenApiOptions, 'path'> & { readonly path: string }) | null
  readonly schemaEndpoints: boolean
  /** The default of collections that do not set their own `lenientPayloads`. */
  readonly lenientPayloads: boolean
}

function resolveOpenApi(given: ItemsRouterOptions['openapi']): RouterConfig['openapi'] {
  if (given === undefined || given === false) return null
  const options: OpenApiOptions = given === true ? {} : given
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.openapi must be a boolean or { path, title, version, description }')
  checkKnownOptions(options, { path: true, title: true, version: true, description: true }, 'options.openapi')
  const path = options.path ?? '/openapi.json'
  if (typeof path !== 'string' || !path.startsWith('/'))
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.openapi.path must start with "/"')
  return { ...options, path }
}

const KNOWN_OPTIONS: { readonly [K in keyof Required<ItemsRouterOptions>]: true } = {
  knex: true,
  collections: true,
  replica: true,
  defaultLimit: true,
  maxLimit: true,
  maxBatchSize: true,
  bodyLimit: true,
  maxFilterDepth: true,
  maxInListLength: true,
  maxQueryParameters: true,
  maxRelationalDepth: true,
  maxRelations: true,
  maxLoadedRows: true,
  maxFilterConditions: true,
  maxPatternConditions: true,
  maxListEntries: true,
  maxJsonDepth: true,
  maxBinaryBytes: true,
  maxExportRows: true,
  maxConcurrentExports: true,
  exportIdleTimeout: true,
  cursorSecret: true,
  passUnexpectedErrors: true,
  versionsTable: true,
  createVersionsTable: true,
  idempotencyTable: true,
  createIdempotencyTable: true,
  idempotencyTtl: true,
  logger: true,
  context: true,
  defaultAccess: true,
  openapi: true,
  statementTimeout: true,
  hookTimeout: true,
  transactionAttempts: true,
  preparedStatements: true,
  schemaEndpoints: true,
  lenientPayloads: true,
}

/** The largest `maxFilterConditions` that keeps every statement within each driver's bind-variable limit. */
const MAX_FILTER_CONDITIONS = 10_000

/**
 * Three substring matches over 200,000 rows stay within the event-loop stall the README documents for SQLite
 * (`npm run bench:stall`, bench/STALL.md); more than three is rare outside of attacks.
 */
const DEFAULT_PATTERN_CONDITIONS = 3

/** A shorter HMAC key could be guessed; 32 characters of a random string are plenty. */
const MIN_SECRET_LENGTH = 32

const DEFAULT_LIMITS: Limits = { defaultLimit: 100, maxLimit: 1000, maxBatchSize: 1000 }

export function normalizeOptions(options: ItemsRouterOptions): RouterConfig {
  if (typeof options !== 'object' || options === null)
    throw new ConfigError('CONFIG_MISSING', 'createItemsRouter() needs an options object')
  checkKnownOptions(options, KNOWN_OPTIONS, 'options')
  const knex = options.knex as Knex | undefined
  if (typeof knex !== 'function' || typeof knex.transaction !== 'function' || !knex.client) {
    throw new ConfigError('CONFIG_MISSING_KNEX', 'options.knex must be a knex instance')
  }
  checkNotTransaction(knex, 'options.knex')
  const replica = resolveReplica(options.replica)
  checkPositiveInteger(options.maxFilterDepth, 'options.maxFilterDepth')
  checkPositiveInteger(options.maxInListLength, 'options.maxInListLength')
  checkPositiveInteger(options.maxQueryParameters, 'options.maxQueryParameters')
  checkPositiveInteger(options.maxRelationalDepth, 'options.maxRelationalDepth')
  checkPositiveInteger(options.maxRelations, 'options.maxRelations')
  checkPositiveInteger(options.maxLoadedRows, 'options.maxLoadedRows')
  checkPositiveInteger(options.maxFilterConditions, 'options.maxFilterConditions')
  // Filter values are bind variables: above this a statement could pass SQLite's 32,766 (keys take the other half).
  if (options.maxFilterConditions !== undefined && options.maxFilterConditions > MAX_FILTER_CONDITIONS) {
    throw new ConfigError('CONFIG_BAD_LIMIT', `options.maxFilterConditions may be at most ${MAX_FILTER_CONDITIONS}`)
  }
  checkPositiveInteger(options.maxPatternConditions, 'options.maxPatternConditions')
  checkPositiveInteger(options.maxListEntries, 'options.maxListEntries')
  checkPositiveInteger(options.maxJsonDepth, 'options.maxJsonDepth')
  checkPositiveInteger(options.maxBinaryBytes, 'options.maxBinaryBytes')
  checkPositiveInteger(options.maxExportRows, 'options.maxExportRows')
  checkPositiveInteger(options.maxConcurrentExports, 'options.maxConcurrentExports')
  checkTimeout(options.exportIdleTimeout, 'options.exportIdleTimeout')
  if (options.cursorSecret !== undefined && (typeof options.cursorSecret !== 'string' || options.cursorSecret.length < MIN_SECRET_LENGTH)) {
    throw new ConfigError('CONFIG_BAD_OPTION', `options.cursorSecret must be a string of at least ${MIN_SECRET_LENGTH} characters`)
  }
  if (options.versionsTable !== undefined && (typeof options.versionsTable !== 'string' || options.versionsTable === '')) {
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.versionsTable must be a non-empty string')
  }
  if (options.idempotencyTable !== undefined && (typeof options.idempotencyTable !== 'string' || options.idempotencyTable === '')) {
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.idempotencyTable must be a non-empty string')
  }
  checkPositiveInteger(options.idempotencyTtl, 'options.idempotencyTtl')
  if (options.context !== undefined && typeof options.context !== 'function') {
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.context must be a function of the request')
  }
  checkTimeout(options.statementTimeout, 'options.statementTimeout')
  checkTimeout(options.hookTimeout, 'options.hookTimeout')
  // 12 attempts already wait up to 20 s in all: past that a client is better told 409 than kept waiting.
  if (options.transactionAttempts !== undefined && !isIntegerIn(options.transactionAttempts, 1, 12)) {
    throw new ConfigError('CONFIG_BAD_LIMIT', 'options.transactionAttempts must be a whole number from 1 to 12')
  }
  if (options.preparedStatements !== undefined && typeof options.preparedStatements !== 'boolean') {
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.preparedStatements must be true or false')
  }
  for (const name of ['schemaEndpoints', 'lenientPayloads'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') {
      throw new ConfigError('CONFIG_BAD_OPTION', `options.${name} must be true or false`)
    }
  }
  const bodyLimit = options.bodyLimit ?? '1mb'
  const validBodyLimit =
    typeof bodyLimit === 'number' ? Number.isSafeInteger(bodyLimit) && bodyLimit > 0 : /^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i.test(bodyLimit)
  if (!validBodyLimit || Number.parseFloat(String(bodyLimit)) <= 0) {
    throw new ConfigError('CONFIG_BAD_LIMIT', 'options.bodyLimit must be a positive number of bytes or a size such as "1mb"')
  }
  return {
    knex,
    replica,
    limits: resolveLimits(options, DEFAULT_LIMITS, 'options'),
    bodyLimit,
    maxFilterDepth: options.maxFilterDepth ?? 10,
    maxInListLength: options.maxInListLength ?? 1000,
    maxQueryParameters: options.maxQueryParameters ?? 1000,
    maxRelationalDepth: options.maxRelationalDepth ?? 10,
    maxRelations: options.maxRelations ?? 50,
    maxLoadedRows: options.maxLoadedRows ?? 10_000,
    maxFilterConditions: options.maxFilterConditions ?? 2000,
    maxPatternConditions: options.maxPatternConditions ?? DEFAULT_PATTERN_CONDITIONS,
    maxListEntries: options.maxListEntries ?? 100,
    maxJsonDepth: options.maxJsonDepth ?? 32,
    maxBinaryBytes: options.maxBinaryBytes ?? DEFAULT_BINARY_BYTES,
    maxExportRows: options.maxExportRows ?? 10_000_000,
    maxConcurrentExports: options.maxConcurrentExports ?? 20,
    exportIdleTimeout: options.exportIdleTimeout ?? 60_000,
    // Random per process by default: cursors then last as long as the process, on this one instance only.
    cursorSecret: options.cursorSecret === undefined ? randomBytes(32) : Buffer.from(options.cursorSecret),
    passUnexpectedErrors: options.passUnexpectedErrors === true,
    versionsTable: options.versionsTable ?? DEFAULT_VERSIONS_TABLE,
    createVersionsTable: options.createVersionsTable === true,
    idempotencyTable: options.idempotencyTable ?? DEFAULT_IDEMPOTENCY_TABLE,
    createIdempotencyTable: options.createIdempotencyTable === true,
    idempotencyTtl: options.idempotencyTtl ?? DEFAULT_IDEMPOTENCY_TTL,
    logger: options.logger ?? console,
    context: options.context ?? (() => ({})),
    openapi: resolveOpenApi(options.openapi),
    statementTimeout: options.statementTimeout ?? 30_000,
    hookTimeout: options.hookTimeout ?? 10_000,
    transactionAttempts: options.transactionAttempts ?? DEFAULT_TRANSACTION_ATTEMPTS,
    preparedStatements: options.preparedStatements,
    schemaEndpoints: options.schemaEndpoints === true,
    lenientPayloads: options.lenientPayloads === true,
  }
}

/**
 * A transaction looks like a knex instance, but the router opens transactions of its own on it (which fail
 * inside another one) and would hold its single connection for every request.
 */
function checkNotTransaction(knex: Knex, where: string): void {
  if ((knex as unknown as Partial<Knex.Transaction>).isTransaction === true) {
    throw new ConfigError(
      'CONFIG_KNEX_TRANSACTION',
      `${where} is a transaction; pass the knex instance itself (the router runs its own transactions on its pool)`,
    )
  }
}

const isKnex = (value: unknown): value is Knex =>
  typeof value === 'function' && typeof (value as Knex).transaction === 'function' && Boolean((value as Knex).client)

function resolveReplica(given: ItemsRouterOptions['replica']): RouterConfig['replica'] {
  if (given === undefined) return null
  if (typeof given !== 'object' || given === null)
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.replica must be { knex, readsPrimary? }')
  checkKnownOptions(given, { knex: true, readsPrimary: true }, 'options.replica')
  if (!isKnex(given.knex)) throw new ConfigError('CONFIG_MISSING_KNEX', 'options.replica.knex must be a knex instance')
  checkNotTransaction(given.knex, 'options.replica.knex')
  if (given.readsPrimary !== undefined && typeof given.readsPrimary !== 'function') {
    throw new ConfigError('CONFIG_BAD_OPTION', 'options.replica.readsPrimary must be a function of the request')
  }
  return { knex: given.knex, readsPrimary: given.readsPrimary }
}

const isIntegerIn = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max

/** A time limit in milliseconds: 0 turns it off; Node's timers take at most 2^31 - 1. */
function checkTimeout(value: unknown, where: string): void {
  if (value === undefined) return
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 2_147_483_647) {
    throw new ConfigError('CONFIG_BAD_LIMIT', `${where} must be a whole number of milliseconds (0 turns it off)`)
  }
}
