// Compile-time checks of the item types inferred from collection definitions: `npm run typecheck` fails when
// an inferred type is wrong (expect-type), and a wrongly typed use (`@ts-expect-error`) compiles.
import { expectTypeOf } from 'expect-type'
import knexFactory from 'knex'
import { collections } from '../../fixtures/schema'
import {
  createItemsRouter,
  defineCollection,
  type CollectionDefinition,
  type GeoJsonGeometry,
  type Item,
  type ItemsEvent,
  type ItemOf,
  type ItemOfCollection,
  type ItemWriteOf,
  type PrimaryKey,
} from '../../lib'

const articles = defineCollection({
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    title: { type: 'string', nullable: false, maxLength: 200 },
    rating: { type: 'integer' },
    price: { type: 'decimal', scale: 2 },
    big: { type: 'bigInteger' },
    published: { type: 'boolean', nullable: false, default: false },
    published_at: { type: 'timestamp' },
    tags: { type: 'json' },
    author: { type: 'integer', references: 'authors' },
    secret: { type: 'string', hidden: true },
    slug: { type: 'string', readonly: true },
    comments: { type: 'o2m', collection: 'comments', foreignKey: 'article' },
  },
  access: { read: { fields: ['id', 'title'] }, update: { fields: ['title', 'secret'], presets: { rating: 0 } } },
  hooks: {
    beforeCreate: (item) => {
      expectTypeOf(item.title).toEqualTypeOf<string | undefined>()
      expectTypeOf(item.price).toEqualTypeOf<string | number | null | undefined>()
      // Hidden fields are writable; read-only ones too, by a hook (not by clients); one-to-many aliases are not.
      expectTypeOf(item).toHaveProperty('secret')
      expectTypeOf(item).toHaveProperty('slug')
      expectTypeOf(item).not.toHaveProperty('comments')
      return { ...item, title: item.title?.trim() }
    },
    beforeDelete: (keys) => {
      expectTypeOf(keys).toEqualTypeOf<number[]>()
    },
    afterUpdate: (event) => {
      expectTypeOf(event.keys).toEqualTypeOf<number[]>()
      expectTypeOf(event.payloads[0]!.rating).toEqualTypeOf<number | null | undefined>()
    },
  },
})

type Article = ItemOfCollection<typeof articles>

// A composite key: hooks and events name its items by the key's text form.
defineCollection({
  fields: {
    actor_id: { type: 'integer', primaryKey: true },
    film_id: { type: 'integer', primaryKey: true },
    credited_as: { type: 'string' },
  },
  hooks: {
    beforeDelete: (keys) => {
      expectTypeOf(keys).toEqualTypeOf<string[]>()
    },
  },
})

defineCollection({
  fields: { id: { type: 'integer', primaryKey: true }, title: { type: 'string' } },
  // @ts-expect-error: access rules may only name the collection's fields (createItemsRouter would refuse it too).
  access: { update: { fields: ['title', 'nope'] } },
})

describe('inferred item types', () => {
  it('map each field type to its JSON form, with null unless ruled out', () => {
    expectTypeOf<Article>().toEqualTypeOf<{
      id: number
      title: string
      rating: number | null
      price: string | null
      big: string | null
      published: boolean
      published_at: string | null
      tags: unknown
      author: number | null
      slug: string | null
      comments: PrimaryKey[]
    }>()
    const article = {} as Article
    const title: string = article.title
    // @ts-expect-error: a nullable integer is not a plain number.
    const rating: number = article.rating
    // @ts-expect-error: hidden fields are never returned, so the type has none.
    void article.secret
    void [title, rating]
  })

  it('map set, geometry and binary fields to their JSON forms', () => {
    type Film = ItemOf<{
      id: { type: 'integer'; primaryKey: true }
      features: { type: 'set'; enum: string[]; nullable: false }
      loc: { type: 'geometry' }
      poster: { type: 'binary' }
    }>
    expectTypeOf<Film>().toEqualTypeOf<{ id: number; features: string[]; loc: GeoJsonGeometry | null; poster: string | null }>()
  })

  it('infer the fixtures (written with `satisfies`) as well', () => {
    type FixtureArticle = ItemOf<(typeof collections)['articles']['fields']>
    expectTypeOf<FixtureArticle['title']>().toEqualTypeOf<string>()
    expectTypeOf<FixtureArticle['tags']>().toEqualTypeOf<unknown>()
    expectTypeOf<ItemOf<(typeof collections)['authors']['fields']>>().not.toHaveProperty('password_hash')
  })

  it('type the events of the collections a router serves', () => {
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    const router = createItemsRouter({ knex, collections: { ...collections, articles } })
    router.events.on('articles.items.update', (event) => {
      expectTypeOf(event.keys).toEqualTypeOf<number[]>()
    })
    router.events.on('samples.items.create', (event) => {
      // samples has a uuid primary key.
      expectTypeOf(event.keys).toEqualTypeOf<string[]>()
    })
    router.events.on('items.delete', (event) => {
      expectTypeOf(event).toEqualTypeOf<ItemsEvent>()
    })
    expect(router.events.listenerCount('items.delete')).toBe(1)
    return knex.destroy()
  })

  it('leave untyped definitions untyped, as before', () => {
    const wide: Record<string, CollectionDefinition> = collections
    expectTypeOf<ItemOf<CollectionDefinition['fields']>>().toEqualTypeOf<Item>()
    const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
    const router = createItemsRouter({ knex, collections: wide })
    router.events.on('anything.items.create', (event) => {
      expectTypeOf(event.keys).toEqualTypeOf<PrimaryKey[]>()
      expectTypeOf(event.payloads).toEqualTypeOf<Item[]>()
    })
    return knex.destroy()
  })
})

