// DELETE /items/:collection: an array of keys, `{ keys }` or `{ query }`; 204, all in one transaction.
import { InvalidPayloadError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKeys } from '../query/parse-key'
import { sendNoContent } from './envelope'
import type { ItemsHandler } from './route'

export const deleteItems: ItemsHandler = async (_req, res, context) => {
  const { collection, repository } = context
  const input = context.body()
  const { maxBatchSize } = collection.limits
  if (Array.isArray(input)) {
    await repository.delete(collection, parseBodyKeys(collection, input, maxBatchSize))
  } else if (isPlainObject(input) && Object.keys(input).length === 1 && 'keys' in input) {
    await repository.delete(collection, parseBodyKeys(collection, input.keys, maxBatchSize))
  } else if (isPlainObject(input) && Object.keys(input).length === 1 && 'query' in input) {
    await repository.deleteWhere(collection, context.selection(input.query))
  } else {
    throw new InvalidPayloadError('Send an array of keys, { keys } or { query }')
  }
  sendNoContent(res)
}
