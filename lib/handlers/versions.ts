// /versions: list, read, create, rename, delete, save, compare and promote content versions (see
// versions-request.ts for who may manage them).
import { ForbiddenError, InvalidPayloadError } from '../errors'
import { both, fieldIn } from '../query/filter-node'
import { isPlainObject } from '../is-plain-object'
import { sendData, sendNoContent } from './envelope'
import { readBody } from './request'
import type { VersionsHandler } from './versions-request'
import type { Db } from '../execute/db'
import type { PrimaryKey } from '../types'
import { blank } from '../versions/version-overlay'
import { NO_ITEM_HASH } from '../versions/versions-service'

export const listVersions: VersionsHandler = async (_req, res, { versions, schema, query, mayManage }) => {
  const managed: string[] = []
  for (const collection of schema.collections.values()) {
    if (collection.versioning && (await mayManage(collection))) managed.push(collection.name)
  }
  const scope = fieldIn(versions.fields.collection, managed)
  const parsed = query(versions.collection)
  const page = await versions.list({ ...parsed, scope, filter: both(scope, parsed.filter) })
  sendData(
    res,
    page.items.map((row) => versions.answered(row)),
    page.meta,
  )
}

export const readVersion: VersionsHandler = async (_req, res, { version, stored }) => {
  sendData(res, await stored((await version()).id))
}

/** One version, or (as @directus/sdk's createContentVersions sends) an array of them, created in order. */
export const createVersion: VersionsHandler = async (req, res, { versions, schema, mayManage, stored }) => {
  const body = readBody(req)
  const inputs = Array.isArray(body) ? body : [body]
  // Every entry's collection is checked before the first is created, so a refused entry writes nothing.
  for (const input of inputs) {
    if (isPlainObject(input) && schema.collections.has(String(input.collection))) {
      if (!(await mayManage(versions.versionedCollection(input.collection)))) throw new ForbiddenError()
    }
  }
  const created: unknown[] = []
  for (const id of await versions.createMany(inputs)) created.push(await stored(id))
  sendData(res, Array.isArray(body) ? created : created[0])
}

/**
 * `PATCH /versions`: `{ keys, data }` renames each version the same way (updateContentVersions); an array of
 * `{ id, name?, key? }` renames each its own way (updateContentVersionsBatch). Every id is checked first.
 */
export const renameVersions: VersionsHandler = async (req, res, { versions, versionsByKeys, stored }) => {
  const body = readBody(req)
  let changes: { id: number; data: unknown }[]
  if (Array.isArray(body)) {
    if (!body.every((entry) => isPlainObject(entry) && entry.id !== undefined)) {
      throw new InvalidPayloadError('Every entry of the array must be an object with the id of its version')
    }
    const found = await versionsByKeys(body.map((entry: Record<string, unknown>) => entry.id))
    if (found.length !== body.length) throw new InvalidPayloadError('Each version may appear once in the array')
    changes = found.map(({ id }, index) => {
      const { id: _id, ...data } = body[index] as Record<string, unknown>
      return { id, data }
    })
  } else if (isPlainObject(body)) {
    changes = (await versionsByKeys(body.keys)).map(({ id }) => ({ id, data: body.data }))
  } else {
    throw new InvalidPayloadError('The body must be { "keys": [...], "data": { ... } } or an array of versions with their id')
  }
  for (const { id, data } of changes) await versions.rename(id, data)
  const renamed: unknown[] = []
  for (const { id } of changes) renamed.push(await stored(id))
  sendData(res, renamed)
}

/** `DELETE /versions` with an array of ids (deleteContentVersions); all are checked before any is deleted. */
export const deleteVersions: VersionsHandler = async (req, res, { versions, versionsByKeys }) => {
  const found = await versionsByKeys(readBody(req))
  for (const { id } of found) await versions.remove(id)
  sendNoContent(res)
}

export const renameVersion: VersionsHandler = async (req, res, { versions, version, stored }) => {
  const { id } = await version()
  await versions.rename(id, readBody(req))
  sendData(res, await stored(id))
}

export const deleteVersion: VersionsHandler = async (_req, res, { versions, version }) => {
  await versions.remove((await version()).id)
  sendNoContent(res)
}

export const saveVersion: VersionsHandler = async (req, res, { versions, version, mainItem }) => {
  const saved = await versions.save((await version()).id, readBody(req))
  const { main, item, fields } = await mainItem(saved)
  // A draft of a new item shows over an item with nothing set.
  sendData(res, await versions.overlay(main ?? blank(fields), item, fields, saved.delta))
}

export const compareVersion: VersionsHandler = async (_req, res, { versions, version, mainItem }) => {
  const found = await version()
  const { collection, item, main } = await mainItem(found)
  const mainHash = item === null ? NO_ITEM_HASH : await versions.mainHash(collection, item, undefined, found.delta)
  sendData(res, { outdated: found.hash !== mainHash, mainHash, current: found.delta ?? {}, main })
}

export const promoteVersion: VersionsHandler = async (req, res, { versions, version, writer }) => {
  const { id, collection, item, changes, mainHash, delta } = await versions.promotion((await version()).id, readBody(req))
  if (item === null) {
    // A draft of a new item: created through the collection's write path (a singleton's row saved), and the
    // version then belongs to it. Its required fields and access rules are checked here, as for any create.
    const { guard, adopt } = versions.newItemPromotion(id, mainHash)
    const target = await writer(collection)
    const options = { guard, written: (trx: Db, keys: readonly PrimaryKey[]) => adopt(trx, keys[0]!) }
    const key = collection.singleton ? await target.saveSingleton(changes, options) : (await target.create([changes], false, options))[0]!
    sendData(res, key)
    return
  }
  // Through the collection's own write path: its hooks, validation and events apply as to any update. The hash
  // is checked once the item's row is locked, so a concurrent promote or PATCH cannot slip in between, and checked
  // again after the write, which must have changed it.
  await (
    await writer(collection)
  ).update([{ keys: [item], data: changes }], {
    guard: (trx) => versions.assertMainHash(collection, item, mainHash, trx, delta),
    written: (trx) => versions.assertPromoted(collection, item, mainHash, trx, delta),
  })
  sendData(res, item)
}
