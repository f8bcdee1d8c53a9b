// GET (or SEARCH) /items/:collection: a page of items, with `meta` when asked; with `?version=KEY`, the items
// that have a version with that key, each as that version shows it.
import { InvalidQueryError } from '../errors'
import { both, keysIn, NO_ROWS } from '../query/filter-node'
import { keyOfValues } from '../schema/item-key'
import type { Query } from '../query/query'
import type { Page } from '../repository/items-repository'
import { MAIN_VERSION } from '../versions/versions-service'
import { sendData } from './envelope'
import { exportItems } from './export-items'
import type { ItemsHandler, ItemsRequest } from './items-request'

/**
 * Filter, search, sort and pagination select among the main items that have the version; each item of the page
 * is then shown with its delta. Versions hold whole drafts, so only callers who may manage them see any: to
 * everyone else the key names no version, and the list is empty, as for a key nobody used.
 */
async function listAtVersion(request: ItemsRequest, query: Query, key: string): Promise<Page> {
  const { collection, repository, versions } = request
  if (query.aggregate) throw new InvalidQueryError('"version" cannot be combined with aggregate or groupBy')
  const saved = collection.versioning && (await request.mayManageVersions()) ? await versions.withKey(collection, key) : new Map()
  const itemKeys = [...saved.values()].map((version) => version.itemKey)
  const filter = both(query.filter, itemKeys.length === 0 ? NO_ROWS : keysIn(collection, itemKeys))
  // The page's keys first, then the items by key: `fields` may leave the key out, and each needs its version.
  const fields = collection.key.map((field) => ({ kind: 'field', output: field.name, field }) as const)
  const page = await repository.list(collection, { ...query, filter, fields })
  const keyed = await repository.readKeyed(
    collection,
    page.items.map((item) => keyOfValues(collection, (field) => item[field.name])),
    query.fields,
    query.scope,
  )
  const items = await versions.shownAll(
    keyed.map(({ key: itemKey, item }) => ({ item, key: itemKey, version: saved.get(String(itemKey))! })),
    query.fields,
  )
  return { items, meta: page.meta }
}

/** The page's meta, with `next_cursor` when asked: null after the last page. */
function metaOf(request: ItemsRequest, query: Query, page: Page): object | undefined {
  if (!query.meta.nextCursor) return page.meta
  const last = page.last ?? null
  return { ...(page.meta ?? {}), next_cursor: last === null ? null : request.cursorAfter(query, last) }
}

export const listItems: ItemsHandler = async (_req, res, request) => {
  request.assertReadable()
  const query = await request.query()
  if (query.export) return exportItems(res, request, query, query.export, request.logger)
  const page =
    query.version === null || query.version === MAIN_VERSION
      ? await request.repository.list(request.collection, query)
      : await listAtVersion(request, query, query.version)
  sendData(res, page.items, metaOf(request, query, page))
}
