// Every refusal of an existing database is a 4xx naming the field or constraint, on each database; restricted
// deletes are refused by the router too (SQLite without PRAGMA foreign_keys), and generated columns before SQL.
import express, { type Express } from 'express'
import request from 'supertest'
import { createItemsRouter, type CollectionDefinition, type ErrorCode } from '../../lib'
import type { DialectName } from '../../lib/dialects'
import { recordingLogger } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError, expectErrors, expectInvalidQuery } from '../support/expect-error'

/** Each database's own DDL: a CHECK, NOT NULL, bounded text and integer, an enum, a generated column, foreign keys. */
const DDL: Readonly<Record<DialectName, readonly string[]>> = {
  sqlite: [
    'create table xd_parents (id integer primary key, name text, boss integer references xd_parents(id))',
    // STRICT: SQLite then refuses text in an INTEGER column, as the others refuse text of the wrong type.
    `create table xd_products (id integer primary key autoincrement, code text, qty integer, name text not null,
      price real constraint xd_price_positive check (price > 0), mood text check (mood in ('happy', 'sad')),
      ref integer, total integer generated always as (qty * 2) stored,
      parent integer references xd_parents(id)) strict`,
  ],
  postgres: [
    'create table xd_parents (id integer primary key, name text, boss integer references xd_parents(id))',
    // Declared out of text order: PostgreSQL and MySQL sort an enum by declaration, the API by text.
    "create type xd_mood as enum ('sad', 'happy')",
    `create table xd_products (id integer generated always as identity primary key, code varchar(5), qty smallint,
      name text not null, price numeric(6, 2) constraint xd_price_positive check (price > 0), mood xd_mood, ref uuid,
      total integer generated always as (qty * 2) stored, parent integer references xd_parents(id))`,
  ],
  mysql: [
    'create table xd_parents (id int primary key, name text, boss int, foreign key (boss) references xd_parents(id))',
    `create table xd_products (id int auto_increment primary key, code varchar(5), qty smallint, name text not null,
      price decimal(6, 2), mood enum('sad', 'happy'), ref date, total int as (qty * 2) stored, parent int,
      constraint xd_price_positive check (price > 0), foreign key (parent) references xd_parents(id))`,
  ],
}
const DROP: Readonly<Record<DialectName, readonly string[]>> = {
  sqlite: ['drop table if exists xd_products', 'drop table if exists xd_parents'],
  postgres: ['drop table if exists xd_products', 'drop table if exists xd_parents', 'drop type if exists xd_mood'],
  mysql: ['drop table if exists xd_products', 'drop table if exists xd_parents'],
}

/** The collections as a hand-written configuration that does not know the database's rules. */
function collections(known: boolean): Record<string, CollectionDefinition> {
  return {
    parents: {
      table: 'xd_parents',
      fields: {
        id: { type: 'integer', primaryKey: true },
        name: { type: 'text' },
        boss: { type: 'integer', references: 'parents', ...(known ? { onDelete: 'noAction' as const } : {}) },
      },
    },
    products: {
      table: 'xd_products',
      fields: {
        id: { type: 'integer', primaryKey: true, autoIncrement: true },
        code: { type: 'string', ...(known ? { maxLength: 5 } : {}) },
        qty: { type: 'integer' },
        name: { type: 'text', ...(known ? { nullable: false } : {}) },
        price: { type: 'decimal', scale: 2 },
        mood: { type: 'string', ...(known ? { enum: ['happy', 'sad'] } : {}) },
        ref: { type: 'string' },
        total: { type: 'integer', ...(known ? { generated: true } : {}) },
        parent: { type: 'integer', references: 'parents', ...(known ? { onDelete: 'restrict' as const } : {}) },
      },
    },
  }
}

/** What each database's own refusal of a text of the wrong type looks like. */
const WRONG_TEXT: Readonly<Record<DialectName, string>> = { sqlite: 'abc', postgres: 'not-a-uuid', mysql: 'not-a-date' }

