// The schema endpoints' paths (/collections, /fields, /relations, /schema/snapshot), when `schemaEndpoints` is on.
import { errorResponses } from './error-responses'
import { dataOf, ok } from './item-paths'
import type { OpenApiContext } from './openapi-context'

type Json = Record<string, unknown>

const TAG = ['schema']
const NOTE = 'Only what the caller may read; docs/reference/directus-schema.md says which keys are filled and which are neutral.'
const param = (name: string, names?: readonly string[]): Json => ({
  name,
  in: 'path',
  required: true,
  schema: names ? { type: 'string', enum: [...names] } : { type: 'string' },
})

const COLLECTION = {
  type: 'object',
  required: ['collection', 'meta', 'schema'],
  properties: {
    collection: { type: 'string' },
    meta: { type: 'object', properties: { singleton: { type: 'boolean' }, versioning: { type: 'boolean' } } },
    schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
  },
}
const FIELD = {
  type: 'object',
  required: ['collection', 'field', 'type', 'schema', 'meta'],
  properties: {
    collection: { type: 'string' },
    field: { type: 'string' },
    type: { type: 'string' },
    schema: { anyOf: [{ type: 'object' }, { type: 'null' }], description: 'The column; null for a one-to-many alias.' },
    meta: { type: 'object' },
  },
}
const RELATION = {
  type: 'object',
  required: ['collection', 'field', 'related_collection', 'schema', 'meta'],
  properties: {
    collection: { type: 'string' },
    field: { type: 'string' },
    related_collection: { type: 'string' },
    schema: { type: 'object' },
    meta: { type: 'object' },
  },
}
const SNAPSHOT = {
  type: 'object',
  required: ['version', 'directus', 'vendor', 'collections', 'fields', 'systemFields', 'relations'],
  properties: {
    version: { const: 1 },
    directus: { type: 'string' },
    vendor: { type: 'string' },
    collections: { type: 'array', items: { type: 'object' } },
    fields: { type: 'array', items: { type: 'object' } },
    systemFields: { type: 'array', items: { type: 'object' } },
    relations: { type: 'array', items: { type: 'object' } },
  },
}

export function schemaPaths({ collections, schemaEndpoints }: OpenApiContext): Json {
  if (!schemaEndpoints) return {}
  const names = collections.map((collection) => collection.name)
  const read = (operationId: string, summary: string, schema: Json, parameters: Json[] = []): Json => ({
    get: {
      operationId,
      tags: TAG,
      summary,
      description: NOTE,
      ...(parameters.length > 0 ? { parameters } : {}),
      responses: { '200': ok(summary, dataOf(schema)), ...errorResponses(parameters.length > 0 ? [404, 500] : [500]) },
    },
  })
  const list = (items: Json): Json => ({ type: 'array', items })
  return {
    '/collections': read('list_collections', 'The collections', list(COLLECTION)),
    '/collections/{collection}': read('read_collection', 'One collection', COLLECTION, [param('collection', names)]),
    '/fields': read('list_fields', 'Every field of every collection', list(FIELD)),
    '/fields/{collection}': read('list_collection_fields', 'The fields of one collection', list(FIELD), [param('collection', names)]),
    '/fields/{collection}/{field}': read('read_field', 'One field', FIELD, [param('collection', names), param('field')]),
    '/relations': read('list_relations', 'Every many-to-one relation', list(RELATION)),
    '/relations/{collection}': read('list_collection_relations', 'The relations whose many side is the collection', list(RELATION), [
      param('collection', names),
    ]),
    '/relations/{collection}/{field}': read('read_relation', 'The relation of one many-to-one field', RELATION, [
      param('collection', names),
      param('field'),
    ]),
    '/schema/snapshot': read('read_schema_snapshot', 'The schema snapshot, as `directus schema snapshot` writes it', SNAPSHOT),
  }
}
