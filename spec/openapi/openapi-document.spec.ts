// The router's OpenAPI document: valid OpenAPI 3.1, built from the validator's schemas and the error table,
// without hidden fields, served where the option says, and the checked-in typed-client declarations match it.
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import express from 'express'
import knexFactory from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, ConfigError, type ItemsRouterOptions } from '../../lib'
import { errorStatuses } from '../../lib/errors'
import { fixtureDocument } from './fixture-document'
import { recordingLogger } from '../support/app'
import { pageCollections } from '../support/page-fixtures'

// The validator is an ES module only; a child process loads it without jest's CommonJS module system.
function validateOpenApi(document: unknown): { valid: boolean; errors?: unknown } {
  const script = `
    import { Validator } from '@seriousme/openapi-schema-validator'
    let input = ''
    for await (const chunk of process.stdin) input += chunk
    const validator = new Validator()
    const result = await validator.validate(JSON.parse(input))
    process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors, version: validator.version }))`
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    input: JSON.stringify(document),
    encoding: 'utf8',
  })
  return JSON.parse(output) as { valid: boolean; errors?: unknown }
}

const schemas = (document: ReturnType<typeof fixtureDocument>): Record<string, Record<string, unknown>> =>
  (document.components as { schemas: Record<string, Record<string, unknown>> }).schemas

describe('OpenAPI document', () => {
  const document = fixtureDocument()

  it('is a valid OpenAPI 3.1 document', () => {
    expect(validateOpenApi(document)).toMatchObject({ valid: true, version: '3.1' })
  })

  it('describes every endpoint the router serves, per collection', () => {
    const paths = Object.keys(document.paths)
    expect(paths).toEqual(
      expect.arrayContaining([
        '/items/articles',
        '/items/articles/{id}',
        '/items/settings',
        '/items/settings/singleton',
        '/versions',
        '/versions/{id}',
        '/versions/{id}/save',
        '/versions/{id}/compare',
        '/versions/{id}/promote',
      ]),
    )
    expect(paths).not.toContain('/items/settings/{id}')
    expect(Object.keys(document.paths['/items/articles'] as object)).toEqual(['get', 'post', 'patch', 'delete'])
    // A singleton serves no create and no delete.
    expect(Object.keys(document.paths['/items/settings'] as object)).toEqual(['get', 'patch'])
  })

  it('describes a composite key: the path form, key objects in key lists and in lists of keys', async () => {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    const keyed = createItemsRouter({
      knex,
      collections: {
        ...collections,
        credits: {
          versioning: true,
          fields: {
            author: { type: 'integer', primaryKey: true, references: 'authors' },
            role: { type: 'string', primaryKey: true, maxLength: 20 },
            note: { type: 'text' },
          },
        },
        authors: {
          ...collections.authors,
          fields: { ...collections.authors.fields, credits: { type: 'o2m', collection: 'credits', foreignKey: 'author' } },
        },
      },
    }).openapi()
    await knex.destroy()
    expect(validateOpenApi(keyed)).toMatchObject({ valid: true })
    const dig = (value: unknown, ...path: Array<string | number>): unknown =>
      path.reduce((node, step) => (node as Record<string | number, unknown>)[step], value)
    const id = dig(keyed, 'paths', '/items/credits/{id}', 'parameters', 0)
    expect(id).toMatchObject({ name: 'id', in: 'path', schema: { type: 'string' } })
    expect(dig(id, 'description')).toContain('author,role')
    const keyObject = {
      type: 'object',
      required: ['author', 'role'],
      properties: { author: { type: 'integer' }, role: { type: 'string' } },
      additionalProperties: false,
    }
    const deleted = dig(keyed, 'paths', '/items/credits', 'delete', 'requestBody', 'content', 'application/json', 'schema', 'anyOf', 0)
    expect(dig(deleted, 'items', 'anyOf')).toMatchObject([keyObject, { type: 'string' }])
    expect(dig(keyed, 'components', 'schemas', 'authors.Item', 'properties', 'credits', 'items', 'anyOf', 0)).toMatchObject(keyObject)
    // A key of one field keeps its own schema.
    expect(dig(keyed, 'paths', '/items/articles/{id}', 'parameters', 0)).toEqual(
      dig(document, 'paths', '/items/articles/{id}', 'parameters', 0),
    )
  })

  it('never names a hidden field', () => {
    expect(JSON.stringify(document)).not.toContain('password_hash')
  })

  it('takes payload schemas from the validator: required fields, ranges, exact types, the collection fragment', () => {
    const all = schemas(document)
    expect(all['articles.Create']).toMatchObject({ required: ['title'], additionalProperties: false })
    expect(all['articles.Update']).not.toHaveProperty('required', expect.arrayContaining(['title']))
    const samples = all['samples.Create']!.properties as Record<string, unknown>
    expect(samples.count).toEqual({ anyOf: [{ type: 'integer', minimum: -2147483648, maximum: 2147483647 }, { type: 'null' }] })
    expect(samples.price).toMatchObject({ anyOf: [expect.objectContaining({ 'x-items-decimal-scale': 2 }), { type: 'null' }] })
    expect(samples.day).toEqual({ anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] })
    // Responses carry exact numbers as text, whatever the payload accepted.
    const sampleItem = all['samples.Item']!.properties as Record<string, unknown>
    expect(sampleItem.big).toMatchObject({ anyOf: [expect.objectContaining({ type: 'string' }), { type: 'null' }] })
  })

  it('describes nested values in payloads: a many-to-one object, a one-to-many list or its detailed form', () => {
    const all = schemas(document)
    const create = all['comments.Create']!.properties as Record<string, { anyOf: unknown[] }>
    expect(create.article!.anyOf).toContainEqual({
      anyOf: [{ $ref: '#/components/schemas/articles.Create' }, { $ref: '#/components/schemas/articles.Update' }],
    })
    const update = all['articles.Update']!.properties as Record<string, { anyOf: Record<string, unknown>[] }>
    const [list, detailed, none] = update.comments!.anyOf
    expect(list).toMatchObject({ type: 'array', items: { anyOf: [{ type: 'integer' }, expect.any(Object)] } })
    expect(detailed).toMatchObject({
      type: 'object',
      properties: {
        // A child's create schema would require the foreign key the relation sets: children take the update schema.
        create: { type: 'array', items: { $ref: '#/components/schemas/comments.Update' } },
        update: { type: 'array', items: { $ref: '#/components/schemas/comments.Update' } },
        delete: { type: 'array', items: { type: 'integer' } },
      },
      additionalProperties: false,
    })
    expect(none).toEqual({ type: 'null' })
  })

  it("describes a many-to-any's item: a key or an item of each allowed collection, read or written", () => {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    const pages = createItemsRouter({ knex, collections: pageCollections }).openapi({ serverUrl: '/api' })
    void knex.destroy()
    expect(validateOpenApi(pages)).toMatchObject({ valid: true })
    const all = schemas(pages)
    const item = (all['page_blocks.Item']!.properties as Record<string, unknown>).item
    expect(item).toEqual({
      anyOf: [
        expect.objectContaining({ type: 'string', maxLength: 40 }),
        { $ref: '#/components/schemas/block_text.Item' },
        { $ref: '#/components/schemas/block_hero.Item' },
      ],
    })
    const written = (all['page_blocks.Create']!.properties as Record<string, { anyOf: unknown[]; description: string }>).item!
    expect(written.anyOf).toEqual([
      expect.objectContaining({ type: 'string' }),
      expect.objectContaining({ type: 'integer' }),
      { anyOf: [{ $ref: '#/components/schemas/block_text.Create' }, { $ref: '#/components/schemas/block_text.Update' }] },
      { anyOf: [{ $ref: '#/components/schemas/block_hero.Create' }, { $ref: '#/components/schemas/block_hero.Update' }] },
    ])
    expect(written.description).toContain('"collection"')
  })

  it('lists the error codes of errors.ts, each under its status', () => {
    const errors = schemas(document).Errors as { properties: { errors: { items: { properties: { extensions: unknown } } } } }
    expect(errors.properties.errors.items.properties.extensions).toMatchObject({
      properties: { code: { enum: errorStatuses().map(([code]) => code) } },
    })
    const responses = (document.components as { responses: Record<string, { description: string }> }).responses
    expect(responses.Error422!.description).toContain('UNPROCESSABLE_CONTENT')
    expect(responses.Error400!.description).toContain('FAILED_VALIDATION')
  })

  it('matches the checked-in typed-client declarations (regenerate with `npm run openapi:types`)', () => {
    const generate = join(__dirname, 'generate-client-types.ts')
    const generated = execFileSync(process.execPath, ['-r', 'ts-node/register/transpile-only', generate, '--stdout'], { encoding: 'utf8' })
    expect(generated).toBe(readFileSync(join(__dirname, 'fixture-api.d.ts'), 'utf8'))
  })
})

