// `?version=` on item and singleton reads. No content versions are stored yet, so only `main` (the item
// itself) exists; any other key is a 404, never a silent fallback to the main item.
import { NotFoundError } from '../errors'
import type { Query } from '../query/query'

export function assertMainVersion(query: Query): void {
  if (query.version !== null && query.version !== 'main') {
    throw new NotFoundError(`Version "${query.version}" does not exist.`, { version: query.version })
  }
}
