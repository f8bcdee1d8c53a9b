// PATCH /items/:collection: `{ keys, data }`, `{ query, data }`, or an array of partial items that each carry
// their primary key. Exactly one form; everything in one transaction.
import { InvalidPayloadError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKey, parseBodyKeys } from '../query/parse-key'
import type { PrimaryKey } from '../types'
import type { Change } from '../writes/items-writer'
import { sendData } from './envelope'
import type { ItemsHandler, ItemsScope } from './items-scope'

function updateEach({ collection, writer }: ItemsScope, items: unknown[]): Promise<PrimaryKey[]> {
  if (items.length > collection.limits.maxBatchSize) {
    throw new InvalidPayloadError(`At most ${collection.limits.maxBatchSize} items can be updated in one request`)
  }
  const pk = collection.primaryKey.name
  const changes = items.map((item, index): Change => {
    if (!isPlainObject(item)) throw new InvalidPayloadError(`Item ${index} must be a JSON object`)
    if (item[pk] === undefined || item[pk] === null) {
      throw new InvalidPayloadError(`Item ${index} in update misses primary key "${pk}"`)
    }
    return { keys: [parseBodyKey(collection, item[pk])], data: item, item: index }
  })
  return writer.update(changes)
}

function updateByForm(scope: ItemsScope, input: Record<string, unknown>): Promise<PrimaryKey[]> {
  const { collection, writer } = scope
  const extra = Object.keys(input).filter((key) => key !== 'keys' && key !== 'query' && key !== 'data')
  const forms = ['keys', 'query'].filter((key) => input[key] !== undefined)
  if (extra.length > 0 || forms.length !== 1 || input.data === undefined) {
    throw new InvalidPayloadError('Send either { keys, data }, { query, data } or an array of items with their keys')
  }
  if (input.keys !== undefined) {
    return writer.update([{ keys: parseBodyKeys(collection, input.keys, collection.limits.maxBatchSize), data: input.data }])
  }
  return writer.updateWhere(scope.selection(input.query), input.data)
}

export const updateItems: ItemsHandler = async (_req, res, scope) => {
  const input = scope.body()
  await scope.query()
  let keys: PrimaryKey[]
  if (Array.isArray(input)) keys = await updateEach(scope, input)
  else if (isPlainObject(input)) keys = await updateByForm(scope, input)
  else throw new InvalidPayloadError('The body must be a JSON object or array')
  sendData(res, await scope.readBack([...new Set(keys)]))
}
