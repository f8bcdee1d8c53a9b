// GET /items/:collection: a page of items, with `meta` when asked.
import { sendData } from './envelope'
import type { ItemsHandler } from './route'

export const listItems: ItemsHandler = async (_req, res, { collection, repository, query }) => {
  const page = await repository.list(collection, query())
  sendData(res, page.items, page.meta)
}
