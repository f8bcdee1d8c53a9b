// GET / PATCH of a singleton collection's one item, at /items/:collection and /items/:collection/singleton.
import type { FieldNode } from '../query/query'
import type { Item } from '../types'
import { sendData } from './envelope'
import type { ItemsHandler } from './items-request'
import { currentEtags, etagOf, notModified, withIfMatch } from './etag'
import { itemAnswer } from './item-answer'

/** Before the row exists (or while the caller may not see it), a read answers the primary key as null and every field that has a default. */
function placeholder(fields: readonly FieldNode[]): Item {
  const item: Item = {}
  for (const node of fields) {
    if (node.kind !== 'field') continue
    if (node.field.primaryKey) item[node.output] = null
    else if (node.field.default != null) item[node.output] = node.field.default
  }
  return item
}

export const readSingleton: ItemsHandler = async (req, res, { collection, repository, versions, access, query, assertReadable }) => {
  assertReadable()
  const parsed = await query()
  // The row as the caller sees it: one outside their read rule is absent, and so are its versions.
  const key = await repository.firstKey(collection, parsed.scope)
  const version = parsed.version === null ? null : await versions.requested(collection, key, parsed.version)
  // The ETag stands for the row itself; a version's preview is another representation and has none.
  const etag = version === null && key !== null ? await etagOf(repository, access.view, collection, key) : null
  if (notModified(req, res, etag)) return
  const page = await repository.list(collection, { ...parsed, limit: 1, offset: 0, after: null })
  const item = page.items[0] ?? placeholder(parsed.fields)
  sendData(res, version ? await versions.shown(item, key, parsed.fields, version) : item, page.meta)
}

/** Updates the row, or creates it when there is none yet (see `ItemsWriter.saveSingleton`). */
export const updateSingleton: ItemsHandler = async (req, res, request) => {
  const { writer, query, body, readBack, respond } = request
  const input = body()
  await query()
  // If-Match on a singleton without its row names nothing that exists: 412, and no row is created.
  await respond(
    res,
    async (options) => [await writer().saveSingleton(input, withIfMatch(options, req.get('If-Match'), currentEtags(request)))],
    async (keys) => itemAnswer(await readBack(keys)),
  )
}
