// DELETE /items/:collection: an array of keys, `{ keys }` or `{ query }`; 204, all in one transaction.
import { InvalidPayloadError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { parseBodyKeys } from '../query/parse-key'
import { sendNoContent } from './envelope'
import { currentEtags, withIfMatch } from './etag'
import type { ItemsHandler } from './items-request'

const FORMS = 'Send an array of keys, { keys } or { query }'

/** Which items the body names: keys (an array, or `{ keys }`) or a `{ query }`. Anything else is a 400. */
function formOf(input: unknown): { keys: unknown } | { query: unknown } {
  if (Array.isArray(input)) return { keys: input }
  if (!isPlainObject(input)) throw new InvalidPayloadError(FORMS)
  const unknown = Object.keys(input).find((key) => key !== 'keys' && key !== 'query')
  if (unknown !== undefined) throw new InvalidPayloadError(`${FORMS}; the body has an unknown key "${unknown}"`)
  if ((input.keys === undefined) === (input.query === undefined)) throw new InvalidPayloadError(FORMS)
  return input.keys !== undefined ? { keys: input.keys } : { query: input.query }
}

export const deleteItems: ItemsHandler = async (req, res, request) => {
  const { collection, writer, body, selection } = request
  const form = formOf(body())
  const options = withIfMatch({}, req.get('If-Match'), currentEtags(request))
  if ('keys' in form) await writer().delete(parseBodyKeys(collection, form.keys, collection.limits.maxBatchSize), options)
  else await writer().deleteWhere(selection(form.query), options)
  sendNoContent(res)
}
