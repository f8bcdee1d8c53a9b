// Opaque page cursors: the sort keys of a page's last item, signed so that a client can neither forge one nor
// carry one over to another collection or sort.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import type { SortNode } from './query'

/** Longest cursor accepted: far above what 100 sort keys of ordinary values need, far below a DoS. */
const MAX_CURSOR_LENGTH = 8192

/** What the cursor is only valid for: the collection and each sort key with its direction. */
function orderOf(collection: Collection, sort: readonly SortNode[]): string {
  const keys = sort.map((node) => {
    const target = [...node.path.map((hop) => hop.field.name), node.field.name].join('.')
    const operand = node.operand ? `${node.operand.kind}${node.operand.kind === 'datePart' ? `:${node.operand.part}` : ''}()` : ''
    return `${node.direction === 'desc' ? '-' : ''}${target}${operand}`
  })
  return `${collection.name}\n${keys.join(',')}`
}

function sign(secret: Buffer, order: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(order).update('\n').update(payload).digest()
}

/** The cursor of the place after the item whose sort keys are `keys`. */
export function encodeCursor(secret: Buffer, collection: Collection, sort: readonly SortNode[], keys: readonly unknown[]): string {
  const payload = Buffer.from(JSON.stringify(keys)).toString('base64url')
  return `${payload}.${sign(secret, orderOf(collection, sort), payload).toString('base64url')}`
}

const isKeyValue = (value: unknown): boolean =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))

const invalid = (): InvalidQueryError =>
  new InvalidQueryError('"cursor" is not a cursor this list gave out (the collection or sort differs, or it was altered)')

/**
 * The sort keys a `cursor` parameter carries. Its signature covers the collection and the sort, so a cursor is
 * refused with a 400 when altered, forged, or used with another collection or sort; filters may change between
 * pages (access rules apply to every page anyway).
 */
export function decodeCursor(raw: string, secret: Buffer, collection: Collection, sort: readonly SortNode[]): unknown[] {
  const [payload, signature, extra] = raw.split('.')
  if (raw.length > MAX_CURSOR_LENGTH || payload === undefined || signature === undefined || extra !== undefined) throw invalid()
  const expected = sign(secret, orderOf(collection, sort), payload)
  const given = Buffer.from(signature, 'base64url')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid()
  let keys: unknown
  try {
    keys = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  } catch {
    throw invalid()
  }
  // Signed by us, so always well formed; checked anyway, so that a leaked secret cannot smuggle in objects.
  if (!Array.isArray(keys) || keys.length !== sort.length || !keys.every(isKeyValue)) throw invalid()
  return keys
}
