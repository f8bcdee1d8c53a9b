// Strong ETags for one item, and the If-Match / If-None-Match checks. The tag is a digest of every scalar field
// the caller may read, so it does not depend on `?fields=` and never reflects a field the caller cannot see.
import crypto from 'node:crypto'
import type { Request, Response } from 'express'
import type { Db } from '../execute/db'
import { PreconditionFailedError } from '../errors'
import type { FieldNode } from '../query/query'
import type { SchemaView } from '../query/schema-view'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import type { Item, PrimaryKey } from '../types'
import type { ItemsRequest } from './items-request'
import type { WriteGuard, WriteOptions } from '../writes/items-writer'

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

/** The item's ETag as the caller sees it, or null when they cannot see it. */
export async function etagOf(
  repository: ItemsRepository,
  view: SchemaView,
  collection: Collection,
  key: PrimaryKey,
): Promise<string | null> {
  const [item] = await repository.readByKeys(collection, [key], taggedFields(view, collection), view.scope(collection))
  return item ? digest(item) : null
}

/**
 * The ETags of the items with these keys that the caller can see, in key order, read in a write's transaction
 * once their rows are locked (see `withIfMatch`). One statement per chunk of keys.
 */
export const currentEtags =
  ({ repository, access, collection }: Pick<ItemsRequest, 'repository' | 'access' | 'collection'>) =>
  async (trx: Db, keys: readonly PrimaryKey[]): Promise<string[]> => {
    const { view } = access
    const items = await repository.readByKeys(collection, keys, taggedFields(view, collection), view.scope(collection), trx)
    return items.map(digest)
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
  // A parsed query is kept and shared by the requests that repeat it (query-cache.ts), its fields with it: their
  // one-item reads split alike, so the split is worked out once per fields list, view and collection.
  const kept = etagReads.get(fields)
  if (kept !== undefined && kept.view === view && kept.collection === collection) return kept.read
  const read = splitRead(view, collection, fields)
  etagReads.set(fields, { view, collection, read })
  return read
}

/** The last split of each fields list (see etagRead); a list goes with the parsed query that holds it. */
const etagReads = new WeakMap<readonly FieldNode[], { view: SchemaView; collection: Collection; read: EtagRead }>()

function splitRead(view: SchemaView, collection: Collection, fields: readonly FieldNode[]): EtagRead {
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
 * Adds an If-Match check to a write's options: the write goes ahead only when it changes at least one item and
 * every item it changes has one of the header's tags (`*`: any). One item's write (a one-item route, a singleton)
 * is checked as HTTP has it; a write of several items (keys, an array, a query) applies the header to each of
 * them, so a client that read them sends their tags, and a change to any of them since, or an item it did not
 * read, fails the whole write. The check runs inside the transaction once the rows are locked, so no item can
 * change between the check and the write. No header, no check.
 */
export function withIfMatch(
  options: WriteOptions,
  header: string | undefined,
  etags: (trx: Db, keys: readonly PrimaryKey[]) => Promise<readonly string[]>,
): WriteOptions {
  if (header === undefined) return options
  const guard: WriteGuard = async (trx, keys) => {
    // No item (a singleton without its row, a query that matched none) has a tag the header could name.
    if (keys.length === 0) throw new PreconditionFailedError()
    // Fewer tags than keys: an item the caller cannot see, which has none.
    const current = await etags(trx, keys)
    if (current.length < keys.length || !current.every((etag) => etagMatches(header, etag))) throw new PreconditionFailedError()
    await options.guard?.(trx, keys)
  }
  return { ...options, guard }
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
