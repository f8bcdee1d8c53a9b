// /versions: list, read, create, rename, delete, save, compare and promote content versions (see
// versions-scope.ts for who may manage them).
import { ForbiddenError } from '../errors'
import { keyIn } from '../query/filter-node'
import { both } from '../query/filter-node'
import { isPlainObject } from '../is-plain-object'
import { sendData, sendNoContent } from './envelope'
import { readBody } from './request'
import type { VersionsHandler } from './versions-scope'

export const listVersions: VersionsHandler = async (_req, res, { versions, schema, query, mayManage }) => {
  await versions.ready()
  const managed: string[] = []
  for (const collection of schema.collections.values()) {
    if (collection.versioning && (await mayManage(collection))) managed.push(collection.name)
  }
  const scope = keyIn(versions.fields.collection, managed)
  const parsed = query(versions.collection)
  const page = await versions.list({ ...parsed, scope, filter: both(scope, parsed.filter) })
  sendData(res, page.items, page.meta)
}

export const readVersion: VersionsHandler = async (_req, res, { versions, version, stored }) => {
  await versions.ready()
  sendData(res, await stored((await version()).id))
}

export const createVersion: VersionsHandler = async (req, res, { versions, schema, mayManage, stored }) => {
  const body = readBody(req)
  if (isPlainObject(body) && schema.collections.has(String(body.collection))) {
    if (!(await mayManage(versions.versionedCollection(body.collection)))) throw new ForbiddenError()
  }
  sendData(res, await stored(await versions.create(body)))
}

export const renameVersion: VersionsHandler = async (req, res, { versions, version, stored }) => {
  await versions.ready()
  const { id } = await version()
  await versions.rename(id, readBody(req))
  sendData(res, await stored(id))
}

export const deleteVersion: VersionsHandler = async (_req, res, { versions, version }) => {
  await versions.ready()
  await versions.remove((await version()).id)
  sendNoContent(res)
}

export const saveVersion: VersionsHandler = async (req, res, { versions, version, mainItem }) => {
  await versions.ready()
  const saved = await versions.save((await version()).id, readBody(req))
  const { main, fields } = await mainItem(saved)
  sendData(res, await versions.overlay(main, fields, saved.delta))
}

export const compareVersion: VersionsHandler = async (_req, res, { versions, version, mainItem }) => {
  await versions.ready()
  const found = await version()
  const { collection, item, main } = await mainItem(found)
  const mainHash = await versions.mainHash(collection, item)
  sendData(res, { outdated: found.hash !== mainHash, mainHash, current: found.delta ?? {}, main })
}

export const promoteVersion: VersionsHandler = async (req, res, { versions, version, writer }) => {
  await versions.ready()
  const { collection, item, changes, mainHash } = await versions.promotion((await version()).id, readBody(req))
  // Through the collection's own write path: its hooks, validation and events apply as to any update. The hash
  // is checked once the item's row is locked, so a concurrent promote or PATCH cannot slip in between.
  await (
    await writer(collection)
  ).update([{ keys: [item], data: changes }], { guard: (trx) => versions.assertMainHash(collection, item, mainHash, trx) })
  sendData(res, item)
}
