// GET /items/:collection: a page of items, with `meta` when asked.
import { sendData } from './envelope'
import type { ItemsHandler } from './items-scope'

export const listItems: ItemsHandler = async (_req, res, { collection, repository, query, assertReadable }) => {
  assertReadable()
  const page = await repository.list(collection, await query())
  sendData(res, page.items, page.meta)
}
