// A request's raw parameters into a Query through the caller's view, after the collection's `beforeRead` hook:
// the one parse step of HTTP reads and of realtime subscriptions.
import type { CallerAccess } from '../access/caller-access'
import { parseQuery } from '../query/parse-query'
import type { Query } from '../query/query'
import type { RawQuery } from '../query/read-query-string'
import type { Collection } from '../schema/collection'
import type { Services } from './services'

/** Parses `raw` for `collection` through the caller's view; only a hook gets a copy to change. */
export async function parseHooked(raw: RawQuery, collection: Collection, access: CallerAccess, services: Services): Promise<Query> {
  const hooked = services.lifecycle.has(collection, 'beforeRead')
    ? await services.lifecycle.before(
        collection,
        'beforeRead',
        { ...raw },
        { collection: collection.name, context: access.context, db: services.knex },
      )
    : raw
  return parseQuery(hooked as RawQuery, collection, { ...services.parser, schema: access.view, variables: access.variables })
}
