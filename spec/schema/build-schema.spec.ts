// createItemsRouter() refuses every configuration that cannot work, synchronously, with a stable ConfigError code and a message naming the culprit.
import knexFactory from 'knex'
import { collections as fixtureCollections } from '../../fixtures/schema'
import { ConfigError, createItemsRouter, type CollectionDefinition, type ItemsRouterOptions } from '../../lib'

// Creating a knex instance opens no connection, so the whole file needs no database.
const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
// knex constructs these clients without loading their drivers, which is all the router may look at.
const mssql = knexFactory({ client: 'mssql' })
const sqlite3 = knexFactory({ client: 'sqlite3', useNullAsDefault: true })
/** Passes the router's "is this a knex instance" check without being one of the supported clients. */
const lookAlike = Object.assign(() => undefined, { transaction: () => undefined, client: { config: { client: 'oracledb' } } })

afterAll(async () => {
  await Promise.all([knex.destroy(), mssql.destroy(), sqlite3.destroy()])
})

type Definitions = Record<string, unknown>

/** Two small collections with a many-to-one and its one-to-many; each row below breaks one thing in it. */
function library(): Record<string, CollectionDefinition> {
  return {
    authors: {
      fields: {
        id: { type: 'integer', primaryKey: true, autoIncrement: true },
        name: { type: 'string', maxLength: 100 },
        books: { type: 'o2m', collection: 'books', foreignKey: 'author' },
      },
    },
    books: {
      fields: {
        id: { type: 'integer', primaryKey: true, autoIncrement: true },
        title: { type: 'string' },
        pages: { type: 'integer' },
        author: { type: 'integer', references: 'authors' },
      },
    },
  }
}

/** `library()` with `books` (or another collection) changed: `patch` entries replace whole field definitions. */
function withFields(patch: Record<string, unknown>, collection = 'books'): Definitions {
  const definitions: Definitions = library()
  const target = definitions[collection] as CollectionDefinition
  const fields: Record<string, unknown> = { ...target.fields, ...patch }
  for (const [name, value] of Object.entries(patch)) if (value === undefined) delete fields[name]
  definitions[collection] = { ...target, fields }
  return definitions
}

function withCollection(patch: Record<string, unknown>, collection = 'books'): Definitions {
  const definitions: Definitions = library()
  definitions[collection] = { ...(definitions[collection] as object), ...patch }
  return definitions
}

const pk = { type: 'integer', primaryKey: true, autoIncrement: true }

/** authors.books points at books.sequel, a many-to-one to a third collection instead of back to authors. */
function withForeignSequel(): Definitions {
  const definitions = withFields({ sequel: { type: 'integer', references: 'series' } })
  definitions.series = { fields: { id: pk } }
  const authors = definitions.authors as CollectionDefinition
  definitions.authors = { ...authors, fields: { ...authors.fields, books: { type: 'o2m', collection: 'books', foreignKey: 'sequel' } } }
  return definitions
}

/**
 * `library()` with books given a many-to-any `item` (over authors, and tags whose keys are strings) and its
 * collection field `kind`; `patch` changes the item field, `kind` replaces the collection field.
 */
function withAnyItem(patch: Record<string, unknown>, kind: unknown = { type: 'string' }): Definitions {
  const item: Record<string, unknown> = { type: 'string', referencesAny: ['authors'], collectionField: 'kind', ...patch }
  for (const [name, value] of Object.entries(patch)) if (value === undefined) delete item[name]
  const definitions = withFields({ kind, item })
  definitions.tags = { fields: { id: { type: 'string', primaryKey: true } } }
  return definitions
}

function options(extra: Record<string, unknown> = {}, collections: unknown = library()): unknown {
  return { knex, collections, ...extra }
}

