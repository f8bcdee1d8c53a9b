// Test support: a page builder (a many-to-any): pages whose blocks are junction rows pointing at an item of
// block_text or block_hero, and block_note, which no junction may point at. Tables, seed and a snapshot, shared
// by the many-to-any and SDK specs.
import type { Knex } from 'knex'
import type { CollectionDefinition } from '../../lib'
import { dialectOf } from '../../lib/dialects'

export const P = {
  pages: 'ma_pages',
  blocks: 'ma_page_blocks',
  text: 'ma_block_text',
  hero: 'ma_block_hero',
  note: 'ma_block_note',
  /** A singleton whose banner is a many-to-any of its own (configured by the spec that uses it). */
  site: 'ma_site',
}

export const pageCollections = {
  pages: {
    table: P.pages,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      title: { type: 'string', nullable: false, maxLength: 50 },
      blocks: { type: 'o2m', collection: 'page_blocks', foreignKey: 'page' },
    },
  },
  page_blocks: {
    table: P.blocks,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      page: { type: 'integer', references: 'pages', nullable: false },
      collection: { type: 'string', nullable: false, maxLength: 30 },
      item: { type: 'string', nullable: false, maxLength: 40, referencesAny: ['block_text', 'block_hero'], collectionField: 'collection' },
    },
  },
  block_text: {
    table: P.text,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      text: { type: 'string', nullable: false, maxLength: 50 },
    },
  },
  block_hero: {
    table: P.hero,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      title: { type: 'string', nullable: false, maxLength: 50 },
      image: { type: 'string' },
    },
  },
  block_note: {
    table: P.note,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      note: { type: 'string' },
    },
  },
} satisfies Record<string, CollectionDefinition>

export async function createPageTables(knex: Knex): Promise<void> {
  await dropPageTables(knex)
  await knex.schema.createTable(P.pages, (table) => {
    table.increments('id')
    table.string('title', 50).notNullable()
  })
  await knex.schema.createTable(P.blocks, (table) => {
    table.increments('id')
    table.integer('page').unsigned().notNullable().references('id').inTable(P.pages)
    table.string('collection', 30).notNullable()
    table.string('item', 40).notNullable()
  })
  await knex.schema.createTable(P.text, (table) => {
    table.increments('id')
    table.string('text', 50).notNullable()
  })
  await knex.schema.createTable(P.hero, (table) => {
    table.increments('id')
    table.string('title', 50).notNullable()
    table.string('image', 50)
  })
  await knex.schema.createTable(P.note, (table) => {
    table.increments('id')
    table.string('note', 50)
  })
  await knex.schema.createTable(P.site, (table) => {
    table.increments('id')
    table.string('banner_kind', 30)
    table.string('banner', 40)
  })
}

export async function dropPageTables(knex: Knex): Promise<void> {
  for (const table of [P.blocks, P.pages, P.text, P.hero, P.note, P.site]) await knex.schema.dropTableIfExists(table)
}

/** Every row of every table, by table, in key order: what a refused write must leave as it was. */
export async function pageSnapshot(knex: Knex): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {}
  for (const [name, table] of Object.entries(P)) rows[name] = await knex(table).select('*').orderBy('id')
  return rows
}

/**
 * Page 1 (Home: blocks 1 → text 1, 2 → hero 1, 3 → text 2) and page 2 (About: block 4 → hero 2); text 3 and
 * note 1 belong to no page.
 */
export async function seedPages(knex: Knex): Promise<void> {
  for (const table of [P.blocks, P.pages, P.text, P.hero, P.note, P.site]) await knex(table).delete()
  await knex(P.pages).insert([
    { id: 1, title: 'Home' },
    { id: 2, title: 'About' },
  ])
  await knex(P.text).insert([
    { id: 1, text: 'Welcome' },
    { id: 2, text: 'Read on' },
    { id: 3, text: 'Spare' },
  ])
  await knex(P.hero).insert([
    { id: 1, title: 'Big', image: 'big.png' },
    { id: 2, title: 'Team', image: null },
  ])
  await knex(P.note).insert([{ id: 1, note: 'private' }])
  await knex(P.blocks).insert([
    { id: 1, page: 1, collection: 'block_text', item: '1' },
    { id: 2, page: 1, collection: 'block_hero', item: '1' },
    { id: 3, page: 1, collection: 'block_text', item: '2' },
    { id: 4, page: 2, collection: 'block_hero', item: '2' },
  ])
  const sync = dialectOf(knex).syncAutoIncrement
  if (sync) for (const table of Object.values(P)) await sync(knex, table, 'id', '1')
}
