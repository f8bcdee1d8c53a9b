// DELETE /items/:collection: an array of keys, `{ keys }` or `{ query }`; 204, all in one transaction.
import { InvalidPayloadError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKeys } from '../query/parse-key'
import { sendNoContent } from './envelope'
import type { ItemsHandler } from './items-scope'

export const deleteItems: ItemsHandler = async (_req, res, { collection, writer, body, selection }) => {
  const input = body()
  const { maxBatchSize } = collection.limits
  if (Array.isArray(input)) {
    await writer().delete(parseBodyKeys(collection, input, maxBatchSize))
  } else if (isPlainObject(input) && Object.keys(input).length === 1 && 'keys' in input) {
    await writer().delete(parseBodyKeys(collection, input.keys, maxBatchSize))
  } else if (isPlainObject(input) && Object.keys(input).length === 1 && 'query' in input) {
    await writer().deleteWhere(selection(input.query))
  } else {
    throw new InvalidPayloadError('Send an array of keys, { keys } or { query }')
  }
  sendNoContent(res)
}
