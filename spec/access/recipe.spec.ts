// The README's multi-tenant recipe, run as written (tables renamed), so the documentation cannot drift from
// what the router does.
import express from 'express'
import type { Knex } from 'knex'
import request from 'supertest'
import { createItemsRouter, type CollectionDefinition } from '../../lib'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'

const ownTenant = { tenant: { _eq: '$CURRENT_USER.tenant' } }

const collections: Record<string, CollectionDefinition> = {
  users: {
    table: 'recipe_users',
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string' },
      tenant: { type: 'integer' },
      password_hash: { type: 'string', hidden: true },
    },
    access: { read: { filter: ownTenant, fields: ['name'] } },
  },
  projects: {
    table: 'recipe_projects',
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string', nullable: false },
      tenant: { type: 'integer', nullable: false },
      budget: { type: 'decimal', scale: 2 },
      lead: { type: 'integer', references: 'users' },
    },
    access: {
      read: (ctx) => (ctx.role === 'admin' ? { filter: ownTenant } : { filter: ownTenant, fields: ['name', 'lead'] }),
      create: { fields: ['name', 'lead'], presets: { tenant: '$CURRENT_USER.tenant' } },
      update: { filter: ownTenant, fields: ['name', 'lead'] },
      delete: (ctx) => ctx.role === 'admin' && { filter: ownTenant },
    },
  },
  // Configured without access: closed by defaultAccess: false.
  audit: { table: 'recipe_projects', fields: { id: { type: 'integer', primaryKey: true } } },
}

/** Users 1–2 and projects 1–2 belong to tenant 7; user 3 and project 3 to tenant 8. */
async function createTables(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('recipe_projects')
  await knex.schema.dropTableIfExists('recipe_users')
  await knex.schema.createTable('recipe_users', (table) => {
    table.increments('id')
    table.string('name')
    table.integer('tenant')
    table.string('password_hash')
  })
  await knex.schema.createTable('recipe_projects', (table) => {
    table.increments('id')
    table.string('name').notNullable()
    table.integer('tenant').notNullable()
    table.decimal('budget', 12, 2)
    table.integer('lead').unsigned().references('id').inTable('recipe_users')
  })
  // Fresh tables number rows from 1 on every database, and the sequences stay in step.
  await knex('recipe_users').insert([
    { name: 'Ada', tenant: 7, password_hash: 'x1' },
    { name: 'Grace', tenant: 7, password_hash: 'x2' },
    { name: 'Linus', tenant: 8, password_hash: 'x3' },
  ])
  await knex('recipe_projects').insert([
    { name: 'Apollo', tenant: 7, budget: '1000.00', lead: 1 },
    { name: 'Gemini', tenant: 7, budget: null, lead: 3 },
    { name: 'Borealis', tenant: 8, budget: '5.50', lead: 3 },
  ])
}

forEachDialect((ctx) => {
  let app: express.Express
  const as = (id: number, tenant: number, role = 'member') => ({ 'x-user': String(id), 'x-tenant': String(tenant), 'x-role': role })
  const ada = as(1, 7)
  const admin = as(2, 7, 'admin')

  beforeAll(() => {
    app = express()
    app.use(
      '/api',
      createItemsRouter({
        knex: ctx.knex,
        collections,
        defaultAccess: false,
        logger: recordingLogger(),
        context: (req) => ({
          user: { id: Number(req.header('x-user')), tenant: Number(req.header('x-tenant')) },
          role: req.header('x-role'),
        }),
      }),
    )
  })
  // The tables stay behind after the run, like the fixtures; the next run drops and creates them again.
  beforeEach(() => createTables(ctx.knex))

  it("lists the tenant's projects with the member's fields only", async () => {
    const response = await request(app).get('/api/items/projects?fields=*,lead.*').set(ada)
    expect(response.status).toBe(200)
    // Gemini's lead belongs to the other tenant: it reads as null, and never leaks a name.
    expect(response.body.data).toEqual([
      { id: 1, name: 'Apollo', lead: { id: 1, name: 'Ada' } },
      { id: 2, name: 'Gemini', lead: null },
    ])
  })

  it("answers another tenant's project and user as missing", async () => {
    const project = await request(app).get('/api/items/projects/3').set(ada)
    const missing = await request(app).get('/api/items/projects/99').set(ada)
    expect([project.status, project.body]).toEqual([404, missing.body])
    const user = await request(app).get('/api/items/users/3').set(ada)
    expect(user.status).toBe(404)
  })

  it('gives budget to admins only; for members it does not exist', async () => {
    const asAdmin = await request(app).get('/api/items/projects?fields=name,budget').set(admin)
    expect(asAdmin.body.data).toEqual([
      { name: 'Apollo', budget: '1000.00' },
      { name: 'Gemini', budget: null },
    ])
    const asMember = await request(app).get('/api/items/projects?fields=name,budget').set(ada)
    expect(asMember.status).toBe(400)
    expect(asMember.body.errors[0].message).toBe('Invalid query. Field "budget" does not exist in collection "projects".')
  })

  it('never serves the password hash, not even to admins', async () => {
    const response = await request(app).get('/api/items/users?filter[password_hash][_eq]=x1').set(admin)
    expect(response.status).toBe(400)
    expect(response.body.errors[0].extensions.code).toBe('INVALID_QUERY')
  })

  it("creates projects in the caller's tenant and refuses budget", async () => {
    const created = await request(app).post('/api/items/projects').set(ada).send({ name: 'Mercury', lead: 2 })
    expect(created.status).toBe(200)
    expect(created.body.data).toEqual({ id: 4, name: 'Mercury', lead: 2 })
    expect(await ctx.knex('recipe_projects').where({ id: 4 }).first('tenant')).toEqual({ tenant: 7 })

    const refused = await request(app).post('/api/items/projects').set(ada).send({ name: 'X', budget: 1 })
    expect(refused.status).toBe(400)
    expect(refused.body.errors).toEqual([
      {
        message: 'Field "budget" does not exist or cannot be written.',
        extensions: { code: 'FAILED_VALIDATION', field: 'budget', type: 'additionalProperties', collection: 'projects' },
      },
    ])
  })

  it("cannot point lead at another tenant's user", async () => {
    const response = await request(app).patch('/api/items/projects/1').set(ada).send({ lead: 3 })
    expect(response.status).toBe(400)
    expect(response.body.errors[0].extensions).toMatchObject({ code: 'INVALID_FOREIGN_KEY', field: 'lead', value: 3 })
    expect(await ctx.knex('recipe_projects').where({ id: 1 }).first('lead')).toEqual({ lead: 1 })
  })

  it('lets only admins delete, within their tenant', async () => {
    const member = await request(app).delete('/api/items/projects/1').set(ada)
    expect(member.status).toBe(403)
    const otherTenant = await request(app).delete('/api/items/projects/3').set(admin)
    expect(otherTenant.status).toBe(404)
    const own = await request(app).delete('/api/items/projects/2').set(admin)
    expect(own.status).toBe(204)
    expect((await ctx.knex('recipe_projects').select('id').orderBy('id')).map((row) => row.id)).toEqual([1, 3])
  })

  it('closes collections configured without access', async () => {
    const response = await request(app).get('/api/items/audit').set(admin)
    expect(response.status).toBe(403)
    expect(response.body.errors[0].extensions.code).toBe('FORBIDDEN')
  })
})
