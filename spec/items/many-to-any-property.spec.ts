// A property of many-to-any writes, on every dialect: a random page write (a new page, or page 1 changed) whose
// blocks, in the basic form, keep junction rows, change their item, link existing items or create new ones of
// either collection, leaves the same rows as the same changes made one by one through plain knex statements,
// written here from the rules in docs/guide/writes.md. Rows are compared by their (unique) texts and titles, since
// the keys of created rows depend on the order of inserts. PROPERTY_SEED=<seed> replays a failure.
import type { Express } from 'express'
import fc from 'fast-check'
import type { Knex } from 'knex'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectWrittenAsBySql } from '../support/write-checks'
import { createPageTables, dropPageTables, P, pageCollections, seedPages } from '../support/page-fixtures'

const RUNS = Number(process.env.PROPERTY_RUNS ?? 15)
const SEED = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED)

type Kind = 'block_text' | 'block_hero'
/** Seeded items of each collection (see page-fixtures.ts), and page 1's junction rows. */
const EXISTING: Record<Kind, number[]> = { block_text: [1, 2, 3], block_hero: [1, 2] }
const PAGE_ONE_BLOCKS = [1, 2, 3]

/** What a block of the list does to an item: link an existing one, create one, or update an existing one. */
type ItemChange =
  { readonly kind: Kind; readonly op: 'link' | 'update'; readonly key: number } | { readonly kind: Kind; readonly op: 'create' }

/** A block: a junction row of page 1 kept as it is, or (kept and changed, or new) with an item change. */
type Block = { readonly keep: number } | { readonly row: number | null; readonly item: ItemChange }

interface Shape {
  /** null: a new page. */
  readonly page: 1 | null
  readonly blocks: readonly Block[]
}

const kind = fc.constantFrom<Kind>('block_text', 'block_hero')
const itemChange: fc.Arbitrary<ItemChange> = kind.chain((k) =>
  fc.oneof(
    fc.constant<ItemChange>({ kind: k, op: 'create' }),
    fc.constantFrom(...EXISTING[k]).map((key): ItemChange => ({ kind: k, op: 'link', key })),
    fc.constantFrom(...EXISTING[k]).map((key): ItemChange => ({ kind: k, op: 'update', key })),
  ),
)

const shape: fc.Arbitrary<Shape> = fc.constantFrom<1 | null>(1, null).chain((page) =>
  fc
    .tuple(fc.subarray(PAGE_ONE_BLOCKS), fc.array(itemChange, { maxLength: 5 }), fc.array(fc.boolean(), { minLength: 5, maxLength: 5 }))
    .map(([kept, changes, onKept]): Shape => {
      // Page 1's rows may be kept or changed in place; a new page has none of them.
      const rows = page === null ? [] : [...kept]
      const blocks: Block[] = rows.map((row) => ({ keep: row }))
      changes.forEach((item, index) => {
        const row = onKept[index] && rows.length > 0 ? rows.shift()! : null
        if (row !== null)
          blocks.splice(
            blocks.findIndex((block) => 'keep' in block && block.keep === row),
            1,
          )
        blocks.push({ row, item })
      })
      // Each existing item is updated at most once: two updates of one item would depend on their order.
      const updated = new Set<string>()
      const once = blocks.filter((block) => {
        if (!('item' in block) || block.item.op !== 'update') return true
        const id = `${block.item.kind}:${block.item.key}`
        if (updated.has(id)) return false
        updated.add(id)
        return true
      })
      return { page, blocks: once }
    }),
)

const nameField = (k: Kind): string => (k === 'block_text' ? 'text' : 'title')
const table = (k: Kind): string => (k === 'block_text' ? P.text : P.hero)

/** The names the write gives: the page's title, and one per created or updated item, by block index. */
const namesOf = (s: Shape): { title: string; items: string[] } => ({
  title: s.page === null ? 'Fresh page' : 'Home v2',
  items: s.blocks.map((_, index) => `Name ${index}`),
})

