// Errors of a nested write name where they happened: `extensions.path` (["players", 2]) and the message's prefix.
import { ItemsError, ItemsErrorList } from '../errors'
import type { Place, WritePath } from './write-plan'

/** A path as the messages spell it: `players[2].team`. */
export function pathText(path: WritePath): string {
  return path.map((step, index) => (typeof step === 'number' ? `[${step}]` : index === 0 ? step : `.${step}`)).join('')
}

/**
 * The error placed: `extensions.path` (unless it already has one: the innermost write knows it best) and
 * `extensions.item` for an item of an array body. Other errors are returned unchanged; the request's own item
 * (an empty path) adds no path.
 */
export function atPath(error: unknown, place: Place | WritePath): unknown {
  const { path, item } = 'path' in place ? place : { path: place, item: undefined }
  if (error instanceof ItemsErrorList) return new ItemsErrorList(error.errors.map((each) => atPath(each, { path, item }) as ItemsError))
  if (!(error instanceof ItemsError)) return error
  const placed = path.length === 0 || error.extensions.path !== undefined ? {} : { path: [...path] }
  const indexed = item === undefined || error.extensions.item !== undefined ? {} : { item }
  if (Object.keys(placed).length + Object.keys(indexed).length === 0) return error
  const message = 'path' in placed ? `At ${pathText(path)}: ${error.message}` : error.message
  return new ItemsError(error.code, message, { ...error.extensions, ...placed, ...indexed }, { cause: error })
}

/** The 400 `INVALID_PAYLOAD` for a nested value of the wrong shape, at `path`. */
export function invalidNested(reason: string, path: WritePath, item?: number): ItemsError {
  return new ItemsError('INVALID_PAYLOAD', `Invalid payload. At ${pathText(path)}: ${reason}.`, {
    reason,
    path: [...path],
    ...(item === undefined ? {} : { item }),
  })
}
