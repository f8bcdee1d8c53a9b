// Server-managed fields: the documentation's example, transpiled and mounted as written, over a table made by raw DDL:
// creation/update instants and users written by the router, a readonly field only a hook sets.
import express, { type Express, type Router } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import * as library from '../../lib'
import type { DialectName } from '../../lib/dialects'
import { loadBlockModule } from '../docs/doc-blocks'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError } from '../support/expect-error'

/** The documentation's block as a module whose `express-items-router` is this checkout's lib/. */
function docsExample(): { notesRouter(knex: Knex): Router } {
  return loadBlockModule('server-managed', { 'express-items-router': library })
}

const TIMESTAMP: Readonly<Record<DialectName, string>> = { sqlite: 'text', postgres: 'timestamptz', mysql: 'datetime(3)' }
const KEY: Readonly<Record<DialectName, string>> = {
  sqlite: 'integer primary key autoincrement',
  postgres: 'serial primary key',
  mysql: 'int auto_increment primary key',
}

forEachDialect((ctx: DialectContext) => {
  describe('server-managed fields', () => {
    let app: Express

    beforeAll(async () => {
      await ctx.knex.raw('drop table if exists notes')
      const at = TIMESTAMP[ctx.name]
      await ctx.knex.raw(
        `create table notes (id ${KEY[ctx.name]}, body text, created_at ${at}, created_by integer, ` +
          `updated_at ${at}, updated_by integer, edits integer not null default 0)`,
      )
      app = express()
      app.use('/api', docsExample().notesRouter(ctx.knex))
    })
    afterAll(() => ctx.knex.raw('drop table if exists notes'))

    it('a create gets the instant and the user; an update its own, and the hook sets the readonly field', async () => {
      const before = Date.now()
      const created = await request(app).post('/api/items/notes').set('x-user-id', '7').send({ body: 'hello' })
      expect(created.status).toBe(200)
      const item = created.body.data as Record<string, unknown>
      expect(item).toMatchObject({ body: 'hello', created_by: 7, updated_by: null, edits: 0 })
      const createdAt = Date.parse(item.created_at as string)
      expect(createdAt).toBeGreaterThanOrEqual(before - 1)
      expect(createdAt).toBeLessThanOrEqual(Date.now())
      expect(item.updated_at).toBe(item.created_at)
      const row = await ctx.knex('notes').where({ id: item.id }).first('created_by', 'updated_by', 'edits')
      expect(row).toEqual({ created_by: 7, updated_by: null, edits: 0 })

      await new Promise((resolve) => setTimeout(resolve, 5))
      const updated = await request(app)
        .patch(`/api/items/notes/${String(item.id)}`)
        .set('x-user-id', '9')
        .send({ body: 'edited' })
      expect(updated.status).toBe(200)
      expect(updated.body.data).toMatchObject({ body: 'edited', created_by: 7, created_at: item.created_at, updated_by: 9, edits: 1 })
      expect(Date.parse(updated.body.data.updated_at as string)).toBeGreaterThan(createdAt)
      const again = await request(app)
        .patch(`/api/items/notes/${String(item.id)}`)
        .set('x-user-id', '9')
        .send({ body: 'twice' })
      expect(again.body.data.edits).toBe(2)
    })

    it.each(['created_at', 'created_by', 'updated_at', 'updated_by', 'edits'])('a client may not send %s', async (field) => {
      const counted = await ctx.countQueries(async () =>
        request(app)
          .post('/api/items/notes')
          .set('x-user-id', '7')
          .send({ body: 'x', [field]: field.endsWith('_at') ? '2000-01-01T00:00:00Z' : 1 }),
      )
      expect(expectError(counted.result, 400, 'FAILED_VALIDATION')).toEqual({
        message: `Field "${field}" is read-only.`,
        extensions: { code: 'FAILED_VALIDATION', field, type: 'readonly', collection: 'notes' },
      })
      expect(counted.count).toBe(0)
    })

    it("a rule's preset lies above a declarative value, and the client's own field above a preset", async () => {
      const ruled = express()
      ruled.use(
        '/api',
        library.createItemsRouter({
          knex: ctx.knex,
          collections: {
            notes: {
              fields: {
                id: { type: 'integer', primaryKey: true, autoIncrement: true },
                body: { type: 'text' },
                created_by: { type: 'integer', onCreate: 'user' },
                updated_by: { type: 'integer', onUpdate: 'user' },
              },
              access: { read: true, create: { presets: { created_by: 41, body: 'preset' } }, update: { presets: { updated_by: 42 } } },
            },
          },
          context: () => ({ user: { id: 9 } }),
        }),
      )
      const created = await request(ruled).post('/api/items/notes').send({})
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ body: 'preset', created_by: 41, updated_by: null })
      const sent = await request(ruled).post('/api/items/notes').send({ body: 'mine' })
      expect(sent.body.data).toMatchObject({ body: 'mine', created_by: 41 })
      const updated = await request(ruled)
        .patch(`/api/items/notes/${String(created.body.data.id)}`)
        .send({ body: 'edited' })
      expect(updated.status).toBe(200)
      expect(updated.body.data).toMatchObject({ body: 'edited', created_by: 41, updated_by: 42 })
    })

    it('a batch shares one instant; without a user the user fields are null', async () => {
      const created = await request(app)
        .post('/api/items/notes')
        .send([{ body: 'a' }, { body: 'b' }])
      expect(created.status).toBe(200)
      const [a, b] = created.body.data as Record<string, unknown>[]
      expect(a!.created_at).toBe(b!.created_at)
      expect(a!.created_by).toBeNull()
    })
  })
})

describe('server-managed field options', () => {
  // No statement runs: the options are refused while the router is built.
  const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
  afterAll(() => knex.destroy())
  const router = (fields: Record<string, unknown>) => () =>
    library.createItemsRouter({
      knex,
      collections: { things: { fields: { id: { type: 'integer', primaryKey: true }, ...fields } as never } },
    })

  it.each([
    [{ at: { type: 'string', onCreate: 'now' } }, "'now' needs a date, dateTime, timestamp or time field"],
    [{ by: { type: 'boolean', onUpdate: 'user' } }, "'user' needs a string, integer, bigInteger or uuid field"],
    [{ by: { type: 'integer', onCreate: 'someone' } }, "onCreate must be 'now' or 'user'"],
    [{ total: { type: 'integer', generated: true, onCreate: 'user' } }, 'neither a primary key nor a generated field'],
    [{ tags: { type: 'array', elementType: 'string' } }, 'array fields need PostgreSQL'],
    [{ tags: { type: 'array' } }, 'an array field needs an elementType'],
    [{ at: { type: 'time', storage: 'epochMs' } }, 'storage applies to date, dateTime and timestamp fields'],
    [{ mood: { type: 'integer', enum: ['a'] } }, 'enum applies to string, text and set fields'],
    [{ parent: { type: 'integer', onDelete: 'cascade' } }, 'onDelete applies to fields with references'],
  ])('refuses %j at creation', (fields, message) => {
    expect(router(fields)).toThrow(library.ConfigError)
    expect(router(fields)).toThrow(message)
  })
})
