// The /items paths of every collection: list, create, update and delete many, and one item by key; for a
// singleton, its read and update at /items/:c and /items/:c/singleton.
import type { Collection } from '../schema/collection'
import { keyFormOf } from '../schema/item-key'
import { bodyKey, keyTextSchema, ref, responseValue } from './collection-schemas'
import { errorResponses } from './error-responses'
import { queryParameters } from './parameter-components'
import type { OpenApiContext } from './openapi-context'

type Json = Record<string, unknown>

export const json = (schema: Json): Json => ({ content: { 'application/json': { schema } } })
export const dataOf = (schema: Json, extra: Json = {}): Json => ({
  type: 'object',
  required: ['data'],
  properties: { data: schema, ...extra },
})
export const ok = (description: string, schema: Json): Json => ({ description, ...json(schema) })
export const NO_CONTENT = { description: 'Done; no body.' }

/** What any request may meet besides its own errors: a database out of reach (503) or a time limit (504). */
const ALWAYS = [500, 503, 504] as const
/** What a write may meet beside those: collisions retries did not resolve (409). */
const WRITES = [...ALWAYS, 409] as const

const header = (name: string, description: string): Json => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: { type: 'string' },
})
const IDEMPOTENCY_KEY = header(
  'Idempotency-Key',
  'Makes a retry after a lost response answer the first response instead of writing again (see the README).',
)
const IF_MATCH = header('If-Match', 'Write only while the item still has one of these ETags; otherwise 412.')
const IF_NONE_MATCH = header('If-None-Match', 'Answer 304 with no body while the item still has one of these ETags.')
const ETAG = { ETag: { description: 'A strong tag of the item as stored.', schema: { type: 'string' } } }
const NOT_MODIFIED = { '304': { description: 'The item still has the ETag `If-None-Match` named.' } }

const META = {
  type: 'object',
  properties: {
    total_count: { type: 'integer' },
    filter_count: { type: 'integer' },
    total_count_estimate: { type: 'integer' },
    next_cursor: { type: ['string', 'null'] },
  },
}

function itemPaths(collection: Collection, { operationId }: OpenApiContext): Json {
  const base = `/items/${encodeURIComponent(collection.name)}`
  const item = ref(collection, 'Item')
  const filter = ref(collection, 'Filter')
  const readsBack = queryParameters('readBack', filter)
  const keys = { type: 'array', items: bodyKey(collection) }
  const idParameter =
    collection.key.length === 1
      ? { name: 'id', in: 'path', required: true, schema: responseValue(collection.primaryKey) }
      : {
          name: 'id',
          in: 'path',
          required: true,
          description: `A composite key: ${keyFormOf(collection)}, each component percent-encoded (a "," in a text component is %2C)`,
          schema: keyTextSchema(collection),
        }
  const tag = [collection.name]
  const created = ok('The created items, read back through `fields`.', dataOf({ anyOf: [item, { type: 'array', items: item }] }))
  const readBack = { '204': { description: 'Written; the caller may not read the item back.' } }
  return {
    [base]: {
      get: {
        operationId: operationId('list', collection),
        tags: tag,
        summary: `List ${collection.name}`,
        parameters: queryParameters('list', filter),
        responses: {
          '200': ok('A page of items (with `aggregate`: grouped rows).', dataOf({ type: 'array', items: item }, { meta: META })),
          ...errorResponses([400, 403, 404, ...ALWAYS]),
        },
        // OpenAPI 3.1 has no operation for the SEARCH method, so it is described in an extension.
        'x-items-search': {
          summary: `SEARCH ${base}: the same list, its query parameters given as \`{ "query": { ... } }\` in a JSON body`,
          requestBody: { required: true, ...json({ type: 'object', required: ['query'], properties: { query: { type: 'object' } } }) },
        },
      },
      post: {
        operationId: operationId('create', collection),
        tags: tag,
        summary: `Create one or many ${collection.name} in one transaction`,
        parameters: [...readsBack, IDEMPOTENCY_KEY],
        requestBody: {
          required: true,
          ...json({ anyOf: [ref(collection, 'Create'), { type: 'array', items: ref(collection, 'Create') }] }),
        },
        responses: { '200': created, ...readBack, ...errorResponses([400, 403, 404, 413, 422, ...WRITES]) },
      },
      patch: {
        operationId: operationId('updateMany', collection),
        tags: tag,
        summary: `Update many ${collection.name}: by keys, by query, or an array of items carrying their keys`,
        parameters: [...readsBack, IDEMPOTENCY_KEY],
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
          ...errorResponses([400, 403, 404, 413, 422, ...WRITES]),
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
        responses: { '204': NO_CONTENT, ...errorResponses([400, 403, 404, 413, ...WRITES]) },
      },
    },
    [`${base}/{id}`]: {
      parameters: [idParameter],
      get: {
        operationId: operationId('read', collection),
        tags: tag,
        parameters: [...queryParameters('item', filter), IF_NONE_MATCH],
        responses: {
          '200': { ...ok('The item.', dataOf(item)), headers: ETAG },
          ...NOT_MODIFIED,
          ...errorResponses([400, 403, 404, ...ALWAYS]),
        },
      },
      patch: {
        operationId: operationId('update', collection),
        tags: tag,
        parameters: [...readsBack, IDEMPOTENCY_KEY, IF_MATCH],
        requestBody: { required: true, ...json(ref(collection, 'Update')) },
        responses: {
          '200': ok('The updated item.', dataOf(item)),
          ...readBack,
          ...errorResponses([400, 403, 404, 412, 413, 422, ...WRITES]),
        },
      },
      delete: {
        operationId: operationId('delete', collection),
        tags: tag,
        parameters: [IF_MATCH],
        responses: { '204': NO_CONTENT, ...errorResponses([403, 404, 412, ...WRITES]) },
      },
    },
  }
}

function singletonPaths(collection: Collection, { operationId }: OpenApiContext): Json {
  const filter = ref(collection, 'Filter')
  const readsBack = queryParameters('readBack', filter)
  const tag = [collection.name]
  const operations = (suffix: string): Json => ({
    get: {
      operationId: operationId(`read${suffix}`, collection),
      tags: tag,
      summary: `Read the ${collection.name} singleton (its primary key is null before the row exists)`,
      parameters: [...queryParameters('item', filter), IF_NONE_MATCH],
      responses: {
        '200': { ...ok('The item.', dataOf(ref(collection, 'Item'))), headers: ETAG },
        ...NOT_MODIFIED,
        ...errorResponses([400, 403, 404, ...ALWAYS]),
      },
    },
    patch: {
      operationId: operationId(`update${suffix}`, collection),
      tags: tag,
      summary: `Update (or create) the ${collection.name} singleton`,
      parameters: [...readsBack, IDEMPOTENCY_KEY, IF_MATCH],
      requestBody: { required: true, ...json(ref(collection, 'Update')) },
      responses: {
        '200': ok('The item.', dataOf(ref(collection, 'Item'))),
        '204': { description: 'Written; the caller may not read the item back.' },
        ...errorResponses([400, 403, 404, 412, 413, 422, ...WRITES]),
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
