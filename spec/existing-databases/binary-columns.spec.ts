// Binary columns (MySQL BLOB/VARBINARY, PostgreSQL bytea, SQLite BLOB) read by readCollections as `binary`
// fields: base64 text in and out, left out of `*`, bounded by the column and `maxBinaryBytes`, checked against
// the bytes plain SQL reads.
import express, { type Express } from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createItemsRouter, readCollections, type ItemsRouterOptions } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectErrors, expectInvalidQuery } from '../support/expect-error'

type Row = Record<string, unknown>

const DDL: Record<string, string> = {
  sqlite: 'create table xb_files (id integer primary key autoincrement, name varchar(40) not null, body blob, digest blob)',
  postgres: 'create table xb_files (id serial primary key, name varchar(40) not null, body bytea, digest bytea)',
  mysql: 'create table xb_files (id int auto_increment primary key, name varchar(40) not null, body blob, digest varbinary(4))',
}

/** Bytes no text encoding keeps: NUL, 0xFF, an invalid UTF-8 sequence. */
const ODD = Buffer.from([0x00, 0xff, 0xc3, 0x28, 0x10])

forEachDialect((ctx) => {
  describe(`${ctx.name}: binary columns`, () => {
    let app: Express

    const serve = async (options: Partial<ItemsRouterOptions> = {}): Promise<Express> => {
      const collections = await readCollections(ctx.knex, { include: ['xb_files'] })
      const served = express()
      served.use('/api', createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger(), defaultAccess: true, ...options }))
      return served
    }

    beforeAll(async () => {
      await ctx.knex.schema.dropTableIfExists('xb_files')
      await ctx.knex.raw(DDL[ctx.name]!)
      await ctx.knex('xb_files').insert([
        { name: 'odd', body: ODD, digest: Buffer.from([1, 2, 3, 4]) },
        { name: 'empty', body: Buffer.alloc(0), digest: null },
        { name: 'none', body: null, digest: null },
      ])
      app = await serve()
    })
    afterAll(() => ctx.knex.schema.dropTableIfExists('xb_files'))

    /** The bytes plain SQL reads, as base64. */
    const stored = async (name: string): Promise<Row> => {
      const row = (await ctx.knex('xb_files').where({ name }).first('body', 'digest')) as { body: Buffer | null; digest: Buffer | null }
      return {
        body: row.body === null ? null : Buffer.from(row.body).toString('base64'),
        digest: row.digest && Buffer.from(row.digest).toString('base64'),
      }
    }
    const names = async (filter: Row): Promise<string[]> => {
      const response = await request(app).get('/api/items/xb_files').query({ fields: 'name', sort: 'id', filter })
      expect(response.status).toBe(200)
      return (response.body.data as Row[]).map((row) => String(row.name))
    }

    it('reads the columns as binary fields; a VARBINARY keeps its length as a bound in bytes', async () => {
      const collections = await readCollections(ctx.knex, { include: ['xb_files'] })
      expect(collections.xb_files!.fields.body).toMatchObject({ type: 'binary' })
      expect(collections.xb_files!.fields.digest).toMatchObject(
        ctx.name === 'mysql' ? { type: 'binary', maxLength: 4 } : { type: 'binary' },
      )
    })

    it('answers base64 of the stored bytes when asked by name, and leaves them out of *', async () => {
      const named = await request(app).get('/api/items/xb_files').query({ fields: 'name,body,digest', sort: 'id' })
      expect(named.status).toBe(200)
      expect(named.body.data).toEqual([
        { name: 'odd', body: 'AP/DKBA=', digest: 'AQIDBA==' },
        { name: 'empty', body: '', digest: null },
        { name: 'none', body: null, digest: null },
      ])
      expect((named.body.data as Row[])[0]).toEqual({ name: 'odd', ...(await stored('odd')) })
      const all = await request(app).get('/api/items/xb_files').query({ sort: 'id', limit: 1 })
      expect(all.body.data).toEqual([{ id: 1, name: 'odd' }])
      const one = await request(app).get('/api/items/xb_files/1').query({ fields: '*,body' })
      expect(one.body.data).toEqual({ id: 1, name: 'odd', body: 'AP/DKBA=' })
    })

    it('writes base64 as the bytes it stands for, and answers them back', async () => {
      const created = await request(app)
        .post('/api/items/xb_files')
        .query({ fields: 'id,body,digest' })
        .send({ name: 'new', body: '/wAB', digest: 'q80=' })
      expect(created.status).toBe(200)
      expect(created.body.data).toMatchObject({ body: '/wAB', digest: 'q80=' })
      expect(await stored('new')).toEqual({ body: '/wAB', digest: 'q80=' })
      const patched = await request(app)
        .patch(`/api/items/xb_files/${String(created.body.data.id)}`)
        .query({ fields: 'body' })
        .send({ body: '' })
      expect(patched.body.data).toEqual({ body: '' })
      expect(await stored('new')).toEqual({ body: '', digest: 'q80=' })
      await ctx.knex('xb_files').where({ name: 'new' }).delete()
    })

    it.each([
      ['not base64', 'not base64!'],
      ['unpadded', 'AQI'],
      ['URL-safe letters', '-_8='],
      ['a number', 12],
    ])('refuses %s with 400 before SQL', async (_label, body) => {
      const counted = await ctx.countQueries(async () => request(app).post('/api/items/xb_files').send({ name: 'bad', body }))
      const [error] = expectErrors(counted.result, 400, 'FAILED_VALIDATION')
      expect(error!.extensions).toMatchObject({ field: 'body' })
      expect(counted.count).toBe(0)
    })

    it('refuses more bytes than maxBinaryBytes, and on MySQL than the column holds', async () => {
      const small = await serve({ maxBinaryBytes: 4 })
      const five = Buffer.alloc(5).toString('base64')
      const counted = await ctx.countQueries(async () => request(small).post('/api/items/xb_files').send({ name: 'big', body: five }))
      const [error] = expectErrors(counted.result, 400, 'FAILED_VALIDATION')
      expect(error!.message).toContain('maxBinaryBytes')
      expect(counted.count).toBe(0)
      expect((await request(small).post('/api/items/xb_files').send({ name: 'fits', body: 'AAAAAA==' })).status).toBe(200)
      const digest = await request(app).post('/api/items/xb_files').send({ name: 'long digest', digest: five })
      if (ctx.name === 'mysql') expect(expectErrors(digest, 400, 'FAILED_VALIDATION')[0]!.message).toContain("column's 4")
      else expect(digest.status).toBe(200)
      await ctx.knex('xb_files').whereIn('name', ['fits', 'long digest']).delete()
    })

    it('_null and _nnull match plain SQL; comparisons, sort and groupBy are 400 before SQL', async () => {
      const plain = async (where: (qb: Knex.QueryBuilder) => void): Promise<string[]> =>
        (await ctx.knex('xb_files').select('name').modify(where).orderBy('id')).map((row: Row) => String(row.name))
      expect(await names({ body: { _null: true } })).toEqual(await plain((qb) => qb.whereNull('body')))
      expect(await names({ body: { _nnull: true } })).toEqual(await plain((qb) => qb.whereNotNull('body')))
      expect(await names({ body: { _nnull: true } })).toEqual(['odd', 'empty'])
      for (const query of [
        { filter: { body: { _eq: 'AA==' } } },
        { filter: { body: { _contains: 'AA==' } } },
        { sort: 'body' },
        { groupBy: 'body' },
      ]) {
        const counted = await ctx.countQueries(async () => request(app).get('/api/items/xb_files').query(query))
        expectInvalidQuery(counted.result, counted.count, ['body'])
      }
    })

    it('exports base64 in CSV', async () => {
      const csv = await request(app).get('/api/items/xb_files').query({ fields: 'name,body', sort: 'id', export: 'csv' }).buffer(true)
      expect(csv.status).toBe(200)
      expect(csv.text.trim().split(/\r?\n/)).toEqual(['name,body', 'odd,AP/DKBA=', 'empty,', 'none,'])
    })
  })
})