forEachDialect((ctx: DialectContext) => {
  describe('refusals of an existing database', () => {
    let unknowing: Express
    let knowing: Express
    const app = (known: boolean): Express => {
      const host = express()
      host.use(
        '/api',
        createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections: collections(known), logger: recordingLogger() }),
      )
      return host
    }

    beforeAll(async () => {
      for (const sql of [...DROP[ctx.name], ...DDL[ctx.name]]) await ctx.knex.raw(sql)
      unknowing = app(false)
      knowing = app(true)
    })
    beforeEach(async () => {
      await ctx.knex('xd_products').delete()
      await ctx.knex('xd_parents').update({ boss: null })
      await ctx.knex('xd_parents').delete()
      await ctx.knex('xd_parents').insert([
        { id: 1, name: 'boss', boss: null },
        { id: 2, name: 'employee', boss: 1 },
        { id: 3, name: 'alone', boss: null },
      ])
      await ctx.knex('xd_products').insert({ name: 'kept', qty: 1, price: 1, parent: 3 })
    })
    afterAll(async () => {
      for (const sql of DROP[ctx.name]) await ctx.knex.raw(sql)
    })

    const rows = async (table: string): Promise<number> => Number((await ctx.knex(table).count({ n: '*' }))[0]!.n)
    const create = (target: Express, body: Record<string, unknown>) =>
      request(target)
        .post('/api/items/products')
        .send({ name: 'n', qty: 1, price: 1, ...body })

    it('a CHECK constraint is 400 CONSTRAINT_VIOLATION naming it', async () => {
      const error = expectError(await create(unknowing, { price: -5 }), 400, 'CONSTRAINT_VIOLATION')
      expect(error.extensions).toEqual({ code: 'CONSTRAINT_VIOLATION', collection: 'products', constraint: 'xd_price_positive' })
      expect(error.message).toContain('xd_price_positive')
      expect(await rows('xd_products')).toBe(1)
    })

    it('NOT NULL is 400 NOT_NULL_VIOLATION naming the field, or refused before SQL when configured', async () => {
      const error = expectError(await create(unknowing, { name: null }), 400, 'NOT_NULL_VIOLATION')
      expect(error.extensions.field).toBe('name')
      const counted = await ctx.countQueries(async () => create(knowing, { name: null }))
      expect(expectError(counted.result, 400, 'FAILED_VALIDATION').extensions.field).toBe('name')
      expect(counted.count).toBe(0)
    })

    it('a value too long, or out of range, is 400 naming the field where the column enforces it', async () => {
      if (ctx.name === 'sqlite') {
        // SQLite keeps any length and any integer: only a configured maxLength (below) refuses.
        expect((await create(unknowing, { code: 'toolong', qty: 70_000 })).status).toBe(200)
        expect(await ctx.knex('xd_products').where({ code: 'toolong' }).first('qty')).toEqual({ qty: 70_000 })
        return
      }
      const long = expectError(await create(unknowing, { code: 'toolong' }), 400, 'VALUE_TOO_LONG')
      expect(long.extensions.field === undefined || long.extensions.field === 'code').toBe(true)
      expectError(await create(unknowing, { qty: 70_000 }), 400, 'VALUE_OUT_OF_RANGE')
      expect(await rows('xd_products')).toBe(1)
    })

    it('a configured maxLength refuses before SQL on every database', async () => {
      const counted = await ctx.countQueries(async () => create(knowing, { code: 'toolong' }))
      expect(expectError(counted.result, 400, 'FAILED_VALIDATION').extensions).toMatchObject({ field: 'code', type: 'maxLength' })
      expect(counted.count).toBe(0)
    })

    it('a value outside the enum: the database refuses it with a 400; a configured enum before SQL', async () => {
      const expected: Readonly<Record<DialectName, ErrorCode>> = {
        sqlite: 'CONSTRAINT_VIOLATION',
        postgres: 'INVALID_PAYLOAD',
        mysql: 'INVALID_PAYLOAD',
      }
      expectError(await create(unknowing, { mood: 'angry' }), 400, expected[ctx.name])
      const counted = await ctx.countQueries(async () => create(knowing, { mood: 'angry' }))
      const error = expectError(counted.result, 400, 'FAILED_VALIDATION')
      expect(error).toMatchObject({ message: 'Field "mood" must be one of "happy", "sad".', extensions: { field: 'mood', type: 'enum' } })
      expect(counted.count).toBe(0)
      expect((await create(knowing, { mood: 'sad' })).status).toBe(200)
      expect((await create(knowing, { mood: 'happy' })).status).toBe(200)
      const sorted = await request(knowing)
        .get('/api/items/products')
        .query({ fields: 'mood', sort: '-mood', filter: { mood: { _in: ['happy', 'sad'] } } })
      expect(sorted.body.data).toEqual([{ mood: 'sad' }, { mood: 'happy' }])
      const grouped = await request(knowing)
        .get('/api/items/products')
        .query({ aggregate: { count: '*' }, groupBy: 'mood', sort: 'mood', filter: { mood: { _nnull: true } } })
      expect(grouped.body.data).toEqual([
        { mood: 'happy', count: 1 },
        { mood: 'sad', count: 1 },
      ])
      const pattern = await ctx.countQueries(async () =>
        request(knowing)
          .get('/api/items/products')
          .query({ filter: { mood: { _contains: 'a' } } }),
      )
      expectInvalidQuery(pattern.result, pattern.count, ['_contains', 'mood', '_in'])
      const filtered = await ctx.countQueries(async () =>
        request(knowing)
          .get('/api/items/products')
          .query({ filter: { mood: { _eq: 'angry' } } }),
      )
      expect(filtered.result.status).toBe(400)
      expect(filtered.count).toBe(0)
    })

    it('text the column type cannot read is 400 INVALID_PAYLOAD', async () => {
      const error = expectError(await create(unknowing, { ref: WRONG_TEXT[ctx.name] }), 400, 'INVALID_PAYLOAD')
      if (ctx.name !== 'postgres') expect(error.extensions.field).toBe('ref')
      expect(await rows('xd_products')).toBe(1)
    })

    it('a write to a generated column is 400, and before SQL when the field is generated', async () => {
      const error = expectError(await create(unknowing, { total: 5 }), 400, 'INVALID_PAYLOAD')
      expect(error.extensions.field).toBe('total')
      const counted = await ctx.countQueries(async () => create(knowing, { total: 5 }))
      expect(expectError(counted.result, 400, 'FAILED_VALIDATION')).toMatchObject({
        message: 'Field "total" is read-only.',
        extensions: { field: 'total', type: 'readonly' },
      })
      expect(counted.count).toBe(0)
      const made = await create(knowing, { qty: 4 })
      expect(made.body.data.total).toBe(8)
    })

    if (ctx.name === 'postgres') {
      it('an explicit value for an identity GENERATED ALWAYS key is 400 naming it', async () => {
        const error = expectError(await create(unknowing, { id: 99 }), 400, 'INVALID_PAYLOAD')
        expect(error.extensions.field).toBe('id')
      })
    }

    it('a foreign key to nothing is 400 INVALID_FOREIGN_KEY on create and update', async () => {
      expect(expectError(await create(unknowing, { parent: 99 }), 400, 'INVALID_FOREIGN_KEY').extensions.field).toBe('parent')
      const [kept] = await ctx.knex('xd_products').select('id')
      const updated = await request(unknowing).patch(`/api/items/products/${kept!.id}`).send({ parent: 99 })
      expect(expectError(updated, 400, 'INVALID_FOREIGN_KEY').extensions.field).toBe('parent')
      expect(await ctx.knex('xd_products').where({ id: kept!.id }).first('parent')).toEqual({ parent: 3 })
    })

    it.each([false, true])('deleting a referenced item is 400 and deletes nothing (onDelete known: %s)', async (known) => {
      const target = known ? knowing : unknowing
      const referenced = expectError(await request(target).delete('/api/items/parents/3'), 400, 'INVALID_FOREIGN_KEY')
      expect(referenced.extensions).toEqual({ code: 'INVALID_FOREIGN_KEY', collection: 'parents' })
      const batch = await request(target).delete('/api/items/parents').send([2, 3])
      expectError(batch, 400, 'INVALID_FOREIGN_KEY')
      expect(await rows('xd_parents')).toBe(3)
      // A subtree deleted at once leaves nothing pointing at a missing row; InnoDB checks each row as it goes,
      // so MySQL refuses it unless the rows come in order (README, "Existing databases").
      const subtree = await request(target).delete('/api/items/parents').send([1, 2])
      expect(subtree.status).toBe(ctx.name === 'mysql' ? 400 : 204)
      expect(await rows('xd_parents')).toBe(ctx.name === 'mysql' ? 3 : 1)
    })

    if (ctx.name === 'sqlite') {
      describe('without PRAGMA foreign_keys', () => {
        beforeEach(() => ctx.knex.raw('PRAGMA foreign_keys = OFF'))
        afterEach(() => ctx.knex.raw('PRAGMA foreign_keys = ON'))

        it('the router still refuses a restricted delete, in a bounded number of statements', async () => {
          const counted = await ctx.countQueries(async () => request(knowing).delete('/api/items/parents').send([1, 3]))
          expectErrors(counted.result, 400, 'INVALID_FOREIGN_KEY')
          expect(await rows('xd_parents')).toBe(3)
          // BEGIN, lock/check of the keys, one check per restricting field, ROLLBACK.
          expect(counted.count).toBeLessThanOrEqual(5)
          // Unknown to the router, the delete goes through: the database does not enforce the key either.
          expect((await request(unknowing).delete('/api/items/parents/3')).status).toBe(204)
        })
      })
    }
  })
})
