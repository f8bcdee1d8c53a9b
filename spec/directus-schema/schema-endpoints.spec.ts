// The schema endpoints answer Directus's shapes for the fixture collections, and each caller sees only what its access rules let it read.
import express, { type Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type CollectionDefinition, type ItemsRouterOptions } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError } from '../support/expect-error'

type Body = Record<string, unknown>

/** The fixtures, a collection with an enum (no table needed: these endpoints read no rows), and access by role. */
const served = {
  ...collections,
  labels: {
    fields: {
      id: { type: 'uuid', primaryKey: true },
      color: { type: 'string', enum: ['red', 'green'], nullable: false },
    },
  },
  authors: { ...collections.authors, access: { read: ({ role }) => role === 'admin' } },
  articles: {
    ...collections.articles,
    access: { read: ({ role }) => (role === 'admin' ? true : { fields: ['id', 'title', 'author', 'comments'] }) },
  },
} satisfies Record<string, CollectionDefinition>

const NAMES = Object.keys(served).sort()
const FIELD_META_KEYS = [
  'id',
  'collection',
  'field',
  'special',
  'interface',
  'options',
  'display',
  'display_options',
  'readonly',
  'hidden',
  'sort',
  'width',
  'translations',
  'note',
  'conditions',
  'required',
  'group',
  'validation',
  'validation_message',
  'searchable',
]

/** What every field answer holds beside its own keys: the Directus-app keys with the values of a new field. */
const APP_ONLY = {
  display: null,
  display_options: null,
  hidden: false,
  width: 'full',
  translations: null,
  note: null,
  conditions: null,
  group: null,
  validation: null,
  validation_message: null,
  searchable: true,
}

const columnSchema = (overrides: Body): Body => ({
  default_value: null,
  max_length: null,
  numeric_precision: null,
  numeric_scale: null,
  is_generated: false,
  generation_expression: null,
  is_nullable: true,
  is_unique: false,
  is_indexed: false,
  is_primary_key: false,
  has_auto_increment: false,
  foreign_key_column: null,
  foreign_key_table: null,
  ...overrides,
})

