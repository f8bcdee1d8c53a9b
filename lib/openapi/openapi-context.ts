// What every path builder of the OpenAPI document receives.
import type { Collection } from '../schema/collection'

export interface OpenApiContext {
  /** The served collections, in definition order. */
  readonly collections: readonly Collection[]
  /**
   * The versions table as a collection (its Item and Filter schemas describe `/versions`); null when the router
   * serves no `/versions` because the table does not exist.
   */
  readonly versions: Collection | null
  /** Whether the router serves the schema endpoints (`schemaEndpoints`). */
  readonly schemaEndpoints: boolean
  /** A unique operation id for an action on a collection: `list_articles`. */
  operationId(action: string, collection: Collection): string
}

/** Builds the paths one group of endpoints adds; the document merges the builders' answers. */
export type PathBuilder = (context: OpenApiContext) => Record<string, unknown>
