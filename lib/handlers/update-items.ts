// PATCH /items/:collection: `{ keys, data }`, `{ query, data }`, or an array of partial items that each carry
// their primary key. Exactly one form; everything in one transaction.
import { InvalidPayloadError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { keyInItem, parseBodyKey, parseBodyKeys } from '../query/parse-key'
import { keyFormOf } from '../schema/item-key'
import type { PrimaryKey } from '../types'
import type { Change, WriteOptions } from '../writes/items-writer'
import { currentEtags, withIfMatch } from './etag'
import type { ItemsHandler, ItemsRequest } from './items-request'

const FORMS = 'Send either { keys, data }, { query, data } or an array of items with their keys'

function updateEach({ collection, writer }: ItemsRequest, items: unknown[], options: WriteOptions): Promise<PrimaryKey[]> {
  if (items.length > collection.limits.maxBatchSize) {
    throw new InvalidPayloadError(`At most ${collection.limits.maxBatchSize} items can be updated in one request`)
  }
  const pk = keyFormOf(collection)
  const changes = items.map((item, index): Change => {
    if (!isPlainObject(item)) throw new InvalidPayloadError(`Item ${index} must be a JSON object`)
    const key = keyInItem(collection, item)
    if (key === undefined) throw new InvalidPayloadError(`Item ${index} in update misses primary key "${pk}"`)
    return { keys: [parseBodyKey(collection, key)], data: item, item: index }
  })
  return writer().update(changes, options)
}

function updateByForm(request: ItemsRequest, input: Record<string, unknown>, options: WriteOptions): Promise<PrimaryKey[]> {
  const { collection, writer } = request
  const unknown = Object.keys(input).find((key) => key !== 'keys' && key !== 'query' && key !== 'data')
  if (unknown !== undefined) throw new InvalidPayloadError(`${FORMS}; the body has an unknown key "${unknown}"`)
  if ((input.keys === undefined) === (input.query === undefined) || input.data === undefined) throw new InvalidPayloadError(FORMS)
  if (input.keys !== undefined) {
    return writer().update([{ keys: parseBodyKeys(collection, input.keys, collection.limits.maxBatchSize), data: input.data }], options)
  }
  return writer().updateWhere(request.selection(input.query), input.data, options)
}

export const updateItems: ItemsHandler = async (req, res, request) => {
  const input = request.body()
  await request.query()
  if (!Array.isArray(input) && !isPlainObject(input)) throw new InvalidPayloadError('The body must be a JSON object or array')
  await request.respond(
    res,
    (given) => {
      const options = withIfMatch(given, req.get('If-Match'), currentEtags(request))
      return Array.isArray(input) ? updateEach(request, input, options) : updateByForm(request, input, options)
    },
    async (keys) => ({ status: 200, body: { data: await request.readBack([...new Set(keys)]) } }),
  )
}
