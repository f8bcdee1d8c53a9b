// Many-to-any relations (a page builder): a junction whose `item` holds the key of an item of one of several
// collections, named by its `collection`. Reads expand it per collection (`blocks.item:block_text.*`), one
// statement per collection and level; writes create, update and link items through it with the one-to-many rules
// on the junction rows, all or nothing (every refusal reads the tables after), errors at their path, access rules
// per collection written.
import type { Express } from 'express'
import request from 'supertest'
import { createItemsRouter, type ItemsEvent } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient } from '../support/realtime'
import { expectErrors, getInvalidQuery } from '../support/expect-error'
import { createPageTables, dropPageTables, P, pageCollections, pageSnapshot, seedPages } from '../support/page-fixtures'

forEachDialect((ctx) => {
  describe(`${ctx.name}: many-to-any`, () => {
    let app: Express
    beforeAll(async () => {
      await createPageTables(ctx.knex)
      app = createApp(ctx.knex, { collections: pageCollections })
    })
    beforeEach(() => seedPages(ctx.knex))
    afterAll(() => dropPageTables(ctx.knex))

    /** Sends a write that must be refused, and checks that every table is as it was. */
    async function refused(send: () => request.Test, status: number, code: Parameters<typeof expectErrors>[2]) {
      const before = await pageSnapshot(ctx.knex)
      const errors = expectErrors(await send(), status, code)
      expect(await pageSnapshot(ctx.knex)).toEqual(before)
      return errors
    }

    const blocksOf = async (page: number): Promise<{ collection: string; item: string }[]> =>
      (await ctx.knex(P.blocks).select('collection', 'item').where({ page }).orderBy('id')) as { collection: string; item: string }[]

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

    describe('writes', () => {
      it('creates an item and its junction row, links an existing item by key, and answers with the request fields', async () => {
        const response = await request(app)
          .post('/api/items/pages?fields=title,blocks.collection,blocks.item:block_text.text,blocks.item:block_hero.title')
          .send({
            title: 'Contact',
            blocks: [
              { collection: 'block_text', item: { text: 'Call us' } },
              { collection: 'block_hero', item: 2 },
              { collection: 'block_text', item: '3' },
            ],
          })
        expect(response.status).toBe(200)
        expect(response.body.data).toEqual({
          title: 'Contact',
          blocks: [
            { collection: 'block_text', item: { text: 'Call us' } },
            { collection: 'block_hero', item: { title: 'Team' } },
            { collection: 'block_text', item: { text: 'Spare' } },
          ],
        })
        const page = (await ctx.knex(P.pages).where({ title: 'Contact' }).first('id')) as { id: number }
        const created = (await ctx.knex(P.text).where({ text: 'Call us' }).first('id')) as { id: number }
        // The key of every collection is stored as text.
        expect(await blocksOf(page.id)).toEqual([
          { collection: 'block_text', item: String(created.id) },
          { collection: 'block_hero', item: '2' },
          { collection: 'block_text', item: '3' },
        ])
      })

      it('an item object with a key updates it; the basic form deletes the junction rows left out, never their items', async () => {
        const response = await request(app)
          .patch('/api/items/pages/1?fields=blocks.id,blocks.item:block_text.text')
          .send({ blocks: [{ id: 1, collection: 'block_text', item: { id: 1, text: 'Welcome!' } }] })
        expect(response.body).toEqual({ data: { blocks: [{ id: 1, item: { text: 'Welcome!' } }] } })
        expect(await blocksOf(1)).toEqual([{ collection: 'block_text', item: '1' }])
        // Junction rows 2 and 3 went; hero 1 and text 2 stay.
        expect(await ctx.knex(P.hero).where({ id: 1 })).toHaveLength(1)
        expect(await ctx.knex(P.text).where({ id: 2 })).toHaveLength(1)
      })

      it('the detailed form creates, updates and deletes junction rows', async () => {
        const response = await request(app)
          .patch('/api/items/pages/2?fields=blocks.collection,blocks.item.*')
          .send({
            blocks: {
              create: [{ collection: 'block_hero', item: { title: 'New hero' } }],
              update: [{ id: 4, collection: 'block_text', item: 1 }],
              delete: [],
            },
          })
        expect(response.status).toBe(200)
        expect(response.body.data.blocks).toEqual([
          { collection: 'block_text', item: { id: 1, text: 'Welcome' } },
          { collection: 'block_hero', item: { id: expect.any(Number), title: 'New hero', image: null } },
        ])
        const removed = await request(app)
          .patch('/api/items/pages/2?fields=blocks')
          .send({ blocks: { delete: [4] } })
        expect(removed.body.data.blocks).toHaveLength(1)
        expect(await ctx.knex(P.text).where({ id: 1 })).toHaveLength(1)
      })

      it('the junction takes the same values when written on its own; a PATCH by keys creates one item per key', async () => {
        const single = await request(app)
          .post('/api/items/page_blocks?fields=item:block_text.text')
          .send({ page: 2, collection: 'block_text', item: { text: 'Direct' } })
        expect(single.body).toEqual({ data: { item: { text: 'Direct' } } })
        const before = (await ctx.knex(P.hero).count({ n: '*' }))[0] as { n: number | string }
        const patched = await request(app)
          .patch('/api/items/page_blocks?fields=id,collection,item:block_hero.title')
          .send({ keys: [1, 3], data: { collection: 'block_hero', item: { title: 'Shared' } } })
        expect(patched.body.data).toEqual([
          { id: 1, collection: 'block_hero', item: { title: 'Shared' } },
          { id: 3, collection: 'block_hero', item: { title: 'Shared' } },
        ])
        const after = (await ctx.knex(P.hero).count({ n: '*' }))[0] as { n: number | string }
        expect(Number(after.n)).toBe(Number(before.n) + 2)
      })

      it('every write form takes it: a batch POST, a PATCH by query, a batch PATCH', async () => {
        const batch = await request(app)
          .post('/api/items/pages?fields=title,blocks.item:block_text.text')
          .send([
            { title: 'One', blocks: [{ collection: 'block_text', item: { text: 'First' } }] },
            { title: 'Two', blocks: [{ collection: 'block_text', item: 3 }] },
          ])
        expect(batch.body.data).toEqual([
          { title: 'One', blocks: [{ item: { text: 'First' } }] },
          { title: 'Two', blocks: [{ item: { text: 'Spare' } }] },
        ])
        const byQuery = await request(app)
          .patch('/api/items/page_blocks?fields=id,item:block_hero.title')
          .send({
            query: { filter: { page: { _eq: 1 }, collection: { _eq: 'block_hero' } } },
            data: { collection: 'block_hero', item: { id: 2, title: 'Team!' } },
          })
        expect(byQuery.body.data).toEqual([{ id: 2, item: { title: 'Team!' } }])
        const rows = await request(app)
          .patch('/api/items/page_blocks?fields=id,collection,item')
          .send([
            { id: 1, collection: 'block_hero', item: 1 },
            { id: 3, collection: 'block_text', item: { text: 'Replaced' } },
          ])
        expect(rows.status).toBe(200)
        const replaced = (await ctx.knex(P.text).where({ text: 'Replaced' }).first('id')) as { id: number }
        expect(rows.body.data).toEqual([
          { id: 1, collection: 'block_hero', item: '1' },
          { id: 3, collection: 'block_text', item: String(replaced.id) },
        ])
      })

      it("a singleton's PATCH takes it too", async () => {
        const site = createApp(ctx.knex, {
          collections: {
            ...pageCollections,
            site: {
              table: P.site,
              singleton: true,
              fields: {
                id: { type: 'integer', primaryKey: true, autoIncrement: true },
                banner_kind: { type: 'string' },
                banner: { type: 'string', referencesAny: ['block_text', 'block_hero'], collectionField: 'banner_kind' },
              },
            },
          },
        })
        const created = await request(site)
          .patch('/api/items/site?fields=banner_kind,banner:block_hero.title')
          .send({ banner_kind: 'block_hero', banner: { title: 'Sale' } })
        expect(created.body).toEqual({ data: { banner_kind: 'block_hero', banner: { title: 'Sale' } } })
        const linked = await request(site).patch('/api/items/site?fields=banner.*').send({ banner_kind: 'block_text', banner: 1 })
        expect(linked.body).toEqual({ data: { banner: { id: 1, text: 'Welcome' } } })
        expect(await ctx.knex(P.site).select('banner_kind', 'banner')).toEqual([{ banner_kind: 'block_text', banner: '1' }])
      })

      it('nesting composes: a page created from its block row', async () => {
        const response = await request(app)
          .post('/api/items/page_blocks?fields=page.title,page.blocks.item:block_hero.title')
          .send({
            page: { title: 'Deep', blocks: [{ collection: 'block_hero', item: { title: 'Inner' } }] },
            collection: 'block_text',
            item: 2,
          })
        expect(response.status).toBe(200)
        expect(response.body.data.page.title).toBe('Deep')
        expect(response.body.data.page.blocks).toEqual([{ item: { title: 'Inner' } }, { item: '2' }])
      })

      it('refuses a collection it may not hold, an item without its collection, and a collection without its item', async () => {
        const [outside] = await refused(
          () =>
            request(app)
              .post('/api/items/pages')
              .send({
                title: 'X',
                blocks: [
                  { collection: 'block_text', item: { text: 'ok' } },
                  { collection: 'block_note', item: 1 },
                ],
              }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(outside!.extensions.path).toEqual(['blocks', 1, 'collection'])
        expect(outside!.message).toContain('block_note')
        const [alone] = await refused(
          () =>
            request(app)
              .patch('/api/items/pages/1')
              .send({ title: 'Home!', blocks: [{ item: { text: 'orphan' } }] }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(alone!.extensions.path).toEqual(['blocks', 0, 'item'])
        const [named] = await refused(
          () => request(app).patch('/api/items/page_blocks/1').send({ collection: 'block_hero' }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(named!.extensions.path).toEqual(['collection'])
        const [array] = await refused(
          () =>
            request(app)
              .post('/api/items/page_blocks')
              .send({ page: 1, collection: 'block_text', item: [1] }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(array!.extensions.path).toEqual(['item'])
      })

      it('a key that names no item is a 404 at its path; an item is validated like any other; nothing is written', async () => {
        const [missing] = await refused(
          () =>
            request(app)
              .post('/api/items/pages')
              .send({
                title: 'X',
                blocks: [
                  { collection: 'block_text', item: { text: 'ok' } },
                  { collection: 'block_hero', item: 99 },
                ],
              }),
          404,
          'NOT_FOUND',
        )
        expect(missing!.extensions).toMatchObject({ collection: 'block_hero', keys: [99], path: ['blocks', 1, 'item'] })
        const invalid = await refused(
          () =>
            request(app)
              .patch('/api/items/pages/1')
              .send({ title: 'Home!', blocks: [{ collection: 'block_text', item: { text: null, nosuch: 1 } }] }),
          400,
          'FAILED_VALIDATION',
        )
        expect(invalid.map((error) => [error.extensions.path, error.extensions.field]).sort()).toEqual([
          [['blocks', 0, 'item'], 'nosuch'],
          [['blocks', 0, 'item'], 'text'],
        ])
        const [updateMissing] = await refused(
          () =>
            request(app)
              .patch('/api/items/pages/1')
              .send({ blocks: [{ id: 1, collection: 'block_text', item: { id: 77, text: 'ghost' } }] }),
          404,
          'NOT_FOUND',
        )
        expect(updateMissing!.extensions).toMatchObject({ collection: 'block_text', keys: [77], path: ['blocks', 0, 'item'] })
      })

      it('nested rows count toward maxRelationalDepth', async () => {
        const shallow = createApp(ctx.knex, { collections: pageCollections, maxRelationalDepth: 1 })
        const [error] = await refused(
          () =>
            request(shallow)
              .post('/api/items/pages')
              .send({ title: 'X', blocks: [{ collection: 'block_text', item: { text: 'deep' } }] }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(error!.extensions.path).toEqual(['blocks', 0, 'item'])
      })
    })

    describe('access and events', () => {
      const restricted = (): Express =>
        createApp(ctx.knex, {
          collections: {
            ...pageCollections,
            block_hero: { ...pageCollections.block_hero, access: { read: false, create: false, update: false, delete: false } },
            block_text: {
              ...pageCollections.block_text,
              access: { read: true, create: { fields: ['text'] }, update: false, delete: false },
            },
          },
        })

      it("each item is written under its own collection's rules; an item the caller cannot see cannot be linked", async () => {
        const app = restricted()
        const [create] = await refused(
          () =>
            request(app)
              .post('/api/items/pages')
              .send({ title: 'X', blocks: [{ collection: 'block_hero', item: { title: 'No' } }] }),
          403,
          'FORBIDDEN',
        )
        expect(create!.extensions.path).toEqual(['blocks', 0, 'item'])
        const [link] = await refused(
          () =>
            request(app)
              .post('/api/items/pages')
              .send({ title: 'X', blocks: [{ collection: 'block_hero', item: 1 }] }),
          404,
          'NOT_FOUND',
        )
        expect(link!.extensions.path).toEqual(['blocks', 0, 'item'])
        const [update] = await refused(
          () =>
            request(app)
              .patch('/api/items/pages/1')
              .send({ blocks: [1, 2, { id: 3, collection: 'block_text', item: { id: 2, text: 'No' } }] }),
          403,
          'FORBIDDEN',
        )
        expect(update!.extensions.path).toEqual(['blocks', 2, 'item'])
        const allowed = await request(app)
          .post('/api/items/pages?fields=blocks.item')
          .send({ title: 'Y', blocks: [{ collection: 'block_text', item: { text: 'Yes' } }] })
        expect(allowed.status).toBe(200)
        // Hero items are outside the caller's reads: expanded, they answer null.
        const read = await request(app).get('/api/items/pages/2?fields=blocks.item.*')
        expect(read.body).toEqual({ data: { blocks: [{ item: null }] } })
      })

      it('before hooks and events for every nested row, in the order written', async () => {
        const seen: string[] = []
        const router = createItemsRouter({
          knex: ctx.knex,
          defaultAccess: true,
          collections: {
            ...pageCollections,
            block_text: {
              ...pageCollections.block_text,
              hooks: {
                beforeCreate: (item) => {
                  seen.push(`before block_text ${String(item.text)}`)
                  return item
                },
              },
            },
          },
          logger: { error: () => undefined, warn: () => undefined },
        })
        const events: string[] = []
        router.events.on('items.create', (event: ItemsEvent) => events.push(`${event.collection} ${event.keys.length}`))
        const express = (await import('express')).default
        const response = await request(express().use('/api', router))
          .post('/api/items/pages')
          .send({
            title: 'Z',
            blocks: [
              { collection: 'block_text', item: { text: 'a' } },
              { collection: 'block_text', item: { text: 'b' } },
            ],
          })
        expect(response.status).toBe(200)
        expect(seen).toEqual(['before block_text a', 'before block_text b'])
        expect(events).toEqual(['pages 1', 'block_text 2', 'page_blocks 2'])
      })

      it('the statements of a nested write do not grow with its blocks', async () => {
        const blocks = (count: number) =>
          Array.from({ length: count }, (_, index) =>
            index % 2 === 0
              ? { collection: 'block_text', item: { text: `T${index}` } }
              : { collection: 'block_hero', item: { title: `H${index}` } },
          )
        const create = (count: number) =>
          ctx.countQueries(() =>
            request(app)
              .post('/api/items/pages?fields=id')
              .send({ title: `Page of ${count}`, blocks: blocks(count) }),
          )
        const few = await create(4)
        const many = await create(60)
        expect(many.result.status).toBe(200)
        expect(many.count).toBe(few.count)
        const page = (many.result.body as { data: { id: number } }).data.id
        expect(await blocksOf(page)).toHaveLength(60)
      })
    })

    describe('content versions', () => {
      let versioned: Express
      beforeAll(() => {
        versioned = createApp(ctx.knex, {
          collections: { ...pageCollections, pages: { ...pageCollections.pages, versioning: true } },
          createVersionsTable: true,
        })
      })
      afterEach(() => ctx.knex('items_versions').where({ collection: 'pages' }).delete())

      it('a draft keeps blocks as sent, shows them expanded, and its promote writes them', async () => {
        const draft = await request(versioned).post('/api/versions').send({ key: 'draft', collection: 'pages', item: 1 })
        const id = draft.body.data.id as number
        const saved = await request(versioned)
          .post(`/api/versions/${id}/save`)
          .send({ blocks: [1, { collection: 'block_text', item: { text: 'Drafted' } }, { collection: 'block_hero', item: 2 }] })
        expect(saved.status).toBe(200)
        const shown = await request(versioned).get(
          '/api/items/pages/1?version=draft&fields=blocks.item:block_text.text,blocks.item:block_hero.title',
        )
        expect(shown.body.data.blocks).toEqual([{ item: { text: 'Welcome' } }, { item: { text: 'Drafted' } }, { item: { title: 'Team' } }])
        expect(await blocksOf(1)).toHaveLength(3)
        const mainHash = (await request(versioned).get(`/api/versions/${id}/compare`)).body.data.mainHash as string
        const promoted = await request(versioned).post(`/api/versions/${id}/promote`).send({ mainHash })
        expect(promoted.status).toBe(200)
        const drafted = (await ctx.knex(P.text).where({ text: 'Drafted' }).first('id')) as { id: number }
        expect(await blocksOf(1)).toEqual([
          { collection: 'block_text', item: '1' },
          { collection: 'block_text', item: String(drafted.id) },
          { collection: 'block_hero', item: '2' },
        ])
      })
    })

    describe('realtime', () => {
      it('a subscription expands the item in the events of a nested write', async () => {
        const host = await startRealtimeHost(ctx.knex, {}, { collections: pageCollections })
        try {
          const ws = await TestClient.open(host.wsUrl, 'token-editor')
          const fields = ['collection', 'item:block_text.text', 'item:block_hero.title']
          await ws.ask({ type: 'subscribe', collection: 'page_blocks', event: 'create', uid: 'blocks', query: { fields } })
          await request(host.server)
            .post('/api/items/pages')
            .send({
              title: 'Live',
              blocks: [
                { collection: 'block_text', item: { text: 'Now' } },
                { collection: 'block_hero', item: 2 },
              ],
            })
            .expect(200)
          expect(await ws.answer('blocks')).toEqual({
            type: 'subscription',
            event: 'create',
            data: [
              { collection: 'block_text', item: { text: 'Now' } },
              { collection: 'block_hero', item: { title: 'Team' } },
            ],
            uid: 'blocks',
          })
          ws.socket.close()
        } finally {
          await host.close()
        }
      })
    })

    describe('Directus schema endpoints', () => {
      it("describe the junction's two relations, linked to each other, and the alias as an m2a", async () => {
        const described = createApp(ctx.knex, { collections: pageCollections, schemaEndpoints: true })
        const relations = await request(described).get('/api/relations/page_blocks')
        expect(relations.body.data).toEqual([
          expect.objectContaining({
            field: 'page',
            related_collection: 'pages',
            meta: expect.objectContaining({ one_field: 'blocks', junction_field: 'item', one_allowed_collections: null }),
          }),
          {
            collection: 'page_blocks',
            field: 'item',
            related_collection: null,
            schema: null,
            meta: expect.objectContaining({
              many_field: 'item',
              one_collection: null,
              one_collection_field: 'collection',
              one_allowed_collections: ['block_text', 'block_hero'],
              junction_field: 'page',
            }),
          },
        ])
        const alias = await request(described).get('/api/fields/pages/blocks')
        expect(alias.body.data).toMatchObject({ type: 'alias', schema: null, meta: { special: ['m2a'], interface: 'list-m2a' } })
      })
    })
  })
})
