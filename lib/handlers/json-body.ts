// The JSON body parser: any JSON media type, a size limit, and a nesting bound checked before JSON.parse runs.
import type { IncomingMessage } from 'node:http'
import express, { type RequestHandler } from 'express'
import type { RouterConfig } from '../config'
import { BODY_TOO_DEEP } from '../errors'

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

export function jsonBodyParser(config: Pick<RouterConfig, 'bodyLimit' | 'maxJsonDepth'>): RequestHandler {
  const maxNesting = config.maxJsonDepth + ENVELOPE_DEPTH
  return express.json({
    limit: config.bodyLimit,
    strict: false,
    type: isJsonBody,
    verify: (_req, _res, body) => {
      if (jsonNesting(body, maxNesting) > maxNesting) {
        throw Object.assign(new Error(`The body nests deeper than ${maxNesting} levels`), { type: BODY_TOO_DEEP })
      }
    },
  })
}