// Writes with nested values: typed through the other collections' definitions, to any depth.
export const teams = defineCollection({
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    name: { type: 'string', nullable: false },
    players: { type: 'o2m', collection: 'players', foreignKey: 'team' },
  },
})
export const players = defineCollection({
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    name: { type: 'string', nullable: false },
    team: { type: 'integer', references: 'teams' },
  },
})
type League = { teams: typeof teams; players: typeof players }
type TeamWrite = ItemWriteOf<typeof teams.fields, League>
type PlayerWrite = ItemWriteOf<typeof players.fields, League>

export const nestedWrites: (TeamWrite | PlayerWrite)[] = [
  { name: 'Red', players: [1, { name: 'Ann' }, { id: 2, name: 'Bob' }] },
  { players: { create: [{ name: 'Cid' }], update: [{ id: 2, name: 'Bob!' }], delete: [3] } },
  { players: null },
  { name: 'Dee', team: { name: 'Blue', players: [{ name: 'Eve' }] } },
  { team: 2 },
]
// @ts-expect-error: a nested player has no field "nosuch"
export const unknownNestedField: TeamWrite = { players: [{ nosuch: 1 }] }
// @ts-expect-error: a player's key is a number
export const wrongNestedKey: TeamWrite = { players: ['one'] }
// @ts-expect-error: the detailed form has only create, update and delete
export const wrongDetailed: TeamWrite = { players: { attach: [1] } }
// @ts-expect-error: a nested team's name is a string, at any depth
export const wrongDeepType: PlayerWrite = { team: { players: [{ team: { name: 5 } }] } }
// @ts-expect-error: a child may not name the foreign key its relation sets
export const childForeignKey: TeamWrite = { players: [{ name: 'Eve', team: 1 }] }

// A many-to-any's item: a key, or an item of one of its collections, each typed by its own definition.
export const page_blocks = defineCollection({
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    collection: { type: 'string', nullable: false },
    item: { type: 'string', nullable: false, referencesAny: ['block_text', 'block_hero'], collectionField: 'collection' },
  },
})
export const block_text = defineCollection({
  fields: { id: { type: 'integer', primaryKey: true, autoIncrement: true }, text: { type: 'string', nullable: false } },
})
export const block_hero = defineCollection({
  fields: { id: { type: 'integer', primaryKey: true, autoIncrement: true }, title: { type: 'string' }, image: { type: 'string' } },
})
type Blocks = { page_blocks: typeof page_blocks; block_text: typeof block_text; block_hero: typeof block_hero }
type BlockWrite = ItemWriteOf<typeof page_blocks.fields, Blocks>
export const blockWrites: BlockWrite[] = [
  { collection: 'block_text', item: { text: 'Hello' } },
  { collection: 'block_hero', item: { id: 2, title: 'Big' } },
  { collection: 'block_hero', item: 2 },
  { collection: 'block_text', item: '3' },
]
// @ts-expect-error: no allowed collection has a field "nosuch"
export const unknownAnyField: BlockWrite = { collection: 'block_text', item: { nosuch: 1 } }
// @ts-expect-error: the collection field names one of the allowed collections
export const unknownAnyCollection: BlockWrite = { collection: 'block_note', item: 1 }
expectTypeOf<BlockWrite['collection']>().toEqualTypeOf<'block_text' | 'block_hero' | undefined>()
expectTypeOf<ItemOf<typeof page_blocks.fields>['item']>().toEqualTypeOf<string>()

// Without the other definitions, a related object is any object.
export const untyped: ItemWriteOf<typeof players.fields> = { team: { anything: 1 } }
expectTypeOf<ItemWriteOf<typeof teams.fields>['players']>().toEqualTypeOf<
  | readonly (PrimaryKey | Record<string, unknown>)[]
  | { create?: readonly Record<string, unknown>[]; update?: readonly Record<string, unknown>[]; delete?: readonly PrimaryKey[] }
  | null
  | undefined
>()
