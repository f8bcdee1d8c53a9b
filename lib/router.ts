// createItemsRouter: checks the options once, builds the schema, and maps the Items, Versions and schema routes to handlers.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express'
import { buildAccess, reachableCollections } from './access/access-config'
import { checkFixedRules, type AccessSetup } from './access/caller-access'
import { normalizeOptions, type RouterConfig } from './config'
import { ConfigError, errorHandler, ItemsError } from './errors'
import { jsonBodyParser } from './handlers/json-body'
import { createItems } from './handlers/create-items'
import { deleteItems } from './handlers/delete-items'
import { deleteItem, readItem, updateItem } from './handlers/item'
import { listItems } from './handlers/list-items'
import { itemsRoute, type ItemsHandler } from './handlers/items-request'
import { routeNotFound } from './handlers/request'
import type { ParserLimits, Services } from './handlers/services'
import { readSingleton, updateSingleton } from './handlers/singleton'
import { updateItems } from './handlers/update-items'
import {
  compareVersion,
  createVersion,
  deleteVersion,
  deleteVersions,
  listVersions,
  promoteVersion,
  readVersion,
  renameVersion,
  renameVersions,
  saveVersion,
} from './handlers/versions'
import { versionsRoute, type VersionsHandler } from './handlers/versions-request'
import type { QueryStringLimits } from './query/read-query-string'
import { dialectOf, type Dialect } from './dialects'
import { createIdempotencyTable, IdempotencyStore } from './repository/idempotency-store'
import { OwnTable } from './execute/own-table'
import { ParsedQueries } from './query/query-cache'
import { ItemsRepository } from './repository/items-repository'
import { ReadRouting } from './execute/read-routing'
import { mapFault } from './execute/map-db-error'
import { isSqliteReader } from './dialects/sqlite/sqlite-reader'
import { setupCheck } from './execute/setup-check'
import { checkEachConnection, fillConnectionDefaults, prepareEachConnection } from './knex-adapter'
import { guardStatements, statementError } from './execute/statement-guard'
import { dropAbandonedAcquisitions } from './execute/abandoned-work'
import { reuseStatements, reusesStatements } from './execute/statement-cache'
import { requestState, runInState } from './request-state'
import { attachRealtime } from './realtime/attach-realtime'
import type { RealtimeSeam } from './realtime/realtime-seam'
import { buildSchema } from './schema/build-schema'
import type { Collection, Schema } from './schema/collection'
import { createPayloadValidator } from './schema/payload-validator'
import type { Collections, ItemsRouter, ItemsRouterOptions, OpenApiDocument } from './types'
import type { Request } from 'express'
import { createVersionsTable, versionsCollection } from './versions/versions-table'
import { VersionsService } from './versions/versions-service'
import { buildHooks, Lifecycle } from './writes/lifecycle'
import { buildOpenApi } from './openapi/build-openapi'
import { schemaRoutes } from './directus-schema/schema-routes'
import { ExportBudget } from './handlers/export-budget'
import { EXPORT_TURNS, ExportTurns } from './handlers/export-turns'

/** What a state setup is given for work no request carries: the setups realtime runs read nothing of it. */
const NO_REQUEST = Object.freeze({}) as Request

const notServedOnSingletons: ItemsHandler = async (req) => {
  throw routeNotFound(req)
}

function queryStringLimits(config: RouterConfig): QueryStringLimits {
  return {
    maxParameters: config.maxQueryParameters,
    // One value of slack over the list limit lets the filter parser, which knows the field, name the problem.
    maxArrayLength: config.maxInListLength + 1,
    // Brackets nest two levels per filter group (`filter[_and][0][...]`) plus field, operator and list index.
    maxDepth: config.maxFilterDepth * 2 + 4,
  }
}

function parserLimits(config: RouterConfig): ParserLimits {
  return {
    maxDepth: config.maxFilterDepth,
    maxInListLength: config.maxInListLength,
    maxRelationalDepth: config.maxRelationalDepth,
    maxRelations: config.maxRelations,
    maxConditions: config.maxFilterConditions,
    maxPatternConditions: config.maxPatternConditions,
    maxListEntries: config.maxListEntries,
    cursorSecret: config.cursorSecret,
    maxExportRows: config.maxExportRows,
  }
}

