// The JSON body parser: any JSON media type, a size limit, and checks on the bytes before JSON.parse runs: valid
// UTF-8, a bound on nesting, and a note of a body that has none.
import { isUtf8 } from 'node:buffer'
import type { IncomingMessage } from 'node:http'
import express, { type RequestHandler } from 'express'
import type { RouterConfig } from '../config'
import { BODY_NOT_UTF8, BODY_TOO_DEEP, ItemsError } from '../errors'
import type { Logger } from '../types'

/** Brackets a body may nest around a json field's value: a batch array, an item, and `{ data }` / `{ query }`. */
const ENVELOPE_DEPTH = 3

/**
 * The deepest bracket nesting of a JSON text, outside strings, in one pass over the bytes: cheap, and it lets
 * a body nested 100,000 deep be refused before anything walks it recursively.
 */
export function jsonNesting(body: Buffer, stopAbove: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < body.length; index++) {
    const byte = body[index]
    if (inString) {
      if (byte === 0x5c)
        index++ // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false
    } else if (byte === 0x22) inString = true
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > deepest) deepest = depth
      if (deepest > stopAbove) return deepest
    } else if (byte === 0x5d || byte === 0x7d) depth--
  }
  return deepest
}

/**
 * `application/json` or any structured-syntax `+json` type, such as `application/vnd.api+json` (RFC 6839), in any
 * letter case and with any parameters. One anchored expression: given patterns, type-is parses and normalises
 * the header and each pattern again on every request.
 */
const JSON_MEDIA_TYPE = /^[\t ]*(?:application\/json|[\w!#$&^.+-]+\/[\w!#$&^.+-]+\+json)[\t ]*(?:;|$)/i

/** Whether the request has a body (a length or a transfer encoding, as HTTP tells) and it is JSON. */
export function isJsonBody(req: IncomingMessage): boolean {
  const { headers } = req
  const sized = headers['transfer-encoding'] !== undefined || headers['content-length'] !== undefined
  return sized && JSON_MEDIA_TYPE.test(headers['content-type'] ?? '')
}

/**
 * Requests whose JSON body had no bytes (`Content-Length: 0`, or a chunked body that ended at once). body-parser
 * hands them on as `{}`, which must not pass for a payload; a route that needs no body (a one-item DELETE whose
 * client sets the JSON type on every request) must still take them.
 */
const emptyBodies = new WeakSet<IncomingMessage>()

/** Whether the request's JSON body had no bytes (see `emptyBodies`). */
export const hasEmptyBody = (req: IncomingMessage): boolean => emptyBodies.has(req)

/** `utf-8` in any spelling body-parser passes on; JSON in UTF-16 is decoded by iconv, not checked here. */
const UTF8 = /^utf-?8$/i

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }

/** `bodyLimit` in bytes, read as body-parser reads it (config.ts has checked its form). */
export function limitBytes(limit: number | string): number {
  if (typeof limit === 'number') return limit
  const [, amount = '0', unit = 'b'] = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i.exec(limit.trim()) ?? []
  return Math.floor(Number(amount) * UNITS[unit.toLowerCase()]!)
}

/**
 * Whether a JSON body was read before the router saw the request: by an app-wide `express.json()` (body-parser 2
 * leaves the stream ended; body-parser 1 also marks `_body`).
 */
const readBefore = (req: IncomingMessage): boolean => req.readableEnded || (req as { _body?: unknown })._body === true

/**
 * The router's JSON parser. A body another parser read first cannot be read again: its errors were that parser's
 * to answer, but the router still refuses what its declared length puts over `bodyLimit`, and an empty one, and
 * says once, through the logger, what to change.
 */
export function jsonBodyParser(config: Pick<RouterConfig, 'bodyLimit' | 'maxJsonDepth'>, logger: Logger): RequestHandler {
  const parse = ownParser(config)
  const limit = limitBytes(config.bodyLimit)
  let warned = false
  return (req, res, next) => {
    // No JSON body (every GET): body-parser would only find that out again, through the same test and more.
    if (!isJsonBody(req)) return next()
    if (!readBefore(req)) return parse(req, res, next)
    if (!warned) {
      warned = true
      logger.warn(
        'express-items-router: a JSON body parser ran before the router, so its limit and its error answers (HTML from ' +
          "Express's default handler) apply instead of the router's. Mount express.json() after the router or only on " +
          'your own routes (see the body parsers section of docs/guide/middleware.md).',
      )
    }
    const length = Number(req.headers['content-length'])
    if (length > limit) {
      return next(new ItemsError('PAYLOAD_TOO_LARGE', `Payload too large. The body exceeds ${limit} bytes.`, { limit }))
    }
    if (length === 0) emptyBodies.add(req)
    next()
  }
}

function ownParser(config: Pick<RouterConfig, 'bodyLimit' | 'maxJsonDepth'>): RequestHandler {
  const maxNesting = config.maxJsonDepth + ENVELOPE_DEPTH
  return express.json({
    limit: config.bodyLimit,
    strict: false,
    type: isJsonBody,
    verify: (req, _res, body, encoding) => {
      if (body.length === 0) {
        emptyBodies.add(req)
        return
      }
      // Decoding would turn each invalid sequence into U+FFFD, and the item would store that instead of the text sent.
      if (UTF8.test(encoding) && !isUtf8(body)) {
        throw Object.assign(new Error('The body is not valid UTF-8'), { type: BODY_NOT_UTF8 })
      }
      if (jsonNesting(body, maxNesting) > maxNesting) {
        throw Object.assign(new Error(`The body nests deeper than ${maxNesting} levels`), { type: BODY_TOO_DEEP })
      }
    },
  })
}
