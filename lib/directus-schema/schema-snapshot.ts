// The snapshot of a whole configuration, as a client allowed to read everything gets it from /schema/snapshot:
// what `express-items-router snapshot` writes for tools that read a file.
import { buildSchema } from '../schema/build-schema'
import type { DirectusSnapshot } from './directus-shapes'
import { SchemaAnswers } from './schema-answers'
import { wholeSchema } from './visible-schema'

/** The limits play no part in a snapshot; the router's defaults satisfy every collection's own. */
const ANY_LIMITS = { defaultLimit: 100, maxLimit: undefined, maxBatchSize: 1000 }

/** `definitions` as `createItemsRouter`'s `collections` option takes them; `vendor` names the database. */
export function schemaSnapshot(definitions: unknown, vendor: string): DirectusSnapshot {
  return new SchemaAnswers(wholeSchema(buildSchema(definitions, ANY_LIMITS)), vendor).snapshot()
}
