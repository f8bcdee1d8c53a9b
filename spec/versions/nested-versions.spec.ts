// Content versions with nested values: a save keeps nested deltas (checked like a write, at their path), a read
// with ?version= shows them as the promote would leave the item, and a promote applies them through the nested
// write path: one transaction, the promoting caller's access rules, all or nothing.
import type { Express } from 'express'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors, type expectError } from '../support/expect-error'
import { collections as plain, createTables, dropTables, seed, snapshot, T } from '../support/nested-fixtures'

type Body = Record<string, unknown>

const collections = {
  ...plain,
  teams: { ...plain.teams, versioning: true },
  players: { ...plain.players, versioning: true },
  league: { ...plain.league, versioning: true },
}

forEachDialect((ctx) => {
  describe(`${ctx.name}: content versions with nested values`, () => {
    let app: Express
    beforeAll(async () => {
      await createTables(ctx.knex)
      app = createApp(ctx.knex, { collections, createVersionsTable: true })
    })
    beforeEach(async () => {
      await seed(ctx.knex)
      await ctx.knex('items_versions').whereIn('collection', ['teams', 'players', 'league']).delete()
    })
    afterAll(async () => {
      await ctx.knex('items_versions').whereIn('collection', ['teams', 'players', 'league']).delete()
      await dropTables(ctx.knex)
    })

    const draft = async (collection: string, item: number | null, target: Express = app): Promise<number> => {
      const response = await request(target).post('/api/versions').send({ key: 'draft', collection, item })
      expect(response.status).toBe(200)
      return response.body.data.id as number
    }
    const save = async (id: number, body: Body): Promise<Body> => {
      const response = await request(app).post(`/api/versions/${id}/save`).send(body)
      expect(response.status).toBe(200)
      return response.body.data as Body
    }
    const mainHash = async (id: number, target: Express = app): Promise<string> =>
      (await request(target).get(`/api/versions/${id}/compare`)).body.data.mainHash as string
    const promote = async (id: number, target: Express = app): Promise<request.Response> =>
      request(target)
        .post(`/api/versions/${id}/promote`)
        .send({ mainHash: await mainHash(id, target) })
    const rows = async (table: string, columns: string[]): Promise<Body[]> =>
      ((await ctx.knex(table).select(columns).orderBy('id')) as Body[]).map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([name, value]) => [name, typeof value === 'string' || value === null ? value : Number(value)]),
        ),
      )
    /** A request that must be refused, and every table as it was after it. */
    async function refused(send: () => Promise<request.Response>, status: number, code: Parameters<typeof expectError>[2]) {
      const before = await snapshot(ctx.knex)
      const errors = expectErrors(await send(), status, code)
      expect(await snapshot(ctx.knex)).toEqual(before)
      return errors
    }

    const DETAILED = { name: 'Red v2', players: { create: [{ name: 'Uma' }], update: [{ id: 2, name: 'Bob!' }], delete: [1] } }

    describe('saving', () => {
      it('keeps a nested value as sent, and writes nothing to the tables', async () => {
        const id = await draft('teams', 1)
        const before = await snapshot(ctx.knex)
        await save(id, DETAILED)
        const stored = await request(app).get(`/api/versions/${id}`)
        expect(stored.body.data.delta).toEqual(DETAILED)
        expect(await snapshot(ctx.knex)).toEqual(before)
      })

      it('checks nested values like a write, at their path, and keeps the delta as it was when refused', async () => {
        const id = await draft('teams', 1)
        await save(id, { name: 'Kept' })
        const [shape] = expectErrors(
          await request(app)
            .post(`/api/versions/${id}/save`)
            .send({ players: { bogus: [] } }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(shape!.extensions.path).toEqual(['players', 'bogus'])
        const errors = expectErrors(
          await request(app)
            .post(`/api/versions/${id}/save`)
            .send({ players: [{ name: 'Uma', nosuch: 1 }, { name: 5 }] }),
          400,
          'FAILED_VALIDATION',
        )
        expect(errors.map((error) => [error.extensions.path, error.extensions.field])).toEqual([
          [['players', 0], 'nosuch'],
          [['players', 1], 'name'],
        ])
        expect((await request(app).get(`/api/versions/${id}`)).body.data.delta).toEqual({ name: 'Kept' })
      })

      it('a later save of a relation replaces its earlier value', async () => {
        const id = await draft('teams', 1)
        await save(id, { players: [{ name: 'Uma' }] })
        await save(id, { players: { create: [{ name: 'Vic' }] } })
        expect((await request(app).get(`/api/versions/${id}`)).body.data.delta).toEqual({ players: { create: [{ name: 'Vic' }] } })
      })
    })

    describe('reading with ?version=', () => {
      it('shows a detailed one-to-many as the promote would leave it', async () => {
        const id = await draft('teams', 1)
        const shown = await save(id, DETAILED)
        expect(shown).toMatchObject({ id: 1, name: 'Red v2', players: [2, { name: 'Uma' }], tasks: [1, 2] })
        const read = await request(app).get('/api/items/teams/1?version=draft&fields=name,players.id,players.name,players.number')
        expect(read.body.data).toEqual({
          name: 'Red v2',
          players: [
            { id: 2, name: 'Bob!', number: 9 },
            { id: null, name: 'Uma', number: null },
          ],
          $meta: { version_id: id },
        })
      })

      it('shows a basic list, a many-to-many through its junction and a many-to-one object', async () => {
        const id = await draft('players', 1)
        await save(id, { team: { id: 2, name: 'Blue!' }, skills: [1, { skill: { name: 'vision' } }, { skill: 2 }] })
        const read = await request(app).get('/api/items/players/1?version=draft&fields=name,team.name,skills.skill.name')
        expect(read.body.data).toEqual({
          name: 'Ann',
          team: { name: 'Blue!' },
          skills: [{ skill: { name: 'speed' } }, { skill: { name: 'vision' } }, { skill: { name: 'stamina' } }],
          $meta: { version_id: id },
        })
        const team = await draft('teams', 2)
        await save(team, { players: [4, { id: 1, name: 'Ann!' }] })
        const list = await request(app).get('/api/items/teams?version=draft&fields=id,players.name')
        expect(list.body.data).toEqual([{ id: 2, players: [{ name: 'Ann!' }, { name: 'Dee' }], $meta: { version_id: team } }])
      })

      it('a new many-to-one item shows the fields the draft sets, and null for the others', async () => {
        const id = await draft('players', 4)
        await save(id, { team: { name: 'Orange', players: [{ name: 'Star' }] } })
        const read = await request(app).get('/api/items/players/4?version=draft&fields=name,team.id,team.name,team.players.name')
        expect(read.body.data).toEqual({
          name: 'Dee',
          team: { id: null, name: 'Orange', players: [{ name: 'Star' }] },
          $meta: { version_id: id },
        })
      })
    })

    describe('promoting', () => {
      it('applies the nested changes in one write and answers the key', async () => {
        const id = await draft('teams', 1)
        await save(id, DETAILED)
        const response = await promote(id)
        expect(response.status).toBe(200)
        expect(response.body).toEqual({ data: 1 })
        expect(await rows(T.players, ['id', 'name', 'team'])).toEqual([
          { id: 1, name: 'Ann', team: null },
          { id: 2, name: 'Bob!', team: 1 },
          { id: 3, name: 'Cid', team: 2 },
          { id: 4, name: 'Dee', team: null },
          { id: 5, name: 'Uma', team: 1 },
        ])
        expect(await rows(T.teams, ['id', 'name'])).toEqual([
          { id: 1, name: 'Red v2' },
          { id: 2, name: 'Blue' },
        ])
      })

      it('a nested-only promote consumes its hash: the same hash again is a 422, and nothing is written twice', async () => {
        const id = await draft('players', 1)
        await save(id, { skills: { create: [{ skill: { name: 'vision' } }] } })
        const hash = await mainHash(id)
        const first = await request(app).post(`/api/versions/${id}/promote`).send({ mainHash: hash })
        expect(first.status).toBe(200)
        await refused(() => request(app).post(`/api/versions/${id}/promote`).send({ mainHash: hash }), 422, 'UNPROCESSABLE_CONTENT')
        expect(await rows(T.junction, ['player', 'skill'])).toEqual([
          { player: 1, skill: 1 },
          { player: 1, skill: 3 },
        ])
      })

      it('refuses the whole promote when a nested write fails, at its path', async () => {
        const id = await draft('teams', 1)
        await save(id, { name: 'Red v2', players: { create: [{ name: 'Uma' }], update: [{ id: 999, name: 'Ghost' }] } })
        const [error] = await refused(() => promote(id), 404, 'NOT_FOUND')
        expect(error!.extensions).toMatchObject({ collection: 'players', path: ['players', 'update', 0] })
      })

      it("holds each nested write to the promoting caller's access rules", async () => {
        const restricted = createApp(ctx.knex, {
          collections: {
            ...collections,
            teams: { ...collections.teams, access: { read: true, create: true, update: true, delete: false } },
            tasks: { ...collections.tasks, access: { read: true, create: true, update: true, delete: false } },
          },
          createVersionsTable: true,
        })
        const id = await draft('teams', 1, restricted)
        await save(id, { name: 'Red v2', tasks: [] })
        const [error] = await refused(() => promote(id, restricted), 403, 'FORBIDDEN')
        expect(error!.extensions.path).toEqual(['tasks'])
      })
    })

    describe('drafts of items that do not exist yet', () => {
      it('keeps a draft with item null, shows it, and its promote creates the item and adopts it', async () => {
        const created = await request(app).post('/api/versions').send({ key: 'draft', collection: 'teams', item: null })
        expect(created.body.data).toMatchObject({ key: 'draft', collection: 'teams', item: null })
        const id = created.body.data.id as number
        expect(await save(id, { name: 'Gold', players: [{ name: 'Uma' }, 4] })).toEqual({
          id: null,
          name: 'Gold',
          players: [4, { name: 'Uma' }],
          tasks: [],
        })
        const compared = (await request(app).get(`/api/versions/${id}/compare`)).body.data
        expect(compared).toMatchObject({ outdated: false, main: null, current: { name: 'Gold' } })
        const promoted = await request(app).post(`/api/versions/${id}/promote`).send({ mainHash: compared.mainHash })
        expect(promoted.status).toBe(200)
        const key = promoted.body.data as number
        expect(await rows(T.teams, ['id', 'name'])).toContainEqual({ id: key, name: 'Gold' })
        expect((await rows(T.players, ['name', 'team'])).filter((row) => row.team === key)).toEqual([
          { name: 'Dee', team: key },
          { name: 'Uma', team: key },
        ])
        // The version now belongs to the item: the same hash again creates nothing.
        expect((await request(app).get(`/api/versions/${id}`)).body.data.item).toBe(String(key))
        await refused(
          () => request(app).post(`/api/versions/${id}/promote`).send({ mainHash: compared.mainHash }),
          422,
          'UNPROCESSABLE_CONTENT',
        )
      })

      it('keeps an incomplete draft; its promote reports what is missing and writes nothing', async () => {
        const id = await draft('teams', null)
        await save(id, { players: [{ name: 'Uma' }] })
        const [error] = await refused(() => promote(id), 400, 'FAILED_VALIDATION')
        expect(error!.extensions).toMatchObject({ field: 'name' })
        expect((await request(app).get(`/api/versions/${id}`)).body.data.item).toBeNull()
        expectErrors(await request(app).post(`/api/versions/${id}/save`).send({ name: 5 }), 400, 'FAILED_VALIDATION')
      })

      it('a key is unique among the drafts of new items of a collection, which a list finds with _empty', async () => {
        const id = await draft('teams', null)
        await draft('teams', 1)
        const listed = await request(app).get('/api/versions?filter[collection][_eq]=teams&filter[item][_empty]=true&fields=id,item')
        expect(listed.body.data).toEqual([{ id, item: null }])
        expectErrors(
          await request(app).post('/api/versions').send({ key: 'draft', collection: 'teams', item: null }),
          422,
          'UNPROCESSABLE_CONTENT',
        )
      })

      it("a singleton's draft before its row exists is read at its path, and its promote creates the row", async () => {
        const id = await draft('league', null)
        await save(id, { name: 'Cup', champion: { name: 'Dream Team', players: [{ name: 'Star' }] } })
        const read = await request(app).get('/api/items/league?version=draft&fields=name,champion.name,champion.players.name')
        expect(read.body.data).toEqual({
          name: 'Cup',
          champion: { name: 'Dream Team', players: [{ name: 'Star' }] },
          $meta: { version_id: id },
        })
        const promoted = await promote(id)
        expect(promoted.status).toBe(200)
        const league = await request(app).get('/api/items/league?fields=id,name,champion.name,champion.players.name')
        expect(league.body.data).toEqual({
          id: promoted.body.data,
          name: 'Cup',
          champion: { name: 'Dream Team', players: [{ name: 'Star' }] },
        })
      })
    })
  })
})
