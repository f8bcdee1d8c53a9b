// What every handler works with, built once per router by createItemsRouter.
import type { Request } from 'express'
import type { Knex } from 'knex'
import type { AccessSetup } from '../access/caller-access'
import type { ParserOptions } from '../query/parser-options'
import type { ParsedQueries } from '../query/query-cache'
import type { QueryStringLimits } from '../query/read-query-string'
import type { IdempotencyStore } from '../repository/idempotency-store'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection, Schema } from '../schema/collection'
import type { PayloadValidator } from '../schema/payload-validator'
import type { ItemsContext, Logger } from '../types'
import type { VersionsService } from '../versions/versions-service'
import { ItemsWriter, type AnswerRead, type NestedSetup } from '../writes/items-writer'
import type { Lifecycle } from '../writes/lifecycle'
import type { CallerAccess } from '../access/caller-access'
import type { ExportSetup } from './export-setup'

/** The parser's limits; the schema view comes from each caller's access. */
export type ParserLimits = Omit<ParserOptions, 'schema' | 'variables'>

export interface Services {
  readonly knex: Knex
  readonly schema: Schema
  readonly repository: ItemsRepository
  readonly validators: ReadonlyMap<Collection, PayloadValidator>
  readonly versions: VersionsService
  readonly queryString: QueryStringLimits
  readonly parser: ParserLimits
  readonly access: AccessSetup
  readonly lifecycle: Lifecycle
  readonly context: (req: Request) => ItemsContext | Promise<ItemsContext>
  readonly logger: Logger
  /** Parsed queries by caller view and query string (see query-cache.ts). */
  readonly queries: ParsedQueries
  readonly idempotency: IdempotencyStore
  /** What the router's exports share (see export-items.ts). */
  readonly exports: ExportSetup
}

/**
 * The caller's writes to `collection`, with access rules, hooks and events. Nested values reach other
 * collections through their own writers, made on first use and kept for the request.
 */
export function writerFor(services: Services, collection: Collection, access: CallerAccess, answer?: AnswerRead): ItemsWriter {
  const writers = new Map<Collection, ItemsWriter>()
  const nested: NestedSetup = {
    maxDepth: services.parser.maxRelationalDepth,
    writerOf: (other) => {
      let writer = writers.get(other)
      if (writer === undefined) {
        writer = new ItemsWriter(other, services.repository, services.validators.get(other)!, services.lifecycle, access, null, nested)
        writers.set(other, writer)
      }
      return writer
    },
  }
  return new ItemsWriter(collection, services.repository, services.validators.get(collection)!, services.lifecycle, access, answer, nested)
}
