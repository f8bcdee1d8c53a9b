// Many-to-any relations (a page builder): a junction whose `item` holds the key of an item of one of several
// collections, named by its `collection`. Reads expand it per collection (`blocks.item:block_text.*`), one
// statement per collection and level; writes create, update and link items through it with the one-to-many rules
// on the junction rows, all or nothing (every refusal reads the tables after), errors at their path, access rules
// per collection written.
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { getInvalidQuery } from '../support/expect-error'
import { createPageTables, dropPageTables, P, pageCollections, seedPages } from '../support/page-fixtures'

forEachDialect((ctx) => {
  describe(`${ctx.name}: many-to-any`, () => {
    let app: Express
    beforeAll(async () => {
      await createPageTables(ctx.knex)
      app = createApp(ctx.knex, { collections: pageCollections })
    })
    beforeEach(() => seedPages(ctx.knex))
    afterAll(() => dropPageTables(ctx.knex))

    describe('reads', () => {
      it('blocks.* answers the junction rows, the item as the key it stores', async () => {
        const response = await request(app).get('/api/items/pages/1?fields=id,blocks.*')
        expect(response.body).toEqual({
          data: {
            id: 1,
            blocks: [
              { id: 1, page: 1, collection: 'block_text', item: '1' },
              { id: 2, page: 1, collection: 'block_hero', item: '1' },
              { id: 3, page: 1, collection: 'block_text', item: '2' },
            ],
          },
        })
      })

      it('item:<collection> expands the items of that collection; the others answer their key', async () => {
        const one = await request(app).get('/api/items/pages/1?fields=blocks.collection,blocks.item:block_text.text')
        expect(one.body.data.blocks).toEqual([
          { collection: 'block_text', item: { text: 'Welcome' } },
          { collection: 'block_hero', item: '1' },
          { collection: 'block_text', item: { text: 'Read on' } },
        ])
        const both = await request(app).get('/api/items/pages/1?fields=blocks.item:block_text.text,blocks.item:block_hero.title')
        expect(both.body.data.blocks).toEqual([{ item: { text: 'Welcome' } }, { item: { title: 'Big' } }, { item: { text: 'Read on' } }])
      })

      it('item.* without a collection expands every allowed collection; the junction reads it too', async () => {
        const response = await request(app).get('/api/items/pages?fields=id,blocks.item.*&sort=id')
        expect(response.body.data).toEqual([
          {
            id: 1,
            blocks: [
              { item: { id: 1, text: 'Welcome' } },
              { item: { id: 1, title: 'Big', image: 'big.png' } },
              { item: { id: 2, text: 'Read on' } },
            ],
          },
          { id: 2, blocks: [{ item: { id: 2, title: 'Team', image: null } }] },
        ])
        const junction = await request(app).get('/api/items/page_blocks?fields=id,item:block_hero.title&filter[collection][_eq]=block_hero')
        expect(junction.body.data).toEqual([
          { id: 2, item: { title: 'Big' } },
          { id: 4, item: { title: 'Team' } },
        ])
      })

      it('reads stay batched: one statement per collection and level, whatever the number of rows', async () => {
        const read = () =>
          ctx.countQueries(() => request(app).get('/api/items/pages?fields=id,blocks.item:block_text.*,blocks.item:block_hero.*'))
        const before = await read()
        await ctx.knex(P.text).insert(Array.from({ length: 30 }, (_, index) => ({ text: `T${index}` })))
        const texts = (await ctx.knex(P.text).select('id').where('text', 'like', 'T%')) as { id: number }[]
        await ctx.knex(P.blocks).insert(texts.map(({ id }) => ({ page: 2, collection: 'block_text', item: String(id) })))
        const after = await read()
        expect((after.result.body as { data: { blocks: unknown[] }[] }).data[1]!.blocks).toHaveLength(31)
        // pages, page_blocks, block_text, block_hero
        expect(after.count).toBe(4)
        expect(after.count).toBe(before.count)
      })

      it('refuses a collection it may not hold, a path ending at the collection, a field not every collection has, and filters through it', async () => {
        await getInvalidQuery(ctx, app, '/api/items/pages?fields=blocks.item:block_note.*', ['block_note', 'block_text, block_hero'])
        await getInvalidQuery(ctx, app, '/api/items/pages?fields=blocks.item:block_text', ['block_text'])
        await getInvalidQuery(ctx, app, '/api/items/pages?fields=blocks.item.text', ['text', 'block_hero'])
        await getInvalidQuery(ctx, app, '/api/items/pages?fields=title:block_text.text', ['title', 'many-to-any'])
        await getInvalidQuery(ctx, app, '/api/items/pages?filter[blocks][item:block_text][text][_eq]=Welcome', [
          'many-to-any',
          'item:block_text',
        ])
        const byValue = await request(app).get('/api/items/pages?fields=id&filter[blocks][collection][_eq]=block_hero&sort=id')
        expect(byValue.body.data).toEqual([{ id: 1 }, { id: 2 }])
      })
    })
  })
})
