// GET / PATCH / DELETE /items/:collection/:id: one item by primary key; a missing item is a 404.
import { NotFoundError } from '../errors'
import { parseUrlKey } from '../query/parse-key'
import type { Collection } from '../schema/collection'
import type { PrimaryKey } from '../types'
import { sendData, sendNoContent } from './envelope'
import type { ItemsHandler } from './route'

/** A key that cannot belong to the collection (`abc` for an integer key) names no item: 404, not 400. */
function keyOf(collection: Collection, id: string): PrimaryKey {
  const key = parseUrlKey(collection, id)
  if (key === undefined) throw new NotFoundError()
  return key
}

export const readItem: ItemsHandler = async (req, res, { collection, repository, versions, query }) => {
  const key = keyOf(collection, String(req.params.id))
  const parsed = query()
  const delta = await versions.requestedDelta(collection, key, parsed.version)
  const item = await repository.readOne(collection, key, parsed)
  if (!item) throw new NotFoundError()
  sendData(res, await versions.overlay(item, parsed.fields, delta))
}

export const updateItem: ItemsHandler = async (req, res, { collection, repository, validator, query, body }) => {
  const key = keyOf(collection, String(req.params.id))
  const payload = validator.validate('update', body())
  await repository.update(collection, [{ keys: [key], payload }])
  const [item] = await repository.readByKeys(collection, [key], query().fields)
  sendData(res, item ?? null)
}

export const deleteItem: ItemsHandler = async (req, res, { collection, repository }) => {
  await repository.delete(collection, [keyOf(collection, String(req.params.id))])
  sendNoContent(res)
}
