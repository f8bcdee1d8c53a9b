// PATCH /items/:collection: `{ keys, data }`, `{ query, data }`, or an array of partial items that each carry
// their primary key. Exactly one form; everything in one transaction.
import { InvalidPayloadError } from '../errors'
import { parseBodyKey, parseBodyKeys } from '../query/parse-key'
import type { UpdateSet } from '../repository/items-repository'
import type { PrimaryKey } from '../types'
import { sendData } from './envelope'
import type { ItemsHandler, RequestContext } from './route'
import { isPlainObject } from '../is-plain-object'


async function updateEach(context: RequestContext, items: unknown[]): Promise<PrimaryKey[]> {
  const { collection, validator, repository } = context
  if (items.length > collection.limits.maxBatchSize) {
    throw new InvalidPayloadError(`At most ${collection.limits.maxBatchSize} items can be updated in one request`)
  }
  const pk = collection.primaryKey.name
  const sets: UpdateSet[] = items.map((item, index) => {
    if (!isPlainObject(item)) throw new InvalidPayloadError(`Item ${index} must be a JSON object`)
    if (item[pk] === undefined || item[pk] === null) {
      throw new InvalidPayloadError(`Item ${index} in update misses primary key "${pk}"`)
    }
    return { keys: [parseBodyKey(collection, item[pk])], payload: validator.validate('update', item, index) }
  })
  return repository.update(collection, sets)
}

async function updateByForm(context: RequestContext, input: Record<string, unknown>): Promise<PrimaryKey[]> {
  const { collection, validator, repository } = context
  const extra = Object.keys(input).filter((key) => key !== 'keys' && key !== 'query' && key !== 'data')
  const forms = ['keys', 'query'].filter((key) => input[key] !== undefined)
  if (extra.length > 0 || forms.length !== 1 || input.data === undefined) {
    throw new InvalidPayloadError('Send either { keys, data }, { query, data } or an array of items with their keys')
  }
  const payload = validator.validate('update', input.data)
  if (input.keys !== undefined) {
    const keys = parseBodyKeys(collection, input.keys, collection.limits.maxBatchSize)
    return repository.update(collection, [{ keys, payload }])
  }
  return repository.updateWhere(collection, context.selection(input.query), payload)
}

export const updateItems: ItemsHandler = async (_req, res, context) => {
  const input = context.body()
  const { fields } = context.query()
  let keys: PrimaryKey[]
  if (Array.isArray(input)) keys = await updateEach(context, input)
  else if (isPlainObject(input)) keys = await updateByForm(context, input)
  else throw new InvalidPayloadError('The body must be a JSON object or array')
  sendData(res, await context.repository.readByKeys(context.collection, [...new Set(keys)], fields))
}
