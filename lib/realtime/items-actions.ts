// `items` messages: read, create, update and delete over the socket, through the caller's access, hooks and
// events exactly as the HTTP routes run them; the answer is an `items` frame with the data the route would send.
import { CallerAccess } from '../access/caller-access'
import { ForbiddenError, InvalidPayloadError, InvalidQueryError, NotFoundError } from '../errors'
import { writerFor } from '../handlers/services'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKey, parseBodyKeys } from '../query/parse-key'
import type { Query } from '../query/query'
import type { Collection } from '../schema/collection'
import type { ItemsContext, PrimaryKey } from '../types'
import type { Change } from '../writes/items-writer'
import { itemsFrame, type ItemsMessage } from './messages'
import type { RealtimeSeam } from './realtime-seam'
import { parseSocketQuery } from './subscription-query'

type Access = CallerAccess

/** The keys an update or delete names: `id` (one) or `ids` (a list); exactly one of them. */
function keysOf(message: ItemsMessage, collection: Collection): { keys: PrimaryKey[]; one: boolean } {
  if ((message.id === undefined) === (message.ids === undefined)) {
    throw new InvalidPayloadError(`An "${message.action}" needs either "id" or "ids"`)
  }
  return message.id !== undefined
    ? { keys: [parseBodyKey(collection, message.id)], one: true }
    : { keys: parseBodyKeys(collection, message.ids, collection.limits.maxBatchSize), one: false }
}

async function read(message: ItemsMessage, collection: Collection, access: Access, query: Query, seam: RealtimeSeam): Promise<unknown> {
  if (!access.canRead(collection)) throw new ForbiddenError()
  if (query.export || query.version !== null) throw new InvalidQueryError('"export" and "version" are not served over the socket')
  const { repository } = seam.services
  if (message.id !== undefined) {
    const item = await repository.readOne(collection, parseBodyKey(collection, message.id), query)
    if (item === null) throw new NotFoundError()
    return item
  }
  return (await repository.list(collection, query)).items
}

/** The written items as the caller may read them, shaped by `fields`; their keys when the read back fails. */
async function readBack(keys: readonly PrimaryKey[], collection: Collection, access: Access, query: Query, seam: RealtimeSeam) {
  if (!access.canRead(collection)) return null
  return seam.services.repository.readByKeys(collection, keys, query.fields, query.scope)
}

async function write(message: ItemsMessage, collection: Collection, access: Access, query: Query, seam: RealtimeSeam): Promise<unknown> {
  const writer = writerFor(seam.services, collection, access)
  const { data } = message
  switch (message.action) {
    case 'create': {
      if (!Array.isArray(data) && !isPlainObject(data)) throw new InvalidPayloadError('"data" must be an item or a list of items')
      const batch = Array.isArray(data)
      const keys = await writer.create(batch ? data : [data], batch)
      const items = await readBack(keys, collection, access, query, seam)
      return batch || items === null ? items : (items[0] ?? null)
    }
    case 'update': {
      const { keys, one } = keysOf(message, collection)
      if (data === undefined) throw new InvalidPayloadError('An "update" needs "data"')
      const changes: Change[] = [{ keys, data }]
      const written = await writer.update(changes)
      const items = await readBack([...new Set(written)], collection, access, query, seam)
      return one && items !== null ? (items[0] ?? null) : items
    }
    case 'delete': {
      const { keys, one } = keysOf(message, collection)
      await writer.delete(keys)
      return one ? keys[0] : keys
    }
    default:
      throw new InvalidPayloadError(`There is no items action "${message.action}"`)
  }
}

/** Runs one `items` message for `caller`; throws what the HTTP route would answer with. */
export async function runItemsAction(message: ItemsMessage, caller: ItemsContext, seam: RealtimeSeam): Promise<object> {
  const { services } = seam
  const collection = services.schema.collections.get(message.collection)
  if (collection === undefined || collection.singleton) throw new ForbiddenError()
  const data = await seam.run(async () => {
    const resolved = CallerAccess.resolve(services.access, collection, caller)
    const access = resolved instanceof Promise ? await resolved : resolved
    // Bad query parameters fail before anything is written, as on HTTP.
    const query = await parseSocketQuery(message.query, collection, access, services, false)
    return message.action === 'read' ? read(message, collection, access, query, seam) : write(message, collection, access, query, seam)
  })
  return itemsFrame(data, message.uid)
}