function payloadOf(s: Shape, names: ReturnType<typeof namesOf>): Record<string, unknown> {
  const blocks = s.blocks.map((block, index) => {
    if ('keep' in block) return block.keep
    const { item } = block
    const value =
      item.op === 'link'
        ? item.key
        : item.op === 'create'
          ? { [nameField(item.kind)]: names.items[index] }
          : { id: item.key, [nameField(item.kind)]: names.items[index] }
    return { ...(block.row === null ? {} : { id: block.row }), collection: item.kind, item: value }
  })
  return { title: names.title, blocks }
}

const insertedKey = async (knex: Knex, into: string, row: Record<string, unknown>): Promise<number> => {
  const [inserted] = await knex(into).insert(row, ['id'])
  return Number(typeof inserted === 'object' ? (inserted as { id: number }).id : inserted)
}

/** The same write as plain statements, one change at a time. */
async function applyBySql(knex: Knex, s: Shape, names: ReturnType<typeof namesOf>): Promise<void> {
  const page = s.page ?? (await insertedKey(knex, P.pages, { title: names.title }))
  if (s.page !== null) await knex(P.pages).where({ id: page }).update({ title: names.title })
  const listed: number[] = []
  for (const [index, block] of s.blocks.entries()) {
    if ('keep' in block) {
      listed.push(block.keep)
      continue
    }
    const { item } = block
    let key: number
    if (item.op === 'create') key = await insertedKey(knex, table(item.kind), { [nameField(item.kind)]: names.items[index] })
    else {
      key = item.key
      if (item.op === 'update')
        await knex(table(item.kind))
          .where({ id: key })
          .update({ [nameField(item.kind)]: names.items[index] })
    }
    const row = { collection: item.kind, item: String(key) }
    if (block.row === null) listed.push(await insertedKey(knex, P.blocks, { ...row, page }))
    else {
      await knex(P.blocks).where({ id: block.row }).update(row)
      listed.push(block.row)
    }
  }
  // The basic form is the page's whole new set: its other junction rows are deleted (page is NOT NULL).
  await knex(P.blocks).where({ page }).whereNotIn('id', listed).delete()
}

/** Every row, keys replaced by the names they point at, sorted. */
async function contents(knex: Knex): Promise<Record<string, unknown[]>> {
  const byId = async (from: string, column: string): Promise<Map<string, string>> =>
    new Map(((await knex(from).select('id', column)) as Record<string, unknown>[]).map((row) => [String(row.id), String(row[column])]))
  const pages = await byId(P.pages, 'title')
  const items: Record<string, Map<string, string>> = { block_text: await byId(P.text, 'text'), block_hero: await byId(P.hero, 'title') }
  const sorted = (rows: unknown[]): unknown[] => rows.map((row) => JSON.stringify(row)).sort()
  return {
    pages: sorted([...pages.values()]),
    text: sorted([...items.block_text!.values()]),
    hero: sorted([...items.block_hero!.values()]),
    blocks: sorted(
      ((await knex(P.blocks).select('page', 'collection', 'item')) as Record<string, unknown>[]).map((row) => [
        pages.get(String(row.page)),
        row.collection,
        items[String(row.collection)]!.get(String(row.item)),
      ]),
    ),
  }
}

forEachDialect((ctx) => {
  describe(`${ctx.name}: many-to-any writes as a property`, () => {
    let app: Express
    beforeAll(async () => {
      await createPageTables(ctx.knex)
      app = createApp(ctx.knex, { collections: pageCollections })
    })
    afterAll(() => dropPageTables(ctx.knex))

    it('a random page write leaves the rows its changes leave when made one by one in SQL', async () => {
      await fc.assert(
        fc.asyncProperty(shape, async (s) => {
          const names = namesOf(s)
          const payload = payloadOf(s, names)
          await expectWrittenAsBySql(
            ctx.knex,
            { seed: seedPages, contents },
            {
              payload,
              send: () =>
                s.page === null
                  ? request(app).post('/api/items/pages').send(payload)
                  : request(app).patch('/api/items/pages/1').send(payload),
              bySql: (trx) => applyBySql(trx, s, names),
            },
          )
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
    }, 120_000)
  })
})
