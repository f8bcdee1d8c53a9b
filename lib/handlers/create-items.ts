// POST /items/:collection: an object creates one item, an array creates many in one transaction. Answers the
// created items read back through the request's `fields`.
import { InvalidPayloadError, ItemsError, ItemsErrorList } from '../errors'
import type { Payload, PayloadValidator } from '../schema/payload-validator'
import { sendData } from './envelope'
import type { ItemsHandler } from './route'

/** Validates every item before anything is written, and reports the problems of all of them at once. */
function validateAll(validator: PayloadValidator, items: unknown[]): Payload[] {
  const errors: ItemsError[] = []
  const payloads = items.map((item, index) => {
    try {
      return validator.validate('create', item, index)
    } catch (error) {
      if (error instanceof ItemsErrorList) errors.push(...error.errors)
      else if (error instanceof ItemsError) errors.push(error)
      else throw error
      return new Map()
    }
  })
  if (errors.length > 0) throw new ItemsErrorList(errors)
  return payloads
}

export const createItems: ItemsHandler = async (_req, res, { collection, repository, validator, query, body }) => {
  const input = body()
  const { fields } = query()
  if (Array.isArray(input)) {
    if (input.length > collection.limits.maxBatchSize) {
      throw new InvalidPayloadError(`At most ${collection.limits.maxBatchSize} items can be created in one request`)
    }
    const keys = await repository.create(collection, validateAll(validator, input))
    sendData(res, await repository.readByKeys(collection, keys, fields))
    return
  }
  const keys = await repository.create(collection, [validator.validate('create', input)])
  const [item] = await repository.readByKeys(collection, keys, fields)
  sendData(res, item ?? null)
}
