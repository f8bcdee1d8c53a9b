// The read-only schema endpoints (/collections, /fields, /relations, /schema/snapshot), answered for each caller
// from what its access rules let it read. Mounted by the router when `schemaEndpoints` is on.
import express, { type Request, type Response, type Router } from 'express'
import { CallerAccess, type AccessSetup } from '../access/caller-access'
import { routeNotFound, resolveCaller } from '../handlers/request'
import type { ItemsContext } from '../types'
import { SchemaAnswers } from './schema-answers'
import { visibleSchema } from './visible-schema'

export interface SchemaRoutesSetup {
  readonly access: AccessSetup
  readonly context: (req: Request) => ItemsContext | Promise<ItemsContext>
  /** The snapshot's `vendor`. */
  readonly vendor: string
}

/**
 * The access setup of a request that reaches every collection: the caller's rules for all of them are resolved
 * at once, as for an /items request whose relations led everywhere.
 */
function everywhere(access: AccessSetup): { setup: AccessSetup; start: CallerAccessStart } {
  const collections = [...access.schema.collections.values()]
  const start = collections[0]!
  return { setup: { ...access, reachable: new Map([[start, collections]]) }, start }
}

type CallerAccessStart = Parameters<typeof CallerAccess.resolve>[1]

export function schemaRoutes({ access, context, vendor }: SchemaRoutesSetup): Router {
  const { setup, start } = everywhere(access)
  const answers = async (req: Request): Promise<SchemaAnswers> => {
    const callerAccess = await CallerAccess.forCaller(setup, start, resolveCaller(context, req))
    return new SchemaAnswers(
      visibleSchema(access.schema, callerAccess.view, (collection) => callerAccess.canRead(collection)),
      vendor,
    )
  }
  const answer =
    (pick: (answers: SchemaAnswers, params: Record<string, string>) => unknown) =>
    (req: Request, res: Response, next: (error?: unknown) => void): void => {
      answers(req)
        .then((found) => {
          res.json({ data: pick(found, req.params as Record<string, string>) })
        })
        .catch(next)
    }
  const router = express.Router()
  router.get(
    '/collections',
    answer((found) => found.collections()),
  )
  router.get(
    '/collections/:collection',
    answer((found, { collection }) => found.collection(collection!)),
  )
  router.get(
    '/fields',
    answer((found) => found.fields()),
  )
  router.get(
    '/fields/:collection',
    answer((found, { collection }) => found.fieldsOf(collection!)),
  )
  router.get(
    '/fields/:collection/:field',
    answer((found, { collection, field }) => found.field(collection!, field!)),
  )
  router.get(
    '/relations',
    answer((found) => found.relations()),
  )
  router.get(
    '/relations/:collection',
    answer((found, { collection }) => found.relationsOf(collection!)),
  )
  router.get(
    '/relations/:collection/:field',
    answer((found, { collection, field }) => found.relation(collection!, field!)),
  )
  router.get(
    '/schema/snapshot',
    answer((found) => found.snapshot()),
  )
  // The endpoints are read-only: Directus's writes to the schema have nothing to act on here.
  router.use(['/collections', '/fields', '/relations', '/schema'], (req, _res, next) => next(routeNotFound(req)))
  return router
}
