// POST /items/:collection: an object creates one item, an array creates many in one transaction. Answers the
// created items read back through the request's `fields` (204 when the caller may not read the item).
import type { ItemsHandler } from './items-request'
import { itemAnswer } from './item-answer'

export const createItems: ItemsHandler = async (_req, res, { writer, query, body, readBack, respond }) => {
  const input = body()
  // Bad query parameters fail before anything is written.
  await query()
  if (Array.isArray(input)) {
    await respond(
      res,
      (options) => writer().create(input, true, options),
      async (keys) => ({ status: 200, body: { data: await readBack(keys) } }),
    )
    return
  }
  await respond(
    res,
    (options) => writer().create([input], false, options),
    async (keys) => itemAnswer(await readBack(keys)),
  )
}