/**
 * Array fields need a database with array columns (PostgreSQL), set fields one with SET columns (MySQL, MariaDB):
 * elsewhere a definite configuration mistake.
 */
function checkArrays(schema: Schema, dialect: Dialect): void {
  const unsupported = [
    { type: 'array', supported: dialect.arrays !== null, need: 'array fields need PostgreSQL', lacks: 'array columns' },
    { type: 'set', supported: dialect.sets !== null, need: 'set fields need MySQL or MariaDB', lacks: 'SET columns' },
    {
      type: 'geometry',
      supported: dialect.spatial !== null,
      need: 'geometry fields need MySQL or MariaDB',
      lacks: 'spatial columns the router serves',
    },
  ].filter((kind) => !kind.supported)
  for (const collection of schema.collections.values()) {
    for (const kind of unsupported) {
      const field = collection.fields.find((each) => each.type === kind.type)
      if (field) {
        throw new ConfigError(
          'CONFIG_BAD_FIELD',
          `collections.${collection.name}.fields.${field.name}: ${kind.need}; ${dialect.name} has no ${kind.lacks}`,
        )
      }
    }
  }
}

/**
 * Creates the Express router serving `/items/...` and `/versions/...` for the configured collections.
 * Synchronous; throws a `ConfigError` for options that cannot work. Mount it anywhere:
 * `app.use('/api', createItemsRouter(...))`; subscribe to writes on its `events`.
 */
