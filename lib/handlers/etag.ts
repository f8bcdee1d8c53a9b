// Strong ETags for one item, and the If-Match / If-None-Match checks. The tag is a digest of every scalar field
// the caller may read, so it does not depend on `?fields=` and never reflects a field the caller cannot see.
import crypto from 'node:crypto'
import type { Request, Response } from 'express'
import type { Db } from '../repository/item-loader'
import { PreconditionFailedError } from '../errors'
import type { FieldNode } from '../query/query'
import type { SchemaView } from '../query/schema-view'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import type { Item, PrimaryKey } from '../types'
import type { WriteGuard, WriteOptions } from '../writes/items-writer'
import { extended } from '../extended'

/**
 * Output names of the fields a tag digests when they ride along in another read: no query can name them, as a
 * field name never starts with a NUL.
 */
const ETAG_OUTPUT = '\u0000etag:'

/**
 * The tagged fields by view, collection and output prefix. A view outlives its request where every caller shares
 * it (access that is the same for all), so a one-item read does not build them again.
 */
const taggedByView = new WeakMap<SchemaView, Map<string, readonly TaggedField[]>>()

type TaggedField = Extract<FieldNode, { kind: 'field' }>

/** Every scalar field the caller may read, in definition order: what an ETag digests. */
function taggedFields(view: SchemaView, collection: Collection, prefix = ''): readonly TaggedField[] {
  let kept = taggedByView.get(view)
  if (kept === undefined) taggedByView.set(view, (kept = new Map()))
  const key = `${prefix}${collection.name}`
  let fields = kept.get(key)
  if (fields === undefined) {
    fields = view
      .members(collection)
      .flatMap((member): TaggedField[] =>
        member.kind === 'field' ? [{ kind: 'field', output: `${prefix}${member.name}`, field: member }] : [],
      )
    kept.set(key, fields)
  }
  return fields
}

/** Node 20.12's one-shot `crypto.hash` skips the Hash object a one-item read would otherwise make and drop. */
const sha256: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'base64url')
    : (text) => crypto.createHash('sha256').update(text).digest('base64url')

const digest = (tagged: Item): string => `"${sha256(JSON.stringify(tagged))}"`

/** The item's ETag as the caller sees it, or null when they cannot see it. In `db` when given (a write's transaction). */
export async function etagOf(
  repository: ItemsRepository,
  view: SchemaView,
  collection: Collection,
  key: PrimaryKey,
  db?: Db,
): Promise<string | null> {
  const [item] = await repository.readByKeys(collection, [key], taggedFields(view, collection), view.scope(collection), db)
  return item ? digest(item) : null
}

/** A one-item read's fields with what its ETag needs, and how to split what it read into the item and its ETag. */
export interface EtagRead {
  readonly fields: readonly FieldNode[]
  take(read: Item): { item: Item; etag: string }
}

/**
 * A one-item read that also yields the item's ETag from the same row, instead of a second statement. A tagged
 * field the read already answers under its own name (`fields=*` answers them all) is taken from the item; the
 * others ride along under names no query can use, and are taken out of the item again. The digest is the same
 * as `etagOf`'s either way.
 */
export function etagRead(view: SchemaView, collection: Collection, fields: readonly FieldNode[]): EtagRead {
  const tagged = taggedFields(view, collection)
  const hidden = taggedFields(view, collection, ETAG_OUTPUT)
  const answered = tagged.map((node) =>
    fields.some((read) => read.kind === 'field' && read.field === node.field && read.output === node.output),
  )
  const sources = tagged.map((node, index) => (answered[index] ? node.output : hidden[index]!.output))
  const riding = hidden.filter((_, index) => !answered[index])
  return {
    fields: riding.length === 0 ? fields : [...fields, ...riding],
    take: (read) => {
      const values: Item = {}
      tagged.forEach((node, index) => (values[node.output] = read[sources[index]!]))
      return { item: riding.length === 0 ? read : withoutRiding(read), etag: digest(values) }
    },
  }
}

/**
 * The item without the fields that rode along for its ETag, built anew: deleting keys would slow every later
 * access to it.
 */
function withoutRiding(read: Item): Item {
  const item: Item = {}
  for (const output of Object.keys(read)) if (!output.startsWith(ETAG_OUTPUT)) item[output] = read[output]
  return item
}

/** Whether an If-Match / If-None-Match header names `etag` (`*`: any existing item). Weak tags never match. */
export function etagMatches(header: string, etag: string | null): boolean {
  if (etag === null) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed === etag
  })
}

/**
 * Adds an If-Match check to a write's options: it runs inside the transaction once the item's row is locked,
 * so the item cannot change between the check and the write. No header, no check.
 */
export function withIfMatch(
  options: WriteOptions,
  header: string | undefined,
  etag: (trx: Db, keys: readonly PrimaryKey[]) => Promise<string | null>,
): WriteOptions {
  if (header === undefined) return options
  const guard: WriteGuard = async (trx, keys) => {
    if (!etagMatches(header, await etag(trx, keys))) throw new PreconditionFailedError()
    await options.guard?.(trx, keys)
  }
  return extended(options, { guard })
}

/** Sets the ETag of a one-item read; answers 304 with no body, and true, when `If-None-Match` names it. */
export function notModified(req: Request, res: Response, etag: string | null): boolean {
  if (etag === null) return false
  res.setHeader('ETag', etag)
  const header = req.headers['if-none-match']
  if (header === undefined || !etagMatches(header, etag)) return false
  res.status(304).end()
  return true
}
