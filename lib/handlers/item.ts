// GET / PATCH / DELETE /items/:collection/:id: one item by primary key; a missing item is a 404, and so is one
// the caller may not see.
import type { Request } from 'express'
import { NotFoundError } from '../errors'
import { parseUrlKey } from '../query/parse-key'
import type { Collection } from '../schema/collection'
import type { PrimaryKey } from '../types'
import { sendData, sendNoContent } from './envelope'
import type { ItemsHandler } from './items-request'
import { currentEtags, etagRead, notModified, withIfMatch } from './etag'
import { itemAnswer } from './item-answer'

/**
 * A key that cannot belong to the collection (`abc` for an integer key) names no item: 404, not 400. A composite
 * key is read from the path as sent, before Express decodes it (`a%2Cb,1`: the comma of `a,b` is not a separator).
 */
function keyOf(collection: Collection, req: Request): PrimaryKey {
  const id = String(req.params.id)
  const key = collection.key.length === 1 ? parseUrlKey(collection, id) : parseUrlKey(collection, id, rawLastSegment(req.path))
  if (key === undefined) throw new NotFoundError()
  return key
}

/** The path's last segment as sent (`req.path` is not decoded; `req.params` is). */
function rawLastSegment(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed.slice(trimmed.lastIndexOf('/') + 1)
}

export const readItem: ItemsHandler = async (req, res, { collection, repository, versions, access, query, assertReadable }) => {
  assertReadable()
  const key = keyOf(collection, req)
  const parsed = await query()
  versions.assertVersioned(collection, parsed.version)
  // The item first: whether a hidden item has a version must not show through the version's own 404.
  // The fields its ETag digests come with it, from the same row.
  const tagging = etagRead(access.view, collection, parsed.fields)
  const read = await repository.readOne(collection, key, { ...parsed, fields: tagging.fields })
  if (!read) throw new NotFoundError()
  const { item, etag } = tagging.take(read)
  // Most reads name no version: no call, and no promise (see is-promise-like.ts).
  const version = parsed.version === null ? null : await versions.requested(collection, key, parsed.version)
  // The ETag stands for the item itself; a version's preview is another representation and has none.
  if (version === null && notModified(req, res, etag)) return
  sendData(res, version ? await versions.shown(item, key, parsed.fields, version) : item)
}

export const updateItem: ItemsHandler = async (req, res, request) => {
  const { collection, writer, query, body, readBack, respond } = request
  const key = keyOf(collection, req)
  const data = body()
  await query()
  await respond(
    res,
    (options) => writer().update([{ keys: [key], data }], withIfMatch(options, req.get('If-Match'), currentEtags(request))),
    async () => itemAnswer(await readBack([key])),
  )
}

export const deleteItem: ItemsHandler = async (req, res, request) => {
  const key = keyOf(request.collection, req)
  await request.writer().delete([key], withIfMatch({}, req.get('If-Match'), currentEtags(request)))
  sendNoContent(res)
}
