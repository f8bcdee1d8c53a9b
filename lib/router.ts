// createItemsRouter: checks the options once, builds the schema, and maps the Items routes to handlers.
import express, { type Router } from 'express'
import { normalizeOptions } from './config'
import { errorHandler } from './errors'
import { createItems } from './handlers/create-items'
import { deleteItems } from './handlers/delete-items'
import { deleteItem, readItem, updateItem } from './handlers/item'
import { listItems } from './handlers/list-items'
import { createRoute, routeNotFound, type ItemsHandler } from './handlers/route'
import { readSingleton, updateSingleton } from './handlers/singleton'
import { updateItems } from './handlers/update-items'
import { dialectOf } from './repository/dialect'
import { ItemsRepository } from './repository/items-repository'
import { buildSchema } from './schema/build-schema'
import type { Collection } from './schema/collection'
import { createPayloadValidator } from './schema/payload-validator'
import type { ItemsRouterOptions } from './types'

const notServedOnSingletons: ItemsHandler = async (req) => {
  throw routeNotFound(req)
}

/**
 * Creates the Express router serving `/items/...` for the configured collections. Synchronous; throws a
 * `ConfigError` for options that cannot work. Mount it anywhere: `app.use('/api', createItemsRouter(...))`.
 */
export function createItemsRouter(options: ItemsRouterOptions): Router {
  const config = normalizeOptions(options)
  const dialect = dialectOf(config.knex)
  const schema = buildSchema(options.collections, config.limits)
  dialect.prepare(config.knex)
  const route = createRoute({
    schema,
    repository: new ItemsRepository(config.knex, schema, dialect),
    validators: new Map([...schema.collections.values()].map((collection) => [collection, createPayloadValidator(collection)])),
    // Brackets nest two levels per filter group (`filter[_and][0][...]`) plus field, operator and list index.
    // One value of slack over the list limit lets the filter parser, which knows the field, name the problem.
    queryString: { maxParameters: config.maxQueryParameters, maxArrayLength: config.maxInListLength + 1, maxDepth: config.maxFilterDepth * 2 + 4 },
    parser: {
      schema,
      maxDepth: config.maxFilterDepth,
      maxInListLength: config.maxInListLength,
      maxRelationalDepth: config.maxRelationalDepth,
      maxRelations: config.maxRelations,
    },
  })
  const bySingleton = (singleton: ItemsHandler, plain: ItemsHandler) => (collection: Collection) =>
    collection.singleton ? singleton : plain
  const always = (handler: ItemsHandler) => () => handler

  const router = express.Router()
  router.use('/items', express.json({ limit: config.bodyLimit, strict: false }))
  router.get('/items/:collection', route(bySingleton(readSingleton, listItems)))
  router.post('/items/:collection', route(bySingleton(notServedOnSingletons, createItems)))
  router.patch('/items/:collection', route(bySingleton(updateSingleton, updateItems)))
  router.delete('/items/:collection', route(bySingleton(notServedOnSingletons, deleteItems)))
  router.get('/items/:collection/singleton', route(bySingleton(readSingleton, readItem)))
  router.patch('/items/:collection/singleton', route(bySingleton(updateSingleton, updateItem)))
  router.get('/items/:collection/:id', route(always(readItem)))
  router.patch('/items/:collection/:id', route(always(updateItem)))
  router.delete('/items/:collection/:id', route(always(deleteItem)))
  router.use('/items', (req, _res, next) => next(routeNotFound(req)))
  router.use(errorHandler(config.logger))
  return router
}
