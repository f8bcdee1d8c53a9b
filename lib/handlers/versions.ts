// /versions: list, read, create, rename, delete, save, compare and promote content versions.
import type { Request, RequestHandler, Response } from 'express'
import { NotFoundError } from '../errors'
import { parseQuery, type ParserOptions } from '../query/parse-query'
import { readQueryString, type QueryStringLimits } from '../query/read-query-string'
import type { ItemsRepository } from '../repository/items-repository'
import type { VersionsService } from '../versions/versions-service'
import { sendData, sendNoContent } from './envelope'
import { readBody } from './route'

export interface VersionServices {
  readonly versions: VersionsService
  readonly repository: ItemsRepository
  readonly parser: ParserOptions
  readonly queryString: QueryStringLimits
}

type Handler = (req: Request, res: Response) => Promise<void>

/** A version id from the URL; anything but a positive integer names no version. */
function versionId(req: Request): number {
  const id = Number(req.params.id)
  if (!Number.isSafeInteger(id) || id <= 0) throw new NotFoundError('Version not found.')
  return id
}

export function createVersionHandlers(services: VersionServices): Record<string, RequestHandler> {
  const { versions, repository } = services
  const query = (req: Request) => parseQuery(readQueryString(req.originalUrl ?? req.url, services.queryString), versions.collection, services.parser)
  /** The version as stored, read through the request's `fields`. */
  const answer = async (req: Request, res: Response, id: number): Promise<void> => {
    const [version] = await repository.readByKeys(versions.collection, [id], query(req).fields)
    sendData(res, version ?? null)
  }
  const mainItem = async (id: number, req: Request) => {
    const version = await versions.get(id)
    const collection = versions.versionedCollection(version.collection)
    const item = versions.itemKey(collection, version)
    const fields = parseQuery(readQueryString(req.originalUrl ?? req.url, services.queryString), collection, services.parser).fields
    const [main] = await repository.readByKeys(collection, [item], fields)
    if (!main) throw new NotFoundError()
    return { version, collection, item, fields, main }
  }
  const handlers: Record<string, Handler> = {
    list: async (req, res) => {
      await versions.ready()
      const page = await repository.list(versions.collection, query(req))
      sendData(res, page.items, page.meta)
    },
    read: async (req, res) => {
      await versions.ready()
      const id = versionId(req)
      await versions.get(id)
      await answer(req, res, id)
    },
    create: async (req, res) => answer(req, res, await versions.create(readBody(req))),
    rename: async (req, res) => {
      await versions.ready()
      const id = versionId(req)
      await versions.rename(id, readBody(req))
      await answer(req, res, id)
    },
    remove: async (req, res) => {
      await versions.ready()
      await versions.remove(versionId(req))
      sendNoContent(res)
    },
    save: async (req, res) => {
      await versions.ready()
      const id = versionId(req)
      const saved = await versions.save(id, readBody(req))
      const { main, fields } = await mainItem(id, req)
      sendData(res, await versions.overlay(main, fields, saved.delta))
    },
    compare: async (req, res) => {
      await versions.ready()
      const { version, collection, item, main } = await mainItem(versionId(req), req)
      const mainHash = await versions.mainHash(collection, item)
      sendData(res, { outdated: version.hash !== mainHash, mainHash, current: version.delta ?? {}, main })
    },
    promote: async (req, res) => {
      await versions.ready()
      sendData(res, await versions.promote(versionId(req), readBody(req)))
    },
  }
  return Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [name, ((req, res, next) => handler(req, res).catch(next)) as RequestHandler]),
  )
}
