// GET / PATCH of a singleton collection's one item, at /items/:collection and /items/:collection/singleton.
import type { FieldNode } from '../query/query'
import type { Item } from '../types'
import { sendData } from './envelope'
import type { ItemsHandler } from './items-scope'
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

export const readSingleton: ItemsHandler = async (_req, res, { collection, repository, versions, query, assertReadable }) => {
  assertReadable()
  const parsed = await query()
  // The row as the caller sees it: one outside their read rule is absent, and so are its versions.
  const delta =
    parsed.version === null
      ? null
      : await versions.requestedDelta(collection, await repository.firstKey(collection, parsed.scope), parsed.version)
  const page = await repository.list(collection, { ...parsed, limit: 1, offset: 0 })
  sendData(res, await versions.overlay(page.items[0] ?? placeholder(parsed.fields), parsed.fields, delta), page.meta)
}

/** Updates the row, or creates it when there is none yet (see `ItemsWriter.saveSingleton`). */
export const updateSingleton: ItemsHandler = async (_req, res, { writer, query, body, readBack, respond }) => {
  const input = body()
  await query()
  await respond(
    res,
    async (options) => [await writer.saveSingleton(input, options)],
    async (keys) => itemAnswer(await readBack(keys)),
  )
}
