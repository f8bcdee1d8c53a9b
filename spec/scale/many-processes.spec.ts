// Several routers over one database, each with its own knex instance and pool as separate processes would
// have: nothing one keeps in memory changes what another answers (ETags, idempotency keys, content versions),
// and creating the router's own tables on first use survives all of them starting at once.
import { randomUUID } from 'node:crypto'
import type { Express } from 'express'
import knexFactory, { type Knex } from 'knex'
import request from 'supertest'
import { createApp } from '../support/app'
import { knexConfig } from '../support/databases'
import { forEachDialect } from '../support/dialects'

const PROCESSES = 4
const TABLES = { versionsTable: 'scale_versions', idempotencyTable: 'scale_idempotency' }

forEachDialect((ctx) => {
  let instances: Knex[]
  let apps: Express[]
  /** A different "process" for each step of a client's conversation. */
  const on = (index: number): Express => apps[index % PROCESSES]!

  const dropTables = async (): Promise<void> => {
    for (const table of Object.values(TABLES)) await ctx.knex.schema.dropTableIfExists(table)
  }

  beforeAll(async () => {
    await dropTables()
    // SQLite's in-memory database has one connection; its "processes" share it.
    instances = Array.from({ length: PROCESSES }, () =>
      ctx.name === 'sqlite' ? ctx.knex.withUserParams({}) : knexFactory(knexConfig(ctx.name)),
    )
    apps = instances.map((knex) => createApp(knex, { ...TABLES, createVersionsTable: true, createIdempotencyTable: true }))
  })
  afterAll(async () => {
    if (ctx.name !== 'sqlite') await Promise.all(instances.map((knex) => knex.destroy()))
  })
  beforeEach(() => ctx.reset())

  it('creates its own tables once when every process starts on the same request', async () => {
    const answers = await Promise.all(
      apps.flatMap((app) => [
        request(app).get('/api/versions'),
        request(app).post('/api/items/authors').set('Idempotency-Key', randomUUID()).send({ name: 'First' }),
      ]),
    )
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200))
  })

  it('answers one client the same whichever process serves each request', async () => {
    const read = await request(on(0)).get('/api/items/articles/1')
    const etag = read.headers.etag as string
    expect((await request(on(1)).get('/api/items/articles/1').set('If-None-Match', etag)).status).toBe(304)

    const key = randomUUID()
    const created = await request(on(2)).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Once' })
    const replayed = await request(on(3)).post('/api/items/authors').set('Idempotency-Key', key).send({ name: 'Once' })
    expect(replayed.headers['idempotent-replayed']).toBe('true')
    expect(replayed.body).toEqual(created.body)
    expect(Number(((await ctx.knex('authors').where({ name: 'Once' }).count({ n: '*' })) as { n: unknown }[])[0]!.n)).toBe(1)

    const version = await request(on(0)).post('/api/versions').send({ key: 'draft', collection: 'articles', item: 1 })
    const id = version.body.data.id as number
    expect((await request(on(1)).post(`/api/versions/${id}/save`).send({ title: 'Draft title' })).status).toBe(200)
    const compared = await request(on(2)).get(`/api/versions/${id}/compare`)
    expect(compared.body.data.current).toEqual({ title: 'Draft title' })
    expect((await request(on(3)).post(`/api/versions/${id}/promote`).send({ mainHash: compared.body.data.mainHash })).status).toBe(200)
    const promoted = await request(on(0)).get('/api/items/articles/1?fields=title')
    expect(promoted.body.data).toEqual({ title: 'Draft title' })
    expect(promoted.headers.etag).not.toBe(etag)
  })
})
