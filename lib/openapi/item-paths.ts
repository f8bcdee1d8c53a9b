// The /items paths of every collection: list, create, update and delete many, and one item by key; for a
// singleton, its read and update at /items/:c and /items/:c/singleton.
import type { Collection } from '../schema/collection'
import { ref, responseValue } from './collection-schemas'
import { errorResponses } from './error-responses'
import { filterParameter, parameterRef, type QueryParameterName } from './query-parameters'
import type { OpenApiContext } from './openapi-context'

type Json = Record<string, unknown>

const READ: readonly QueryParameterName[] = ['fields', 'deep', 'alias', 'backlink']
const LIST: readonly QueryParameterName[] = [...READ, 'limit', 'offset', 'page', 'sort', 'meta', 'search', 'aggregate', 'groupBy']

export const json = (schema: Json): Json => ({ content: { 'application/json': { schema } } })
export const dataOf = (schema: Json, extra: Json = {}): Json => ({
  type: 'object',
  required: ['data'],
  properties: { data: schema, ...extra },
})
export const ok = (description: string, schema: Json): Json => ({ description, ...json(schema) })
export const NO_CONTENT = { description: 'Done; no body.' }

const META = {
  type: 'object',
  properties: { total_count: { type: 'integer' }, filter_count: { type: 'integer' } },
}

function itemPaths(collection: Collection, { operationId }: OpenApiContext): Json {
  const base = `/items/${encodeURIComponent(collection.name)}`
  const item = ref(collection, 'Item')
  const key = responseValue(collection.primaryKey)
  const filter = filterParameter(ref(collection, 'Filter'))
  const read = READ.map(parameterRef)
  const keys = { type: 'array', items: key }
  const idParameter = { name: 'id', in: 'path', required: true, schema: key }
  const tag = [collection.name]
  const created = ok('The created items, read back through `fields`.', dataOf({ anyOf: [item, { type: 'array', items: item }] }))
  const readBack = { '204': { description: 'Written; the caller may not read the item back.' } }
  return {
    [base]: {
      get: {
        operationId: operationId('list', collection),
        tags: tag,
        summary: `List ${collection.name}`,
        parameters: [...LIST.map(parameterRef), filter],
        responses: {
          '200': ok('A page of items (with `aggregate`: grouped rows).', dataOf({ type: 'array', items: item }, { meta: META })),
          ...errorResponses([400, 403, 404, 500]),
        },
      },
      post: {
        operationId: operationId('create', collection),
        tags: tag,
        summary: `Create one or many ${collection.name} in one transaction`,
        parameters: read,
        requestBody: {
          required: true,
          ...json({ anyOf: [ref(collection, 'Create'), { type: 'array', items: ref(collection, 'Create') }] }),
        },
        responses: { '200': created, ...readBack, ...errorResponses([400, 403, 404, 413, 500]) },
      },
      patch: {
        operationId: operationId('updateMany', collection),
        tags: tag,
        summary: `Update many ${collection.name}: by keys, by query, or an array of items carrying their keys`,
        parameters: read,
        requestBody: {
          required: true,
          ...json({
            anyOf: [
              { type: 'object', required: ['keys', 'data'], properties: { keys, data: ref(collection, 'Update') } },
              { type: 'object', required: ['query', 'data'], properties: { query: { type: 'object' }, data: ref(collection, 'Update') } },
              { type: 'array', items: { type: 'object' } },
            ],
          }),
        },
        responses: {
          '200': ok('The updated items.', dataOf({ type: 'array', items: item })),
          ...errorResponses([400, 403, 404, 413, 500]),
        },
      },
      delete: {
        operationId: operationId('deleteMany', collection),
        tags: tag,
        summary: `Delete many ${collection.name}: a key array, \`{ keys }\` or \`{ query }\``,
        requestBody: {
          required: true,
          ...json({
            anyOf: [
              keys,
              { type: 'object', required: ['keys'], properties: { keys } },
              { type: 'object', required: ['query'], properties: { query: { type: 'object' } } },
            ],
          }),
        },
        responses: { '204': NO_CONTENT, ...errorResponses([400, 403, 404, 413, 500]) },
      },
    },
    [`${base}/{id}`]: {
      parameters: [idParameter],
      get: {
        operationId: operationId('read', collection),
        tags: tag,
        parameters: [...read, parameterRef('version')],
        responses: { '200': ok('The item.', dataOf(item)), ...errorResponses([400, 403, 404, 500]) },
      },
      patch: {
        operationId: operationId('update', collection),
        tags: tag,
        parameters: read,
        requestBody: { required: true, ...json(ref(collection, 'Update')) },
        responses: { '200': ok('The updated item.', dataOf(item)), ...readBack, ...errorResponses([400, 403, 404, 413, 500]) },
      },
      delete: {
        operationId: operationId('delete', collection),
        tags: tag,
        responses: { '204': NO_CONTENT, ...errorResponses([403, 404, 500]) },
      },
    },
  }
}

function singletonPaths(collection: Collection, { operationId }: OpenApiContext): Json {
  const read = READ.map(parameterRef)
  const tag = [collection.name]
  const operations = (suffix: string): Json => ({
    get: {
      operationId: operationId(`read${suffix}`, collection),
      tags: tag,
      summary: `Read the ${collection.name} singleton (its primary key is null before the row exists)`,
      parameters: [...read, parameterRef('version')],
      responses: { '200': ok('The item.', dataOf(ref(collection, 'Item'))), ...errorResponses([400, 403, 404, 500]) },
    },
    patch: {
      operationId: operationId(`update${suffix}`, collection),
      tags: tag,
      summary: `Update (or create) the ${collection.name} singleton`,
      parameters: read,
      requestBody: { required: true, ...json(ref(collection, 'Update')) },
      responses: {
        '200': ok('The item.', dataOf(ref(collection, 'Item'))),
        '204': { description: 'Written; the caller may not read the item back.' },
        ...errorResponses([400, 403, 404, 413, 500]),
      },
    },
  })
  const base = `/items/${encodeURIComponent(collection.name)}`
  return { [base]: operations(''), [`${base}/singleton`]: operations('Singleton') }
}

/** The /items paths of every collection. */
export function itemsPaths(context: OpenApiContext): Json {
  const paths: Json = {}
  for (const collection of context.collections) {
    Object.assign(paths, collection.singleton ? singletonPaths(collection, context) : itemPaths(collection, context))
  }
  return paths
}
