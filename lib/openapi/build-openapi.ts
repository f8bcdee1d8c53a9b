// Assembles the OpenAPI 3.1 document of one router from its collection model, the payload validators' schemas
// and the error code table, so the document cannot drift from what the router validates and answers.
import type { Collection, Schema } from '../schema/collection'
import type { OpenApiDocument, OpenApiOptions } from '../types'
import { collectionSchemas, componentName } from './collection-schemas'
import { errorComponents } from './error-responses'
import { itemsPaths } from './item-paths'
import type { OpenApiContext, PathBuilder } from './openapi-context'
import { parameterComponents } from './parameter-components'
import { schemaPaths } from './schema-paths'
import { versionPaths } from './version-paths'

/**
 * The groups of endpoints the router serves. A route added to router.ts adds its builder here: `SEARCH
 * /items/:collection` and export are expected as their own entries, each from its own module.
 */
const PATH_BUILDERS: readonly PathBuilder[] = [itemsPaths, versionPaths, schemaPaths]

export interface BuildOpenApiInput {
  readonly schema: Schema
  /** The versions table as a collection; null when the router serves no `/versions` (its table does not exist). */
  readonly versions: Collection | null
  readonly info?: Omit<OpenApiOptions, 'path'>
  readonly schemaEndpoints?: boolean
}

export function buildOpenApi({ schema, versions, info = {}, schemaEndpoints = false }: BuildOpenApiInput): OpenApiDocument {
  const collections = [...schema.collections.values()]
  const context: OpenApiContext = {
    collections,
    versions,
    schemaEndpoints,
    operationId: (action, collection) => `${action}_${componentName(collection, 'Item').slice(0, -'.Item'.length)}`,
  }
  const errors = errorComponents()
  const paths: Record<string, unknown> = {}
  for (const build of PATH_BUILDERS) Object.assign(paths, build(context))
  return {
    openapi: '3.1.0',
    info: {
      title: info.title ?? 'Items API',
      version: info.version ?? '1.0.0',
      ...(info.description === undefined ? {} : { description: info.description }),
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    paths,
    components: {
      schemas: {
        ...Object.assign({}, ...[...collections, ...(versions ? [versions] : [])].map(collectionSchemas)),
        ...errors.schemas,
      },
      parameters: parameterComponents(),
      responses: errors.responses,
    },
  }
}