/** Runs the factory on a deliberately wrong configuration and hands back what it threw. */
function configErrorOf(given: unknown): ConfigError {
  let thrown: unknown
  try {
    createItemsRouter(given as ItemsRouterOptions)
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(ConfigError)
  return thrown as ConfigError
}

// [description, options, code, words the message must contain (the collection and field at fault)]
const BROKEN: Array<[string, unknown, string, string[]]> = [
  ['no options at all', undefined, 'CONFIG_MISSING', []],
  ['null options', null, 'CONFIG_MISSING', []],
  ['options without knex', { collections: library() }, 'CONFIG_MISSING_KNEX', ['options.knex']],
  ['knex given as a client name', { knex: 'better-sqlite3', collections: library() }, 'CONFIG_MISSING_KNEX', ['options.knex']],
  [
    'knex given as its configuration',
    { knex: { client: 'better-sqlite3' }, collections: library() },
    'CONFIG_MISSING_KNEX',
    ['options.knex'],
  ],
  ['an mssql knex', { knex: mssql, collections: library() }, 'CONFIG_UNSUPPORTED_CLIENT', ['mssql']],
  ['a knex on the sqlite3 driver', { knex: sqlite3, collections: library() }, 'CONFIG_UNSUPPORTED_CLIENT', ['sqlite3']],
  ['a knex look-alike with an unsupported client', { knex: lookAlike, collections: library() }, 'CONFIG_UNSUPPORTED_CLIENT', ['oracledb']],
  ['no collections', { knex }, 'CONFIG_BAD_COLLECTION', ['options.collections']],
  ['empty collections', options({}, {}), 'CONFIG_BAD_COLLECTION', ['options.collections']],
  ['collections as an array', options({}, [library().books]), 'CONFIG_BAD_COLLECTION', ['options.collections']],
  ['an unknown router option', options({ maxlimit: 5 }), 'CONFIG_UNKNOWN_OPTION', ['options.maxlimit']],
  ['access rules at router level', options({ access: {} }), 'CONFIG_UNKNOWN_OPTION', ['options.access']],
  ['an unknown collection option', options({}, withCollection({ tabel: 'books' })), 'CONFIG_UNKNOWN_OPTION', ['collections.books.tabel']],
  [
    'an unknown field option',
    options({}, withFields({ title: { type: 'string', lenght: 5 } })),
    'CONFIG_UNKNOWN_OPTION',
    ['collections.books.fields.title.lenght'],
  ],
  [
    'an unknown o2m option',
    options({}, withFields({ books: { type: 'o2m', collection: 'books', foreignKey: 'author', sort: 'id' } }, 'authors')),
    'CONFIG_UNKNOWN_OPTION',
    ['collections.authors.fields.books.sort'],
  ],
  ['a collection that is not an object', options({}, { ...library(), books: 'books' }), 'CONFIG_BAD_COLLECTION', ['collections.books']],
  [
    'a collection without fields',
    options({}, withCollection({ fields: undefined })),
    'CONFIG_BAD_COLLECTION',
    ['collections.books.fields'],
  ],
  [
    'a collection with no field in fields',
    options({}, withCollection({ fields: {} })),
    'CONFIG_BAD_COLLECTION',
    ['collections.books.fields'],
  ],
  ['an empty table name', options({}, withCollection({ table: '' })), 'CONFIG_BAD_COLLECTION', ['collections.books.table']],
  ['a field given as a type name', options({}, withFields({ title: 'string' })), 'CONFIG_BAD_FIELD', ['collections.books.fields.title']],
  [
    'an unknown field type',
    options({}, withFields({ title: { type: 'varchar' } })),
    'CONFIG_UNKNOWN_FIELD_TYPE',
    ['collections.books.fields.title', 'varchar'],
  ],
  [
    'a field without a type',
    options({}, withFields({ title: { maxLength: 5 } })),
    'CONFIG_UNKNOWN_FIELD_TYPE',
    ['collections.books.fields.title'],
  ],
  ['no primary key', options({}, withFields({ id: { type: 'integer' } })), 'CONFIG_MISSING_PRIMARY_KEY', ['collections.books']],
  [
    'a composite key with an autoIncrement field',
    options({}, withFields({ isbn: { type: 'string', primaryKey: true } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.id', 'autoIncrement', 'key of one field'],
  ],
  [
    'a singleton with a composite key',
    options(
      {},
      withCollection({ singleton: true, fields: { a: { type: 'integer', primaryKey: true }, b: { type: 'string', primaryKey: true } } }),
    ),
    'CONFIG_BAD_COLLECTION',
    ['collections.books', 'singleton', 'key of one field'],
  ],
  [
    'a reference to a collection with a composite key',
    options(
      {},
      {
        ...withFields({ shelf: { type: 'integer', references: 'shelves' } }),
        shelves: { fields: { room: { type: 'integer', primaryKey: true }, row: { type: 'integer', primaryKey: true } } },
      },
    ),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.shelf', '"shelves"', '2 fields', 'key of one field'],
  ],
  [
    'a nullable primary key',
    options({}, withFields({ id: { ...pk, nullable: true } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.id'],
  ],
  ['a hidden primary key', options({}, withFields({ id: { ...pk, hidden: true } })), 'CONFIG_BAD_FIELD', ['collections.books.fields.id']],
  [
    'a json primary key',
    options({}, withFields({ id: { type: 'json', primaryKey: true } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.id'],
  ],
  [
    'autoIncrement on a string primary key',
    options({}, withFields({ id: { type: 'string', primaryKey: true, autoIncrement: true } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.id', 'autoIncrement'],
  ],
  [
    'autoIncrement on a non-key integer',
    options({}, withFields({ pages: { type: 'integer', autoIncrement: true } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.pages'],
  ],
  [
    'maxLength on an integer',
    options({}, withFields({ pages: { type: 'integer', maxLength: 4 } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.pages', 'maxLength'],
  ],
  [
    'scale on a string',
    options({}, withFields({ title: { type: 'string', scale: 2 } })),
    'CONFIG_BAD_FIELD',
    ['collections.books.fields.title', 'scale'],
  ],
  [
    'references to an unknown collection',
    options({}, withFields({ editor: { type: 'integer', references: 'writers' } })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.editor', 'writers'],
  ],
  [
    'a string referencing an integer key',
    options({}, withFields({ editor: { type: 'string', references: 'authors' } })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.editor', 'authors.id'],
  ],
  [
    'a uuid referencing an integer key',
    options({}, withFields({ editor: { type: 'uuid', references: 'authors' } })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.editor'],
  ],
  [
    'an o2m to an unknown collection',
    options({}, withFields({ books: { type: 'o2m', collection: 'novels', foreignKey: 'author' } }, 'authors')),
    'CONFIG_BAD_O2M',
    ['collections.authors.fields.books', 'novels'],
  ],
  [
    'an o2m whose foreignKey does not exist',
    options({}, withFields({ books: { type: 'o2m', collection: 'books', foreignKey: 'writer' } }, 'authors')),
    'CONFIG_BAD_O2M',
    ['collections.authors.fields.books', 'books.writer'],
  ],
  [
    'an o2m whose foreignKey is a plain field',
    options({}, withFields({ books: { type: 'o2m', collection: 'books', foreignKey: 'pages' } }, 'authors')),
    'CONFIG_BAD_O2M',
    ['collections.authors.fields.books', 'books.pages'],
  ],
  [
    'an o2m whose foreignKey references another collection',
    options({}, withForeignSequel()),
    'CONFIG_BAD_O2M',
    ['collections.authors.fields.books', 'books.sequel'],
  ],
  [
    'a many-to-any naming an unknown collection',
    options({}, withAnyItem({ referencesAny: ['authors', 'poems'] })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'poems'],
  ],
  [
    'a many-to-any over a collection with a composite key',
    options(
      {},
      {
        ...withAnyItem({ referencesAny: ['authors', 'shelves'] }),
        shelves: { fields: { room: { type: 'integer', primaryKey: true }, row: { type: 'integer', primaryKey: true } } },
      },
    ),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', '"shelves"', '2 fields'],
  ],
  [
    'a many-to-any with an empty list',
    options({}, withAnyItem({ referencesAny: [] })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'referencesAny'],
  ],
  [
    'a many-to-any without its collection field',
    options({}, withAnyItem({ collectionField: undefined })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'collectionField'],
  ],
  [
    'a many-to-any whose collection field is not a string',
    options({}, withAnyItem({ collectionField: 'pages' })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'pages'],
  ],
  [
    'a many-to-any whose collection field cannot hold a name',
    options({}, withAnyItem({}, { type: 'string', maxLength: 3 })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'authors'],
  ],
  [
    'a many-to-any whose item field is too short for a key',
    options({}, withAnyItem({ maxLength: 5 })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'authors.id'],
  ],
  [
    'a many-to-any whose integer item field cannot hold a string key',
    options({}, withAnyItem({ type: 'integer', referencesAny: ['authors', 'tags'] })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item', 'tags.id'],
  ],
  [
    'two many-to-any fields sharing one collection field',
    options(
      {},
      {
        ...withAnyItem({}),
        books: {
          fields: {
            ...(withAnyItem({}).books as CollectionDefinition).fields,
            other: { type: 'string', referencesAny: ['authors'], collectionField: 'kind' },
          },
        },
      },
    ),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.other', 'kind', 'item'],
  ],
  [
    'a many-to-any that is also a reference',
    options({}, withAnyItem({ references: 'authors' })),
    'CONFIG_BAD_REFERENCE',
    ['collections.books.fields.item'],
  ],
  ['access that is a string', options({}, withCollection({ access: 'yes' })), 'CONFIG_BAD_ACCESS', ['collections.books.access']],
  [
    'access naming an unknown action',
    options({}, withCollection({ access: { write: true } })),
    'CONFIG_BAD_ACCESS',
    ['collections.books.access.write'],
  ],
  [
    'a rule with an unknown key',
    options({}, withCollection({ access: { read: { where: {} } } })),
    'CONFIG_BAD_ACCESS',
    ['collections.books.access.read.where'],
  ],
  [
    'a rule whose fields is a string',
    options({}, withCollection({ access: { read: { fields: 'title' } } })),
    'CONFIG_BAD_ACCESS',
    ['collections.books.access.read.fields'],
  ],
  [
    'a rule naming an unknown field',
    options({}, withCollection({ access: { read: { fields: ['title', 'isbn'] } } })),
    'CONFIG_BAD_ACCESS',
    ['"isbn"'],
  ],
  [
    'a rule presetting an unknown field',
    options({}, withCollection({ access: { create: { presets: { isbn: 1 } } } })),
    'CONFIG_BAD_ACCESS',
    ['presets', '"isbn"'],
  ],
  [
    'a rule filter on an unknown field',
    options({}, withCollection({ access: { read: { filter: { isbn: { _eq: 1 } } } } })),
    'CONFIG_BAD_ACCESS',
    ['access.read.filter', 'isbn'],
  ],
  [
    'a rule filter with an unknown variable',
    options({}, withCollection({ access: { read: { filter: { pages: { _eq: '$CURRENT_TENANT' } } } } })),
    'CONFIG_BAD_ACCESS',
    ['$CURRENT_TENANT'],
  ],
  [
    'a validation through a relation',
    options({}, withCollection({ access: { create: { validation: { author: { name: { _eq: 'x' } } } } } })),
    'CONFIG_BAD_ACCESS',
    ['access.create.validation', 'own fields'],
  ],
  ['a defaultAccess that is a number', options({ defaultAccess: 1 }), 'CONFIG_BAD_ACCESS', ['options.defaultAccess']],
  ['hooks that are a function', options({}, withCollection({ hooks: () => undefined })), 'CONFIG_BAD_HOOK', ['collections.books.hooks']],
  [
    'a hook with an unknown name',
    options({}, withCollection({ hooks: { onCreate: () => undefined } })),
    'CONFIG_BAD_HOOK',
    ['collections.books.hooks.onCreate'],
  ],
  [
    'a hook that is not a function',
    options({}, withCollection({ hooks: { beforeCreate: true } })),
    'CONFIG_BAD_HOOK',
    ['collections.books.hooks.beforeCreate'],
  ],
  ['a context that is not a function', options({ context: { user: 1 } }), 'CONFIG_BAD_OPTION', ['options.context']],
  ['defaultLimit 0', options({ defaultLimit: 0 }), 'CONFIG_BAD_LIMIT', ['options.defaultLimit']],
  ['a negative maxLimit', options({ maxLimit: -1 }), 'CONFIG_BAD_LIMIT', ['options.maxLimit']],
  ['a fractional maxBatchSize', options({ maxBatchSize: 1.5 }), 'CONFIG_BAD_LIMIT', ['options.maxBatchSize']],
  ['an infinite maxBatchSize', options({ maxBatchSize: Infinity }), 'CONFIG_BAD_LIMIT', ['options.maxBatchSize']],
  ['defaultLimit above maxLimit', options({ defaultLimit: 200, maxLimit: 100 }), 'CONFIG_BAD_LIMIT', ['options.defaultLimit', 'maxLimit']],
  ['maxFilterDepth 0', options({ maxFilterDepth: 0 }), 'CONFIG_BAD_LIMIT', ['options.maxFilterDepth']],
  ['a negative maxInListLength', options({ maxInListLength: -5 }), 'CONFIG_BAD_LIMIT', ['options.maxInListLength']],
  ['maxQueryParameters as text', options({ maxQueryParameters: '1000' }), 'CONFIG_BAD_LIMIT', ['options.maxQueryParameters']],
  ['a boolean bodyLimit', options({ bodyLimit: true }), 'CONFIG_BAD_LIMIT', ['options.bodyLimit']],
  ['a bodyLimit that is no size', options({ bodyLimit: 'lots' }), 'CONFIG_BAD_LIMIT', ['options.bodyLimit']],
  ['bodyLimit 0', options({ bodyLimit: 0 }), 'CONFIG_BAD_LIMIT', ['options.bodyLimit']],
  ['a negative bodyLimit', options({ bodyLimit: -5 }), 'CONFIG_BAD_LIMIT', ['options.bodyLimit']],
  [
    'a collection defaultLimit of 0',
    options({}, withCollection({ defaultLimit: 0 })),
    'CONFIG_BAD_LIMIT',
    ['collections.books.defaultLimit'],
  ],
  [
    'a negative collection maxBatchSize',
    options({}, withCollection({ maxBatchSize: -10 })),
    'CONFIG_BAD_LIMIT',
    ['collections.books.maxBatchSize'],
  ],
  [
    'a collection maxLimit below the inherited defaultLimit',
    options({}, withCollection({ maxLimit: 50 })),
    'CONFIG_BAD_LIMIT',
    ['collections.books.defaultLimit', '100', '50'],
  ],
]

describe('createItemsRouter() configuration errors', () => {
  it.each(BROKEN)('%s', (_description, given, code, words) => {
    const error = configErrorOf(given)
    expect(error.code).toBe(code)
    expect(error.name).toBe('ConfigError')
    expect(error.message.endsWith(`[${code}]`)).toBe(true)
    for (const word of words) expect(error.message).toContain(word)
  })

  it('checks everything at creation: nothing is deferred to the first request', () => {
    // The error is thrown by the call itself, not from a later request or a promise.
    expect(() => createItemsRouter({ knex, collections: withFields({ title: { type: 'varchar' } }) } as ItemsRouterOptions)).toThrow(
      ConfigError,
    )
  })
})

describe('createItemsRouter() valid configurations', () => {
  // [description, options]
  const VALID: Array<[string, unknown]> = [
    ['the fixture collections', { knex, collections: fixtureCollections }],
    ['the two-collection library', options()],
    ['a many-to-any over integer and string keys, kept as text', options({}, withAnyItem({ referencesAny: ['authors', 'tags'] }))],
    ['a many-to-any in an integer field over integer keys', options({}, withAnyItem({ type: 'integer' }))],
    [
      'every limit set at router level',
      options({
        defaultLimit: 10,
        maxLimit: 10,
        maxBatchSize: 1,
        maxFilterDepth: 1,
        maxInListLength: 1,
        maxQueryParameters: 1,
        bodyLimit: '10kb',
      }),
    ],
    ['a numeric bodyLimit', options({ bodyLimit: 2048 })],
    ['a collection maxLimit with its own defaultLimit', options({}, withCollection({ defaultLimit: 20, maxLimit: 50 }))],
    ['a bigInteger referencing an integer key', options({}, withFields({ author: { type: 'bigInteger', references: 'authors' } }))],
    ['a uuid primary key', options({}, withFields({ id: { type: 'uuid', primaryKey: true } }))],
    ['a string primary key', options({}, withFields({ id: { type: 'string', primaryKey: true, maxLength: 20 } }))],
    ['a self-reference', options({}, withFields({ prequel: { type: 'integer', references: 'books' } }))],
    [
      'a composite key: a junction keyed by its two many-to-ones',
      options(
        {},
        {
          ...library(),
          credits: {
            fields: {
              author: { type: 'integer', primaryKey: true, references: 'authors' },
              book: { type: 'integer', primaryKey: true, references: 'books' },
            },
          },
        },
      ),
    ],
    ['a table name different from the collection name', options({}, withCollection({ table: 'library_books' }))],
    ['a JSON Schema fragment', options({}, withCollection({ schema: { properties: { title: { minLength: 1 } } } }))],
  ]

  it.each(VALID)('accepts %s', (_description, given) => {
    const router = createItemsRouter(given as ItemsRouterOptions)
    expect(typeof router).toBe('function')
    // An Express router exposes its middleware stack; the items routes must be on it.
    expect((router as unknown as { stack: unknown[] }).stack.length).toBeGreaterThan(0)
  })

  it('leaves the options object it was given untouched', () => {
    const given = options({ defaultLimit: 10 }) as ItemsRouterOptions
    const before = JSON.stringify(given.collections)
    createItemsRouter(given)
    expect(JSON.stringify(given.collections)).toBe(before)
    expect(Object.keys(given).sort()).toEqual(['collections', 'defaultLimit', 'knex'])
  })
})