export function createItemsRouter<const C extends Collections = Collections>(options: ItemsRouterOptions<C>): ItemsRouter<C> {
  const config = normalizeOptions(options)
  const dialect = dialectOf(config.knex)
  const replica = config.replica
  if (replica !== null && dialectOf(replica.knex) !== dialect) {
    throw new ConfigError('CONFIG_BAD_OPTION', `options.replica.knex must use the same client as options.knex (${dialect.name})`)
  }
  const routing = new ReadRouting(config.knex, replica?.knex ?? null, replica?.readsPrimary)
  const schema = buildSchema(options.collections, config.limits, config.lenientPayloads)
  checkArrays(schema, dialect)
  const parser = parserLimits(config)
  const access: AccessSetup = {
    schema,
    entries: buildAccess(schema, options.collections, options.defaultAccess),
    reachable: reachableCollections(schema),
    limits: {
      maxDepth: parser.maxDepth,
      maxInListLength: parser.maxInListLength,
      maxConditions: parser.maxConditions,
      // The host writes access rules; the bound on pattern matches is a bound on what clients may ask for.
      maxPatternConditions: Number.POSITIVE_INFINITY,
    },
  }
  checkFixedRules(access)
  const lifecycle = new Lifecycle(buildHooks(schema, options.collections), config.logger, config.hookTimeout)

  const repository = new ItemsRepository(routing, dialect, config.maxLoadedRows, config.transactionAttempts)
  const validators = new Map(
    [...schema.collections.values()].map((collection) => [
      collection,
      createPayloadValidator(collection, { maxJsonDepth: config.maxJsonDepth, maxBinaryBytes: config.maxBinaryBytes }),
    ]),
  )
  const versions = new VersionsService(
    repository,
    schema,
    buildSchema({ versions: versionsCollection(config.versionsTable) }, config.limits).collections.get('versions')!,
    validators,
    new OwnTable(
      config.knex,
      config.versionsTable,
      config.createVersionsTable ? () => createVersionsTable(config.knex, config.versionsTable) : null,
      config.logger,
      '/versions answers 404 and ?version= finds no version. Create it with createVersionsTable(knex) or pass createVersionsTable: true.',
    ),
    { maxDepth: config.maxRelationalDepth },
  )
  const services: Services = {
    knex: config.knex,
    schema,
    repository,
    validators,
    versions,
    queryString: queryStringLimits(config),
    parser,
    access,
    lifecycle,
    context: config.context,
    logger: config.logger,
    queries: new ParsedQueries(),
    idempotency: new IdempotencyStore(
      config.knex,
      new OwnTable(
        config.knex,
        config.idempotencyTable,
        config.createIdempotencyTable ? () => createIdempotencyTable(config.knex, config.idempotencyTable) : null,
        config.logger,
        'writes with an Idempotency-Key header answer 400. Create it with createIdempotencyTable(knex) or pass createIdempotencyTable: true.',
      ),
      config.idempotencyTtl,
    ),
    exports: {
      budget: new ExportBudget(config.maxConcurrentExports),
      turns: new ExportTurns(EXPORT_TURNS),
      idleTimeout: config.exportIdleTimeout,
    },
  }
  const items = (pick: (collection: Collection) => ItemsHandler) => itemsRoute(services, pick)
  const bySingleton = (singleton: ItemsHandler, plain: ItemsHandler) => (collection: Collection) =>
    collection.singleton ? singleton : plain
  const always = (handler: ItemsHandler) => () => handler
  const version = (handler: VersionsHandler) => versionsRoute(services, handler)
  const json = jsonBodyParser(config, config.logger)

  // Built on first use, once for each state of the versions table: a router never asked for its document pays
  // nothing for it. Until the table has been looked up, the document lists /versions.
  const documents = new Map<boolean, OpenApiDocument>()
  const openapi = ({ serverUrl }: { serverUrl?: string } = {}): OpenApiDocument => {
    const servesVersions = versions.table.known !== false
    let document = documents.get(servesVersions)
    if (document === undefined) {
      // Its own name, so that the component names cannot meet those of a collection called "versions".
      const versionsModel = buildSchema({ ContentVersion: versionsCollection(config.versionsTable) }, config.limits)
      document = buildOpenApi({
        schema,
        versions: servesVersions ? versionsModel.collections.get('ContentVersion')! : null,
        ...(config.openapi ? { info: config.openapi } : {}),
        schemaEndpoints: config.schemaEndpoints,
      })
      documents.set(servesVersions, document)
    }
    return serverUrl === undefined ? document : { ...document, servers: [{ url: serverUrl }] }
  }
  // Ahead of every route, so a setup the dialect cannot work with answers with what to fix, not a driver error.
  const instances = [config.knex, ...(replica ? [replica.knex] : [])]
  // A SQLite reader registers the router's functions and keeps its statements on its own threads.
  const inProcess = instances.filter((knex) => !isSqliteReader(knex))
  // Connections the router prepares itself (SQLite's functions), so a host's knex configuration needs nothing of it.
  const prepare = dialect.prepareConnection
  if (prepare !== null) for (const knex of inProcess) prepareEachConnection(knex, prepare)
  // Bounds on a silent partition (docs/operations/faults.md); the host is told what to set where the router cannot.
  const usable = dialect.connectionUsable
  if (usable !== null) for (const knex of inProcess) checkEachConnection(knex, usable)
  const defaults = dialect.connectionDefaults
  if (defaults !== null && inProcess.some((knex) => !fillConnectionDefaults(knex, defaults))) {
    config.logger.warn(
      `express-items-router: the knex connection is a function, so the router could not add ${Object.keys(defaults).join(', ')}; set them yourself (docs/operations/faults.md), or a silent network partition can hang requests.`,
    )
  }
  const checks = inProcess.map((knex) => setupCheck(knex, dialect, config.logger))
  const reuse = reuseStatements(inProcess, dialect, reusesStatements(dialect, config.preparedStatements))
  const guard = guardStatements(instances, dialect, config.statementTimeout)
  dropAbandonedAcquisitions(instances)
  // After the body parser: the body arrives through socket events, which would run outside the request's state.
  const withState = requestState([reuse, guard, routing.stateSetup()].filter((setup) => setup !== null))
  const parsed: RequestHandler = (req, res, next) => json(req, res, (error?: unknown) => (error ? next(error) : withState(req, res, next)))
  // The ready gate: the setup checks, and the servers' traits (Dialect.serverTraits), which the repository then
  // reads as plain values. A passed check stays passed and known traits stay known, so once all are, requests go on
  // without waiting for a promise. One layer for the gate, the body and the state: Express matches every layer's
  // path against every request.
  let ready = false
  /** Passes the gate: resolves whether every trait is known (see above). */
  const passGate = (): Promise<boolean> =>
    Promise.all([repository.traits.learn(instances), ...checks.map((check) => check())]).then(([known]) => {
      ready = known
      return known
    })
  const realtime: RealtimeSeam = {
    services,
    // Without routing's setup, so realtime reads go to the primary; neither setup reads the request it is given.
    run: (work) => {
      const inState = () => runInState((state) => [reuse, guard].forEach((setup) => setup?.(NO_REQUEST, state)), work)
      return ready ? inState() : passGate().then(inState)
    },
    recognise: (error) => {
      const timedOut = statementError(error, dialect, config.statementTimeout)
      return timedOut instanceof ItemsError ? timedOut : mapFault(timedOut, dialect)
    },
  }
  const router = Object.assign(express.Router(), {
    events: lifecycle.events,
    openapi,
    attachRealtime: (...args: Parameters<ItemsRouter['attachRealtime']>) => attachRealtime(realtime, ...args),
  })
  if (config.openapi) {
    router.get(config.openapi.path, (req, res, next) => {
      // The served document says whether /versions is there, so the table is looked up first.
      versions.table.available().then(() => res.json(openapi({ serverUrl: req.baseUrl || '/' })), next)
    })
  }
  router.use(['/items', '/versions'], (req, res, next) => {
    if (ready) return parsed(req, res, next)
    // Traits that could not be asked are asked again by the next request; this one does without them.
    passGate().then(() => parsed(req, res, next), next)
  })
  // One route per path, its methods inside: Express matches every layer's path against a request until one
  // handles it, so a route per method and path made a PATCH of one item try ten patterns.
  router
    .route('/items/:collection')
    .get(items(bySingleton(readSingleton, listItems)))
    // Directus's SEARCH: the GET parameters as a JSON body, for queries too large or too structured for a URL.
    .search(items(bySingleton(readSingleton, listItems)))
    .post(items(bySingleton(notServedOnSingletons, createItems)))
    .patch(items(bySingleton(updateSingleton, updateItems)))
    .delete(items(bySingleton(notServedOnSingletons, deleteItems)))
  router
    .route('/items/:collection/singleton')
    .get(items(bySingleton(readSingleton, readItem)))
    .patch(items(bySingleton(updateSingleton, updateItem)))
  router
    .route('/items/:collection/:id')
    .get(items(always(readItem)))
    .patch(items(always(updateItem)))
    .delete(items(always(deleteItem)))
  router.use('/items', (req, _res, next) => next(routeNotFound(req)))

  router
    .route('/versions')
    .get(version(listVersions))
    .post(version(createVersion))
    .patch(version(renameVersions))
    .delete(version(deleteVersions))
  router.route('/versions/:id').get(version(readVersion)).patch(version(renameVersion)).delete(version(deleteVersion))
  router.post('/versions/:id/save', version(saveVersion))
  router.get('/versions/:id/compare', version(compareVersion))
  router.post('/versions/:id/promote', version(promoteVersion))
  router.use('/versions', (req, _res, next) => next(routeNotFound(req)))
  if (config.schemaEndpoints) router.use(schemaRoutes({ access, context: config.context, vendor: dialect.name }))

  router.use(((error, _req, _res, next) => next(statementError(error, dialect, config.statementTimeout))) as ErrorRequestHandler)
  router.use(
    errorHandler(config.logger, { recognise: (error) => mapFault(error, dialect), passUnexpectedErrors: config.passUnexpectedErrors }),
  )
  // The emitter is untyped inside; its listeners' types come from the collections the caller passed.
  return router as ItemsRouter<C>
}
