// The JSON body parser: any JSON media type, a size limit, and a nesting bound checked before JSON.parse runs.
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

export function jsonBodyParser(config: Pick<RouterConfig, 'bodyLimit' | 'maxJsonDepth'>): RequestHandler {
  const maxNesting = config.maxJsonDepth + ENVELOPE_DEPTH
  return express.json({
    limit: config.bodyLimit,
    strict: false,
    // `application/vnd.api+json` and other structured-syntax `+json` types are JSON too (RFC 6839).
    type: ['application/json', 'application/*+json'],
    verify: (_req, _res, body) => {
      if (jsonNesting(body, maxNesting) > maxNesting) {
        throw Object.assign(new Error(`The body nests deeper than ${maxNesting} levels`), { type: BODY_TOO_DEEP })
      }
    },
  })
}
