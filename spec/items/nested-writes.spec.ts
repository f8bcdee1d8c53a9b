// Nested relational writes: many-to-one objects, one-to-many arrays (basic form) and { create, update, delete }
// (detailed form), many-to-many through a junction, a singleton; all or nothing (every refusal reads the tables
// after), errors at their path, access rules and hooks per nested row, and statements that do not grow with rows.
import type { Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { ConfigError, createItemsRouter, type CollectionDefinition, type ItemsEvent } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors, type expectError } from '../support/expect-error'
import { collections, createTables, dropTables, seed, snapshot, T } from '../support/nested-fixtures'

const ids = (rows: unknown[]): number[] => (rows as { id: number }[]).map((row) => Number(row.id))

forEachDialect((ctx) => {
  describe(`${ctx.name}: nested writes`, () => {
    let app: Express
    beforeAll(async () => {
      await createTables(ctx.knex)
      app = createApp(ctx.knex, { collections })
    })
    beforeEach(() => seed(ctx.knex))
    afterAll(() => dropTables(ctx.knex))

    const players = async (where: Record<string, unknown> = {}): Promise<{ id: number; name: string; team: number | null }[]> =>
      (
        (await ctx.knex(T.players).select('id', 'name', 'team').where(where).orderBy('id')) as {
          id: number
          name: string
          team: number | null
        }[]
      ).map((row) => ({ id: Number(row.id), name: row.name, team: row.team === null ? null : Number(row.team) }))

    /** Sends a write that must be refused, and checks that every table is as it was. */
    async function refused(send: () => request.Test, status: number, code: Parameters<typeof expectError>[2]) {
      const before = await snapshot(ctx.knex)
      const errors = expectErrors(await send(), status, code)
      expect(await snapshot(ctx.knex)).toEqual(before)
      return errors
    }

    describe('many-to-one', () => {
      it('an object without a key creates the related item and links it', async () => {
        const response = await request(app)
          .post('/api/items/players?fields=id,name,team.name')
          .send({ name: 'Eve', team: { name: 'Orange' } })
        expect(response.status).toBe(200)
        expect(response.body.data).toMatchObject({ name: 'Eve', team: { name: 'Orange' } })
        const [team] = await ctx.knex(T.teams).where({ name: 'Orange' })
        expect(await players({ name: 'Eve' })).toEqual([{ id: expect.any(Number), name: 'Eve', team: Number((team as { id: number }).id) }])
      })

      it('an object with a key and fields updates that item and links it; a key alone links it', async () => {
        const updated = await request(app)
          .patch('/api/items/players/4?fields=id,team.id,team.name')
          .send({ team: { id: 2, name: 'Blue!' } })
        expect(updated.body).toEqual({ data: { id: 4, team: { id: 2, name: 'Blue!' } } })
        const linked = await request(app)
          .patch('/api/items/players/3?fields=id,team')
          .send({ team: { id: 1 } })
        expect(linked.body).toEqual({ data: { id: 3, team: 1 } })
      })

      it('the related item may carry its own nested values', async () => {
        const response = await request(app)
          .post('/api/items/tasks?fields=title,team.name,team.players.name')
          .send({ title: 'Paint lines', team: { name: 'Green', players: [{ name: 'Gus' }, 4] } })
        expect(response.body).toEqual({
          data: { title: 'Paint lines', team: { name: 'Green', players: [{ name: 'Dee' }, { name: 'Gus' }] } },
        })
      })

      it('a key that names no item is a 404 naming the key and its path; nothing is written', async () => {
        const [error] = await refused(
          () =>
            request(app)
              .patch('/api/items/players/1')
              .send({ name: 'Ann!', team: { id: 999, name: 'Ghost' } }),
          404,
          'NOT_FOUND',
        )
        expect(error!.extensions).toMatchObject({ collection: 'teams', keys: [999], path: ['team'] })
        expect(error!.message).toMatch(/^At team: /)
      })

      it('an array is a type error on the field, and a child is validated like a top-level item', async () => {
        await refused(
          () =>
            request(app)
              .post('/api/items/players')
              .send({ name: 'Eve', team: [1, 2] }),
          400,
          'FAILED_VALIDATION',
        )
        const errors = await refused(
          () =>
            request(app)
              .post('/api/items/players')
              .send({ name: 'Eve', team: { nosuch: 1 } }),
          400,
          'FAILED_VALIDATION',
        )
        expect(errors.map((error) => [error.extensions.path, error.extensions.field]).sort()).toEqual([
          [['team'], 'name'],
          [['team'], 'nosuch'],
        ])
      })
    })

    describe('one-to-many, basic form', () => {
      it('creates the children of a new item', async () => {
        const response = await request(app)
          .post('/api/items/teams?fields=id,name,players.name,players.number')
          .send({ name: 'Gold', players: [{ name: 'Uma', number: 1 }, { name: 'Vic' }, 4] })
        expect(response.status).toBe(200)
        expect(response.body.data).toEqual({
          id: expect.any(Number),
          name: 'Gold',
          players: [
            { name: 'Dee', number: null },
            { name: 'Uma', number: 1 },
            { name: 'Vic', number: null },
          ],
        })
      })

      it('the array is the new set: keys attach, objects with a key update and attach, the rest is detached as configured', async () => {
        const response = await request(app)
          .patch('/api/items/teams/1?fields=id,players,tasks')
          .send({ players: [2, { id: 3, name: 'Cid!' }, { name: 'New' }], tasks: [{ title: 'Fresh task' }] })
        expect(response.status).toBe(200)
        const data = response.body.data as { players: number[]; tasks: number[] }
        expect(data.players.slice(0, 2)).toEqual([2, 3])
        expect(data.players).toHaveLength(3)
        expect(data.tasks).toHaveLength(1)
        // Players (nullable team) are let go; tasks (team NOT NULL) are deleted.
        expect(await players({ id: 1 })).toEqual([{ id: 1, name: 'Ann', team: null }])
        expect(await players({ id: 3 })).toEqual([{ id: 3, name: 'Cid!', team: 1 }])
        expect(ids(await ctx.knex(T.tasks).select('id').orderBy('id'))).toEqual([3, data.tasks[0]!])
      })

      it('null and [] detach every child', async () => {
        expect((await request(app).patch('/api/items/teams/1').send({ players: null, tasks: [] })).status).toBe(200)
        expect(await players({ team: 1 })).toEqual([])
        expect(await ctx.knex(T.tasks).where({ team: 1 })).toEqual([])
      })

      it('a child key that names no item is a 404 at its index; nothing is written', async () => {
        const [error] = await refused(
          () =>
            request(app)
              .patch('/api/items/teams/1')
              .send({ name: 'Red!', players: [1, 999] }),
          404,
          'NOT_FOUND',
        )
        expect(error!.extensions).toMatchObject({ collection: 'players', keys: [999], path: ['players', 1] })
      })

      it('children are validated like top-level items, each error at its path, and nothing is written', async () => {
        const errors = await refused(
          () =>
            request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [{ name: 'Ok' }, {}, { name: 5, nosuch: 1 }] }),
          400,
          'FAILED_VALIDATION',
        )
        expect(errors.map((error) => [error.extensions.path, error.extensions.field]).sort()).toEqual([
          [['players', 1], 'name'],
          [['players', 2], 'name'],
          [['players', 2], 'nosuch'],
        ])
      })

      it('refuses elements of the wrong shape, a child naming its foreign key, and a hidden field', async () => {
        const shape = await refused(
          () =>
            request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [true] }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(shape[0]!.extensions).toMatchObject({ path: ['players', 0] })
        const fk = await refused(
          () =>
            request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [{ name: 'X', team: 2 }] }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(fk[0]!.extensions).toMatchObject({ path: ['players', 0, 'team'] })
        await refused(() => request(app).post('/api/items/teams').send({ name: 'Gold', players: 'abc' }), 400, 'INVALID_PAYLOAD')
      })

      it('a database refusal anywhere rolls back every level', async () => {
        const [error] = await refused(
          () =>
            request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [{ name: 'Uma', skills: [{ skill: { name: 'speed' } }] }] }),
          400,
          'RECORD_NOT_UNIQUE',
        )
        expect(error!.extensions.path).toEqual(['players', 0, 'skills', 0, 'skill'])
      })
    })

    describe('one-to-many, detailed form', () => {
      it('creates, updates (re-parenting) and detaches, any subset', async () => {
        const response = await request(app)
          .patch('/api/items/teams/1?fields=players')
          .send({ players: { create: [{ name: 'New' }], update: [{ id: 4, number: 10 }], delete: [2] } })
        expect(response.status).toBe(200)
        expect(await players({ team: 1 })).toEqual([
          { id: 1, name: 'Ann', team: 1 },
          { id: 4, name: 'Dee', team: 1 },
          { id: expect.any(Number), name: 'New', team: 1 },
        ])
        expect(await players({ id: 2 })).toEqual([{ id: 2, name: 'Bob', team: null }])
        expect((await request(app).patch('/api/items/teams/1').send({ players: {} })).status).toBe(200)
      })

      it("delete only touches this item's children: another's is a 404 at its path", async () => {
        const [error] = await refused(
          () =>
            request(app)
              .patch('/api/items/teams/1')
              .send({ tasks: { delete: [3] } }),
          404,
          'NOT_FOUND',
        )
        expect(error!.extensions).toMatchObject({ path: ['tasks', 'delete', 0], keys: [3] })
      })

      it('an update that names no item is a 404; one without a key, or another key, is a 400', async () => {
        const [missing] = await refused(
          () =>
            request(app)
              .patch('/api/items/teams/1')
              .send({ players: { update: [{ id: 998, name: 'X' }] } }),
          404,
          'NOT_FOUND',
        )
        expect(missing!.extensions.path).toEqual(['players', 'update', 0])
        const [keyless] = await refused(
          () =>
            request(app)
              .patch('/api/items/teams/1')
              .send({ players: { update: [{}] } }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(keyless!.extensions.path).toEqual(['players', 'update', 0])
        const [bogus] = await refused(
          () =>
            request(app)
              .patch('/api/items/teams/1')
              .send({ players: { bogus: [] } }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(bogus!.extensions.path).toEqual(['players', 'bogus'])
        await refused(
          () =>
            request(app)
              .patch('/api/items/teams/1')
              .send({ players: { create: 'x' } }),
          400,
          'INVALID_PAYLOAD',
        )
      })
    })

    describe('many-to-many through a junction', () => {
      it('creates related items and junction rows; deselected junction rows are deleted, the related items stay', async () => {
        const created = await request(app)
          .post('/api/items/players?fields=name,skills.skill.name')
          .send({ name: 'Eve', skills: [{ skill: { name: 'dribbling' } }, { skill: 2 }] })
        expect(created.body).toEqual({ data: { name: 'Eve', skills: [{ skill: { name: 'dribbling' } }, { skill: { name: 'stamina' } }] } })
        const cleared = await request(app).patch('/api/items/players/1?fields=skills').send({ skills: [] })
        expect(cleared.body).toEqual({ data: { skills: [] } })
        expect(await ctx.knex(T.junction).where({ player: 1 })).toEqual([])
        expect(await ctx.knex(T.skills).where({ id: 1 })).toHaveLength(1)
      })
    })

    describe('writes of several items', () => {
      it('PATCH by keys applies the data to each key on its own', async () => {
        const response = await request(app)
          .patch('/api/items/teams?fields=id,players.name')
          .send({ keys: [1, 2], data: { players: [{ name: 'Shared' }] } })
        expect(response.body).toEqual({
          data: [
            { id: 1, players: [{ name: 'Shared' }] },
            { id: 2, players: [{ name: 'Shared' }] },
          ],
        })
        expect(await players({ name: 'Shared' })).toHaveLength(2)
      })

      it("a batch POST and an array PATCH write each item's nested values, errors naming the item", async () => {
        const created = await request(app)
          .post('/api/items/teams?fields=name,players.name')
          .send([
            { name: 'A', players: [{ name: 'A1' }] },
            { name: 'B', players: [{ name: 'B1' }, { name: 'B2' }] },
          ])
        expect(created.body).toEqual({
          data: [
            { name: 'A', players: [{ name: 'A1' }] },
            { name: 'B', players: [{ name: 'B1' }, { name: 'B2' }] },
          ],
        })
        const [error] = await refused(
          () =>
            request(app)
              .patch('/api/items/teams')
              .send([
                { id: 1, players: [1] },
                { id: 2, players: [{}] },
              ]),
          400,
          'FAILED_VALIDATION',
        )
        expect(error!.extensions).toMatchObject({ item: 1, path: ['players', 0], field: 'name' })
      })

      it('PATCH by query and a singleton take nested values', async () => {
        const filter = encodeURIComponent(JSON.stringify({ name: { _eq: 'Blue' } }))
        const byQuery = await request(app)
          .patch(`/api/items/teams?fields=players.name`)
          .send({ query: { filter: JSON.parse(decodeURIComponent(filter)) as unknown }, data: { players: [4] } })
        expect(byQuery.body).toEqual({ data: [{ players: [{ name: 'Dee' }] }] })
        const league = await request(app)
          .patch('/api/items/league?fields=champion.name,champion.players.name')
          .send({ champion: { name: 'Dream Team', players: [{ name: 'Star' }] } })
        expect(league.body).toEqual({ data: { champion: { name: 'Dream Team', players: [{ name: 'Star' }] } } })
        const renamed = await request(app)
          .patch('/api/items/league?fields=champion.name')
          .send({ champion: { id: 1, name: 'Red!' } })
        expect(renamed.body).toEqual({ data: { champion: { name: 'Red!' } } })
      })
    })

    describe('bounds and statements', () => {
      it('the statements do not grow with the number of children: a few more than a hand-written transaction', async () => {
        const players = (count: number) =>
          Array.from({ length: count }, (_, index) => ({ name: `P${index}`, number: index, skills: [{ skill: 1 }, { skill: 2 }] }))
        const create = (count: number) =>
          ctx.countQueries(() =>
            request(app)
              .post('/api/items/teams?fields=id')
              .send({ name: `Team of ${count}`, players: players(count) }),
          )
        const few = await create(3)
        const many = await create(100)
        expect(many.result.status).toBe(200)
        expect(many.count).toBe(few.count)
        const team = (many.result.body as { data: { id: number } }).data.id
        const made = ids(await ctx.knex(T.players).select('id').where({ team }))
        expect(made).toHaveLength(100)
        expect(await ctx.knex(T.junction).whereIn('player', made)).toHaveLength(200)
        // The same writes by hand: BEGIN, one INSERT per table, COMMIT. The router adds the read-back of the
        // answer, the check that the skills exist, and on MySQL, per multi-row INSERT, the question of how the
        // server numbers its keys (see Dialect.insertKeyStep).
        // MySQL's INSERT answers the first key of its rows, which InnoDB numbers consecutively here.
        const insertIds = async (trx: Knex.Transaction, table: string, rows: Record<string, unknown>[]): Promise<number[]> => {
          if (ctx.name === 'mysql') {
            const [first] = (await trx(table).insert(rows)) as number[]
            return rows.map((_, i) => first! + i)
          }
          return ((await trx(table).insert(rows, ['id'])) as { id: number }[]).map((row) => row.id)
        }
        const hand = await ctx.countQueries(() =>
          ctx.knex.transaction(async (trx) => {
            const [teamId] = await insertIds(trx, T.teams, [{ name: 'By hand' }])
            const playerIds = await insertIds(
              trx,
              T.players,
              players(100).map(({ name, number }) => ({ name, number, team: teamId })),
            )
            await trx(T.junction).insert(playerIds.flatMap((player) => [1, 2].map((skill) => ({ player, skill }))))
          }),
        )
        expect(hand.count).toBe(5)
        expect(many.count).toBeLessThanOrEqual(hand.count + 4)
      })

      it('nested rows count toward maxBatchSize', async () => {
        const small = createApp(ctx.knex, { collections, maxBatchSize: 3 })
        await refused(
          () =>
            request(small)
              .post('/api/items/teams')
              .send({ name: 'Big', players: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }),
          400,
          'INVALID_PAYLOAD',
        )
        await refused(
          () =>
            request(small)
              .patch('/api/items/teams/1')
              .send({ players: { delete: [1, 2] }, tasks: [1, 2] }),
          400,
          'INVALID_PAYLOAD',
        )
      })

      it('a nested write crosses at most maxRelationalDepth relations', async () => {
        const shallow = createApp(ctx.knex, { collections, maxRelationalDepth: 1 })
        const [error] = await refused(
          () =>
            request(shallow)
              .post('/api/items/teams')
              .send({ name: 'Deep', players: [{ name: 'P', skills: [{ skill: 1 }] }] }),
          400,
          'INVALID_PAYLOAD',
        )
        expect(error!.extensions.path).toEqual(['players', 0, 'skills'])
      })
    })

    describe('access rules per nested write', () => {
      const restricted = (): Express =>
        createApp(ctx.knex, {
          collections: {
            ...collections,
            teams: { ...collections.teams, access: { read: true, create: true, update: true, delete: false } },
            players: {
              ...collections.players,
              access: {
                read: true,
                create: { fields: ['name', 'team'], presets: { number: 99 } },
                update: { fields: ['name', 'team'] },
                delete: false,
              },
            },
            tasks: { ...collections.tasks, access: { read: true, create: true, update: true, delete: false } },
          },
        })

      it('a caller who may not delete tasks cannot delete them by detaching them', async () => {
        const errors = await refused(
          () => request(restricted()).patch('/api/items/teams/1').send({ name: 'Red!', tasks: [] }),
          403,
          'FORBIDDEN',
        )
        expect(errors[0]!.extensions.path).toEqual(['tasks'])
      })

      it("nested items get the related collection's field list and presets", async () => {
        const app = restricted()
        const [error] = await refused(
          () =>
            request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [{ name: 'Uma', number: 3 }] }),
          400,
          'FAILED_VALIDATION',
        )
        expect(error!.extensions).toMatchObject({ field: 'number', path: ['players', 0] })
        await refused(
          () =>
            request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [{ name: 'Uma', secret: 'x' }] }),
          400,
          'FAILED_VALIDATION',
        )
        expect(
          (
            await request(app)
              .post('/api/items/teams')
              .send({ name: 'Gold', players: [{ name: 'Uma' }] })
          ).status,
        ).toBe(200)
        expect(await ctx.knex(T.players).where({ name: 'Uma' }).first('number')).toEqual({ number: 99 })
      })
    })

    describe('hooks and events', () => {
      it('before hooks see each nested row in the transaction; events follow the commit, in the order written', async () => {
        const seen: string[] = []
        const hooked = createItemsRouter({
          defaultAccess: true,
          knex: ctx.knex,
          collections: {
            ...collections,
            players: {
              ...collections.players,
              hooks: {
                beforeCreate: (item) => {
                  seen.push(`before players ${String(item.name)}`)
                  return { ...item, number: 42 }
                },
              },
            },
          },
          logger: { error: () => undefined, warn: () => undefined },
        })
        const events: string[] = []
        hooked.events.on('items.create', (event: ItemsEvent) => events.push(`${event.collection} ${event.keys.length}`))
        const express = (await import('express')).default
        const host = express().use('/api', hooked)
        const response = await request(host)
          .post('/api/items/teams')
          .send({ name: 'Gold', players: [{ name: 'Uma' }, { name: 'Vic' }] })
        expect(response.status).toBe(200)
        expect(seen).toEqual(['before players Uma', 'before players Vic'])
        expect(events).toEqual(['teams 1', 'players 2'])
        expect((await ctx.knex(T.players).where({ name: 'Uma' }).first('number')) as unknown).toEqual({ number: 42 })
      })
    })
  })
})

describe('onDetach', () => {
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  afterAll(() => knex.destroy())
  const definitions = (onDetach?: string): Record<string, CollectionDefinition> => ({
    teams: {
      fields: {
        id: { type: 'integer', primaryKey: true },
        tasks: { type: 'o2m', collection: 'tasks', foreignKey: 'team', ...(onDetach ? { onDetach } : {}) } as never,
      },
    },
    tasks: { fields: { id: { type: 'integer', primaryKey: true }, team: { type: 'integer', references: 'teams', nullable: false } } },
  })

  it("'nullify' on a NOT NULL foreign key, or another word, is refused when the router is created", () => {
    for (const word of ['nullify', 'drop']) {
      let thrown: unknown
      try {
        createItemsRouter({ knex, collections: definitions(word) })
      } catch (error) {
        thrown = error
      }
      expect(thrown).toBeInstanceOf(ConfigError)
      expect((thrown as ConfigError).code).toBe('CONFIG_BAD_O2M')
    }
  })
})