describe('the openapi option', () => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  afterAll(() => knex.destroy())
  const app = (openapi: ItemsRouterOptions['openapi']) => {
    const host = express()
    host.use('/api', createItemsRouter({ knex, defaultAccess: true, collections, openapi, logger: recordingLogger() }))
    return host
  }

  it('describes the schema endpoints when they are served, and only then', () => {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    try {
      const withSchema = createItemsRouter({ knex, collections, schemaEndpoints: true }).openapi()
      const paths = Object.keys(withSchema.paths as object)
      const schemaPaths = [
        '/collections',
        '/collections/{collection}',
        '/fields',
        '/fields/{collection}',
        '/fields/{collection}/{field}',
        '/relations',
        '/relations/{collection}',
        '/relations/{collection}/{field}',
        '/schema/snapshot',
      ]
      expect(paths).toEqual(expect.arrayContaining(schemaPaths))
      expect(validateOpenApi(withSchema)).toMatchObject({ valid: true })
      expect(Object.keys(fixtureDocument().paths as object)).not.toContain('/collections')
    } finally {
      void knex.destroy()
    }
  })

  it('serves the document under the mount path, naming that path as its server', async () => {
    const response = await request(app(true)).get('/api/openapi.json')
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ openapi: '3.1.0', servers: [{ url: '/api' }] })
  })

  it('serves it at another path, with the given info', async () => {
    const response = await request(app({ path: '/spec', title: 'Blog', version: '2.1.0' })).get('/api/spec')
    expect(response.body.info).toEqual({ title: 'Blog', version: '2.1.0' })
  })

  it('does not serve it unless asked', async () => {
    expect((await request(app(undefined)).get('/api/openapi.json')).status).toBe(404)
  })

  it('refuses a path that does not start with a slash', () => {
    expect(() => app({ path: 'openapi.json' })).toThrow(ConfigError)
  })
})
