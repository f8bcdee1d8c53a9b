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
import { ItemsWriter, type AnswerRead } from '../writes/items-writer'
import type { Lifecycle } from '../writes/lifecycle'
import type { CallerAccess } from '../access/caller-access'

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
}

/** The caller's writes to `collection`, with access rules, hooks and events. */
export const writerFor = (services: Services, collection: Collection, access: CallerAccess, answer?: AnswerRead): ItemsWriter =>
  new ItemsWriter(collection, services.repository, services.validators.get(collection)!, services.lifecycle, access, answer)