forEachDialect((ctx) => {
  let app: Express
  const make = (options: Partial<ItemsRouterOptions> = {}): Express => {
    const host = express()
    host.use(
      '/api',
      createItemsRouter({
        knex: ctx.knex,
        collections: served,
        logger: recordingLogger(),
        context: (req) => ({ role: req.get('x-role') ?? 'admin' }),
        ...options,
      }),
    )
    return host
  }
  beforeAll(() => {
    app = make({ schemaEndpoints: true })
  })
  const get = (path: string, role = 'admin') => request(app).get(`/api${path}`).set('x-role', role)
  const data = async (path: string, role = 'admin'): Promise<unknown> => {
    const response = await get(path, role)
    expect({ path, status: response.status }).toEqual({ path, status: 200 })
    return (response.body as { data: unknown }).data
  }

  it('is off unless schemaEndpoints is on: the host answers, not the router', async () => {
    const off = make()
    for (const path of ['/collections', '/fields', '/relations', '/schema/snapshot']) {
      const response = await request(off).get(`/api${path}`)
      expect(response.status).toBe(404)
      expect(response.body).toEqual({})
    }
  })

  describe('GET /collections', () => {
    it('lists every collection by name, with what changes the API filled', async () => {
      const list = (await data('/collections')) as Body[]
      expect(list.map((entry) => entry.collection)).toEqual(NAMES)
      for (const entry of list) {
        const name = entry.collection as keyof typeof served
        expect(Object.keys(entry)).toEqual(['collection', 'meta', 'schema'])
        expect(entry.schema).toEqual({ name })
        expect(entry.meta).toEqual(
          expect.objectContaining({
            collection: name,
            singleton: name === 'settings',
            versioning: name === 'articles' || name === 'settings',
            sort_field: null,
            accountability: null,
            icon: null,
            hidden: false,
          }),
        )
        expect(Object.keys(entry.meta as Body)).toHaveLength(22)
      }
    })

    it('GET /collections/:collection answers one; an unknown one is 404', async () => {
      expect(await data('/collections/settings')).toEqual(expect.objectContaining({ collection: 'settings', schema: { name: 'settings' } }))
      expect(((await data('/collections/settings')) as { meta: Body }).meta.singleton).toBe(true)
      expectError(await get('/collections/nope'), 404, 'NOT_FOUND')
    })
  })

  describe('GET /fields', () => {
    it('answers a collection’s fields in definition order, hidden ones left out', async () => {
      const articles = (await data('/fields/articles')) as Body[]
      expect(articles.map((field) => field.field)).toEqual(Object.keys(collections.articles.fields))
      const authors = (await data('/fields/authors')) as Body[]
      expect(authors.map((field) => field.field)).toEqual(['id', 'name', 'email', 'bio', 'articles'])
      for (const field of [...articles, ...authors]) {
        expect(Object.keys(field)).toEqual(['collection', 'field', 'type', 'schema', 'meta'])
        expect(Object.keys(field.meta as Body)).toEqual(FIELD_META_KEYS)
      }
    })

    it('fills the database and behaviour parts of a plain field, a many-to-one and a one-to-many', async () => {
      const articles = (await data('/fields/articles')) as Body[]
      const byName = (name: string) => articles.find((field) => field.field === name)
      const id = (name: string) => (byName(name)!.meta as Body).id
      expect(byName('id')).toEqual({
        collection: 'articles',
        field: 'id',
        type: 'integer',
        schema: columnSchema({
          name: 'id',
          table: 'articles',
          data_type: 'integer',
          is_nullable: false,
          is_unique: true,
          is_indexed: true,
          is_primary_key: true,
          has_auto_increment: true,
        }),
        meta: {
          id: id('id'),
          collection: 'articles',
          field: 'id',
          special: null,
          interface: 'input',
          options: null,
          readonly: false,
          sort: 1,
          required: false,
          ...APP_ONLY,
        },
      })
      expect(byName('title')!.schema).toEqual(
        columnSchema({ name: 'title', table: 'articles', data_type: 'varchar', max_length: 200, is_nullable: false }),
      )
      expect(byName('title')!.meta).toEqual(expect.objectContaining({ required: true, sort: 2 }))
      expect(byName('status')!.schema).toEqual(expect.objectContaining({ default_value: 'draft', max_length: 20, is_nullable: true }))
      expect(byName('status')!.meta).toEqual(expect.objectContaining({ required: false }))
      expect(byName('tags')).toEqual(
        expect.objectContaining({ type: 'json', meta: expect.objectContaining({ special: ['cast-json'], interface: 'input-code' }) }),
      )
      expect(byName('author')!.schema).toEqual(
        columnSchema({ name: 'author', table: 'articles', data_type: 'integer', foreign_key_table: 'authors', foreign_key_column: 'id' }),
      )
      expect(byName('author')!.meta).toEqual(expect.objectContaining({ special: ['m2o'], interface: 'select-dropdown-m2o', sort: 7 }))
      expect(byName('comments')).toEqual({
        collection: 'articles',
        field: 'comments',
        type: 'alias',
        schema: null,
        meta: {
          id: id('comments'),
          collection: 'articles',
          field: 'comments',
          special: ['o2m'],
          interface: 'list-o2m',
          options: null,
          readonly: false,
          sort: 9,
          required: false,
          ...APP_ONLY,
        },
      })
      // Ids count the fields shown, from 1, without gaps.
      const all = (await data('/fields')) as Body[]
      expect(all.map((field) => (field.meta as Body).id)).toEqual(all.map((_field, index) => index + 1))
      expect(all.map((field) => `${String(field.collection)}.${String(field.field)}`)).toEqual(
        NAMES.flatMap((name) =>
          Object.keys(served[name as keyof typeof served].fields)
            .filter((field) => field !== 'password_hash')
            .map((field) => `${name}.${field}`),
        ),
      )
    })

    it('puts an enum’s values where generators look for choices', async () => {
      const color = (await data('/fields/labels/color')) as Body
      expect(color.meta).toEqual(
        expect.objectContaining({
          interface: 'select-dropdown',
          options: {
            choices: [
              { text: 'red', value: 'red' },
              { text: 'green', value: 'green' },
            ],
          },
          required: true,
        }),
      )
      const id = (await data('/fields/labels/id')) as Body
      expect(id).toEqual(expect.objectContaining({ type: 'uuid', meta: expect.objectContaining({ special: ['uuid'] }) }))
    })

    it('GET /fields/:collection/:field answers one, meta before schema; unknown ones are 404', async () => {
      const one = (await data('/fields/articles/author')) as Body
      expect(Object.keys(one)).toEqual(['collection', 'field', 'type', 'meta', 'schema'])
      const listed = ((await data('/fields/articles')) as Body[]).find((field) => field.field === 'author')
      expect(one).toEqual(listed)
      expectError(await get('/fields/articles/nope'), 404, 'NOT_FOUND')
      expectError(await get('/fields/authors/password_hash'), 404, 'NOT_FOUND')
      expectError(await get('/fields/nope'), 404, 'NOT_FOUND')
    })
  })

  describe('GET /relations', () => {
    const M2O = [
      'article_topics.article',
      'article_topics.topic',
      'articles.author',
      'articles.parent',
      'comments.article',
      'comments.author',
    ]

    it('lists one relation per many-to-one, with its alias on the other side', async () => {
      const list = (await data('/relations')) as Body[]
      expect(list.map((relation) => `${String(relation.collection)}.${String(relation.field)}`)).toEqual(M2O)
      expect(list.find((relation) => relation.collection === 'articles' && relation.field === 'author')).toEqual({
        collection: 'articles',
        field: 'author',
        related_collection: 'authors',
        schema: {
          table: 'articles',
          column: 'author',
          foreign_key_table: 'authors',
          foreign_key_column: 'id',
          on_update: null,
          on_delete: null,
          constraint_name: null,
        },
        meta: {
          id: 3,
          many_collection: 'articles',
          many_field: 'author',
          one_collection: 'authors',
          one_field: 'articles',
          one_collection_field: null,
          one_allowed_collections: null,
          junction_field: null,
          sort_field: null,
          one_deselect_action: 'nullify',
        },
      })
      const parent = list.find((relation) => relation.field === 'parent')!
      expect((parent.meta as Body).one_field).toBeNull()
    })

    it('GET /relations/:collection lists those whose many side it is; /:collection/:field one', async () => {
      const ofArticles = (await data('/relations/articles')) as Body[]
      expect(ofArticles.map((relation) => relation.field)).toEqual(['author', 'parent'])
      expect(await data('/relations/authors')).toEqual([])
      expect(await data('/relations/articles/author')).toEqual(ofArticles[0])
      expectError(await get('/relations/articles/title'), 404, 'NOT_FOUND')
      expectError(await get('/relations/nope'), 404, 'NOT_FOUND')
    })
  })

  describe('a restricted caller', () => {
    it('does not see a collection it cannot read, nor anything leading to it', async () => {
      const names = ((await data('/collections', 'guest')) as Body[]).map((entry) => entry.collection)
      expect(names).toEqual(NAMES.filter((name) => name !== 'authors'))
      expectError(await get('/collections/authors', 'guest'), 404, 'NOT_FOUND')
      expectError(await get('/fields/authors', 'guest'), 404, 'NOT_FOUND')
      const relations = ((await data('/relations', 'guest')) as Body[]).map(
        (relation) => `${String(relation.collection)}.${String(relation.field)}`,
      )
      expect(relations).toEqual(['article_topics.article', 'article_topics.topic', 'comments.article'])
      expectError(await get('/relations/articles/author', 'guest'), 404, 'NOT_FOUND')
    })

    it('sees only the fields it may read; a key pointing where it cannot look is a plain field', async () => {
      const fields = (await data('/fields/articles', 'guest')) as Body[]
      expect(fields.map((field) => field.field)).toEqual(['id', 'title', 'author', 'comments'])
      expect(fields.map((field) => (field.meta as Body).sort)).toEqual([1, 2, 3, 4])
      const author = fields.find((field) => field.field === 'author')!
      expect(author.schema).toEqual(expect.objectContaining({ foreign_key_table: null, foreign_key_column: null }))
      expect(author.meta).toEqual(expect.objectContaining({ special: null, interface: 'input' }))
      expectError(await get('/fields/articles/status', 'guest'), 404, 'NOT_FOUND')
      // The one-to-many whose items it cannot read is gone with them.
      const topics = (await data('/fields/topics', 'guest')) as Body[]
      expect(topics.map((field) => field.field)).toEqual(['id', 'name', 'articles'])
      const snapshot = (await data('/schema/snapshot', 'guest')) as { collections: Body[]; fields: Body[] }
      expect(snapshot.collections.map((entry) => entry.collection)).not.toContain('authors')
      expect(snapshot.fields.filter((field) => field.collection === 'articles').map((field) => field.field)).toEqual([
        'id',
        'title',
        'author',
        'comments',
      ])
    })
  })

  describe('GET /schema/snapshot', () => {
    it('holds the same answers without row ids, keys sorted, aliases without schema', async () => {
      const snapshot = (await data('/schema/snapshot')) as Body & { collections: Body[]; fields: Body[]; relations: Body[] }
      expect(Object.keys(snapshot)).toEqual(['version', 'directus', 'vendor', 'collections', 'fields', 'systemFields', 'relations'])
      expect(snapshot).toEqual(expect.objectContaining({ version: 1, directus: '12.4.1', vendor: ctx.name, systemFields: [] }))
      const sortedAtEveryDepth = (value: unknown): boolean =>
        value === null || typeof value !== 'object'
          ? true
          : Array.isArray(value)
            ? value.every(sortedAtEveryDepth)
            : Object.keys(value).join() === Object.keys(value).sort().join() && Object.values(value).every(sortedAtEveryDepth)
      expect([snapshot.collections, snapshot.fields, snapshot.relations].every(sortedAtEveryDepth)).toBe(true)

      const collectionsAnswer = (await data('/collections')) as Body[]
      expect(snapshot.collections).toEqual(collectionsAnswer)
      const fields = (await data('/fields')) as Body[]
      expect(snapshot.fields).toEqual(
        fields.map(({ schema, meta, ...rest }) => {
          const { id: _id, ...withoutId } = meta as Body
          return schema === null ? { ...rest, meta: withoutId } : { ...rest, meta: withoutId, schema }
        }),
      )
      expect(snapshot.fields.find((field) => field.field === 'comments')).not.toHaveProperty('schema')
      const relations = (await data('/relations')) as Body[]
      expect(snapshot.relations).toEqual(
        relations.map(({ meta, ...rest }) => {
          const { id: _id, ...withoutId } = meta as Body
          return { ...rest, meta: withoutId }
        }),
      )
    })
  })

  it('refuses writes to the schema with 404 ROUTE_NOT_FOUND', async () => {
    expectError(await request(app).post('/api/collections').send({ collection: 'x' }), 404, 'ROUTE_NOT_FOUND')
    expectError(await request(app).delete('/api/fields/articles/title'), 404, 'ROUTE_NOT_FOUND')
  })
})
