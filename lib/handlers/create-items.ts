// POST /items/:collection: an object creates one item, an array creates many in one transaction. Answers the
// created items read back through the request's `fields` (204 when the caller may not read the item).
import { sendData, sendNoContent } from './envelope'
import type { ItemsHandler } from './items-scope'

export const createItems: ItemsHandler = async (_req, res, { writer, query, body, readBack }) => {
  const input = body()
  // Bad query parameters fail before anything is written.
  await query()
  if (Array.isArray(input)) {
    sendData(res, await readBack(await writer.create(input, true)))
    return
  }
  const [item] = await readBack(await writer.create([input], false))
  if (item) sendData(res, item)
  else sendNoContent(res)
}
