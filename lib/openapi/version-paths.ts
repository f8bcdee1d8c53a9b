// The /versions paths: content versions of the versioned collections' items.
import { ref } from './collection-schemas'
import { errorResponses } from './error-responses'
import { dataOf, json, NO_CONTENT, ok } from './item-paths'
import type { OpenApiContext } from './openapi-context'
import { queryParameters } from './parameter-components'

type Json = Record<string, unknown>

const KEY = { type: 'string', minLength: 1, maxLength: 64 }

export function versionPaths({ versions, collections }: OpenApiContext): Json {
  if (versions === null) return {}
  const versioned = collections.filter((collection) => collection.versioning)
  const version = ref(versions, 'Item')
  const tag = ['versions']
  const one = ok('The version.', dataOf(version))
  const anyItem = { type: 'object', description: 'An item of the version’s collection.' }
  const id = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } }
  const newVersion = {
    type: 'object',
    required: ['key', 'collection', 'item'],
    properties: {
      key: { ...KEY, not: { const: 'main' } },
      name: { anyOf: [{ type: 'string', maxLength: 255 }, { type: 'null' }] },
      collection: { type: 'string', enum: versioned.map((collection) => collection.name) },
      item: {
        anyOf: [
          { type: 'string' },
          { type: 'integer' },
          // A composite key may also be named by an object of its fields (answered as its text form).
          ...(versioned.some((collection) => collection.key.length > 1) ? [{ type: 'object' }] : []),
          { type: 'null' },
        ],
        description: 'The key of the item; null for a draft of an item that does not exist yet.',
      },
    },
  }
  return {
    '/versions': {
      get: {
        operationId: 'list_versions',
        tags: tag,
        summary: 'List the content versions the caller may manage',
        parameters: queryParameters('versions', ref(versions, 'Filter')),
        responses: {
          '200': ok('A page of versions.', dataOf({ type: 'array', items: version }, { meta: { type: 'object' } })),
          ...errorResponses([400, 500]),
        },
      },
      post: {
        operationId: 'create_version',
        tags: tag,
        summary: 'Create a version, or several at once from an array (one transaction)',
        requestBody: {
          required: true,
          ...json({ anyOf: [newVersion, { type: 'array', items: newVersion }] }),
        },
        responses: { '200': one, ...errorResponses([400, 403, 404, 422, 500]) },
      },
      patch: {
        operationId: 'update_versions',
        tags: tag,
        summary: 'Rename many versions: `{ keys, data }` or an array of `{ id, key?, name? }` (as the SDK sends)',
        requestBody: {
          required: true,
          ...json({
            anyOf: [
              { type: 'object', required: ['keys', 'data'] },
              { type: 'array', items: { type: 'object' } },
            ],
          }),
        },
        responses: { '200': ok('The versions.', dataOf({ type: 'array', items: version })), ...errorResponses([400, 404, 422, 500]) },
      },
      delete: {
        operationId: 'delete_versions',
        tags: tag,
        summary: 'Delete many versions by id',
        requestBody: { required: true, ...json({ type: 'array', items: { type: 'integer' } }) },
        responses: { '204': NO_CONTENT, ...errorResponses([400, 404, 500]) },
      },
    },
    '/versions/{id}': {
      parameters: [id],
      get: { operationId: 'read_version', tags: tag, responses: { '200': one, ...errorResponses([404, 500]) } },
      patch: {
        operationId: 'rename_version',
        tags: tag,
        requestBody: {
          required: true,
          ...json({ type: 'object', properties: { key: KEY, name: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }),
        },
        responses: { '200': one, ...errorResponses([400, 404, 422, 500]) },
      },
      delete: { operationId: 'delete_version', tags: tag, responses: { '204': NO_CONTENT, ...errorResponses([404, 500]) } },
    },
    '/versions/{id}/save': {
      parameters: [id],
      post: {
        operationId: 'save_version',
        tags: tag,
        summary: 'Merge changes into the version’s delta (validated like an update of its collection)',
        requestBody: { required: true, ...json({ anyOf: versioned.map((collection) => ref(collection, 'Update')) }) },
        responses: { '200': ok('The item as the version now shows it.', dataOf(anyItem)), ...errorResponses([400, 404, 500]) },
      },
    },
    '/versions/{id}/compare': {
      parameters: [id],
      get: {
        operationId: 'compare_version',
        tags: tag,
        responses: {
          '200': ok(
            'The delta beside the main item; `mainHash` is what a promote must send.',
            dataOf({
              type: 'object',
              required: ['outdated', 'mainHash', 'current', 'main'],
              properties: { outdated: { type: 'boolean' }, mainHash: { type: 'string' }, current: anyItem, main: anyItem },
            }),
          ),
          ...errorResponses([404, 500]),
        },
      },
    },
    '/versions/{id}/promote': {
      parameters: [id],
      post: {
        operationId: 'promote_version',
        tags: tag,
        summary: 'Apply the delta (or some of its fields) to the main item through the normal update path',
        requestBody: {
          required: true,
          ...json({
            type: 'object',
            required: ['mainHash'],
            properties: { mainHash: { type: 'string' }, fields: { type: 'array', items: { type: 'string' } } },
          }),
        },
        responses: {
          '200': ok('The key of the main item that was updated.', dataOf({ anyOf: [{ type: 'string' }, { type: 'integer' }] })),
          ...errorResponses([400, 403, 404, 422, 500]),
        },
      },
    },
  }
}
