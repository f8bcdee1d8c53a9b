// GET / PATCH of a singleton collection's one item, at /items/:collection and /items/:collection/singleton.
import type { FieldNode } from '../query/query'
import { FIELD_TYPES } from '../schema/field-types'
import type { Item } from '../types'
import { sendData } from './envelope'
import type { ItemsHandler } from './route'

/** Before the row exists, a read answers the primary key as null and every field that has a default. */
function placeholder(fields: readonly FieldNode[]): Item {
  const item: Item = {}
  for (const node of fields) {
    if (node.kind !== 'field') continue
    if (node.field.primaryKey) item[node.output] = null
    else if (node.field.default != null) item[node.output] = FIELD_TYPES[node.field.type].fromJson(node.field.default) ?? node.field.default
  }
  return item
}

export const readSingleton: ItemsHandler = async (_req, res, { collection, repository, versions, query }) => {
  const parsed = query()
  const delta = parsed.version === null ? null : await versions.requestedDelta(collection, await repository.firstKey(collection), parsed.version)
  const page = await repository.list(collection, { ...parsed, limit: 1, offset: 0 })
  const item = page.items[0] ?? placeholder(parsed.fields)
  sendData(res, await versions.overlay(item, parsed.fields, delta), page.meta)
}

/** Updates the row, or creates it when there is none yet. */
export const updateSingleton: ItemsHandler = async (_req, res, { collection, repository, validator, query, body }) => {
  const input = body()
  const { fields } = query()
  const existing = await repository.firstKey(collection)
  const [key] =
    existing === null
      ? await repository.create(collection, [validator.validate('create', input)])
      : await repository.update(collection, [{ keys: [existing], payload: validator.validate('update', input) }])
  const [item] = await repository.readByKeys(collection, [key], fields)
  sendData(res, item ?? null)
}
