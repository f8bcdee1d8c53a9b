// GET / PATCH of a singleton collection's one item, at /items/:collection and /items/:collection/singleton.
import { ForbiddenError, NotFoundError } from '../errors'
import type { FieldNode } from '../query/query'
import type { Item } from '../types'
import { sendData, sendNoContent } from './envelope'
import type { ItemsHandler } from './items-scope'

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

export const readSingleton: ItemsHandler = async (_req, res, { collection, repository, versions, query, assertReadable }) => {
  assertReadable()
  const parsed = await query()
  // The row as the caller sees it: one outside their read rule is absent, and so are its versions.
  const version =
    parsed.version === null
      ? null
      : await versions.requested(collection, await repository.firstKey(collection, parsed.scope), parsed.version)
  const page = await repository.list(collection, { ...parsed, limit: 1, offset: 0 })
  const item = page.items[0] ?? placeholder(parsed.fields)
  sendData(res, version ? await versions.shown(item, parsed.fields, version) : item, page.meta)
}

/**
 * Updates the row, or creates it when there is none yet. A row the caller cannot see is not theirs to change:
 * 403, as when they may not create it, and never a second row, nor a 404 naming its key.
 */
export const updateSingleton: ItemsHandler = async (_req, res, { collection, repository, writer, query, body, readBack }) => {
  const input = body()
  await query()
  const existing = await repository.firstKey(collection)
  const [key] =
    existing === null
      ? await writer.create([input], false)
      : await writer.update([{ keys: [existing], data: input }]).catch((error: unknown) => {
          throw error instanceof NotFoundError ? new ForbiddenError() : error
        })
  const [item] = await readBack([key!])
  if (item) sendData(res, item)
  else sendNoContent(res)
}
