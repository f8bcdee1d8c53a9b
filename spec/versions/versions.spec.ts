// Content versions on every dialect: /versions CRUD, save, ?version= reads, compare, promote, singletons and the versions table.
import type { Express } from 'express'
import request from 'supertest'
import { seed, type ArticleRow } from '../../fixtures/seed'
import { createVersionsTable } from '../../lib'
import type { DialectName } from '../../lib/dialects'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError } from '../support/expect-error'

const VERSIONS_TABLE = 'items_versions'
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const SHA256_HEX = /^[0-9a-f]{64}$/

type Body = Record<string, unknown>

interface VersionBody {
  id: number
  key: string
  name: string | null
  collection: string
  item: string
  hash: string
  delta: Body | null
  date_created: string
  date_updated: string
}

interface CompareBody {
  outdated: boolean
  mainHash: string
  current: Body
  main: Body
}

function seedArticle(id: number): ArticleRow {
  const row = seed.articles.find((article) => article.id === id)
  if (!row) throw new Error(`No seeded article ${id}`)
  return row
}

/** An article as `fields=*` answers it: the seed row plus its o2m aliases as child keys (ordered by child key). */
function fullArticle(id: number): Body {
  return {
    ...seedArticle(id),
    comments: seed.comments.filter((comment) => comment.article === id).map((comment) => comment.id),
    topics: seed.article_topics.filter((link) => link.article === id).map((link) => link.id),
  }
}

const authorName = (id: number): string => seed.authors.find((author) => author.id === id)!.name

/** Seeded values the deltas below must differ from, or a passing "delta applied" check would prove nothing. */
const NEW_TITLE = 'A rewritten title'
const NEW_AUTHOR = seedArticle(1).author === 3 ? 4 : 3
const NEW_RATING = seedArticle(1).rating === 5 ? 4 : 5

function expectRecentTimestamp(value: unknown, since: number): void {
  expect(value).toEqual(expect.stringMatching(ISO_TIMESTAMP))
  const time = Date.parse(value as string)
  expect(time).toBeGreaterThanOrEqual(since - 1000)
  expect(time).toBeLessThanOrEqual(Date.now() + 1000)
}

async function versionRows(ctx: DialectContext, table = VERSIONS_TABLE): Promise<number> {
  const [row] = await ctx.knex(table).count({ n: '*' })
  return Number(row!.n)
}

/** What each dialect answered in the fixed scenario, to compare with the dialects that ran before it. */
const scenarioByDialect = new Map<DialectName, unknown>()

/** Version ids and dates differ from run to run; everything else, hashes included, must not. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable)
  if (value === null || typeof value !== 'object') return value
  const isVersion = 'key' in value && 'hash' in value
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => {
      if (key === 'date_created' || key === 'date_updated') return [key, typeof child]
      if ((isVersion && key === 'id') || key === 'version_id') return [key, typeof child]
      return [key, stable(child)]
    }),
  )
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })
  beforeEach(async () => {
    await ctx.reset()
  })

  const createVersion = async (body: Body, target: Express = app): Promise<VersionBody> => {
    const response = await request(target).post('/api/versions').send(body)
    expect(response.status).toBe(200)
    return response.body.data as VersionBody
  }
  const saveVersion = async (id: number, body: Body, target: Express = app): Promise<Body> => {
    const response = await request(target).post(`/api/versions/${id}/save`).send(body)
    expect(response.status).toBe(200)
    return response.body.data as Body
  }
  const readVersion = async (id: number): Promise<VersionBody> => {
    const response = await request(app).get(`/api/versions/${id}`)
    expect(response.status).toBe(200)
    return response.body.data as VersionBody
  }
  const compare = async (id: number): Promise<CompareBody> => {
    const response = await request(app).get(`/api/versions/${id}/compare`)
    expect(response.status).toBe(200)
    return response.body.data as CompareBody
  }
  /** The item read; a read through a version (not main) is marked with that version's id, checked and left out here. */
  const readItem = async (path: string): Promise<Body> => {
    const response = await request(app).get(`/api/items/${path}`)
    expect(response.status).toBe(200)
    const { $meta, ...data } = response.body.data as Body
    const version = new URLSearchParams(path.split('?')[1] ?? '').get('version')
    if (version === null || version === 'main') expect($meta).toBeUndefined()
    else expect($meta).toEqual({ version_id: expect.any(Number) })
    return data
  }
  const draftOfArticle = (item: number | string = 1, key = 'draft'): Promise<VersionBody> =>
    createVersion({ key, collection: 'articles', item })

  describe('POST /versions', () => {
    it('creates a version of an item and answers it whole, with delta null', async () => {
      const since = Date.now()
      const response = await request(app)
        .post('/api/versions')
        .send({ key: 'draft', name: 'Spring rewrite', collection: 'articles', item: 1 })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: {
          id: expect.any(Number),
          key: 'draft',
          name: 'Spring rewrite',
          collection: 'articles',
          item: '1',
          hash: expect.stringMatching(SHA256_HEX),
          delta: null,
          date_created: expect.any(String),
          date_updated: expect.any(String),
        },
      })
      const data = response.body.data as VersionBody
      expectRecentTimestamp(data.date_created, since)
      expectRecentTimestamp(data.date_updated, since)
      expect(await readVersion(data.id)).toEqual(data)
      expect(await versionRows(ctx)).toBe(1)
    })

    it('stores name null when no name is given', async () => {
      const version = await draftOfArticle()
      expect(version.name).toBeNull()
    })

    it('reads the item key as the collection key type and stores it as text', async () => {
      const version = await createVersion({ key: 'draft', collection: 'articles', item: '7' })
      expect(version.item).toBe('7')
      expect(await readItem('articles/7?version=draft&fields=id')).toEqual({ id: 7 })
    })

    it('accepts a key of exactly 64 characters', async () => {
      const key = 'k'.repeat(64)
      const version = await draftOfArticle(1, key)
      expect(version.key).toBe(key)
    })

    it.each([
      ['the same key again (number item)', 1],
      ['the same key again (text item)', '1'],
    ])('refuses %s for the same item with 422 UNPROCESSABLE_CONTENT', async (_label, item) => {
      await draftOfArticle(1)
      const response = await request(app).post('/api/versions').send({ key: 'draft', collection: 'articles', item })
      expectError(response, 422, 'UNPROCESSABLE_CONTENT')
      expect(await versionRows(ctx)).toBe(1)
    })

    it('allows the same key for another item', async () => {
      const first = await draftOfArticle(1)
      const second = await draftOfArticle(2)
      expect(second.id).not.toBe(first.id)
      expect(second).toEqual(expect.objectContaining({ key: 'draft', item: '2' }))
      expect(await versionRows(ctx)).toBe(2)
    })

    // Keys are compared exactly elsewhere in the API; MySQL's default collations would call these the same.
    it.each(['Draft', 'draft ', 'dräft'])('treats %j as a key distinct from "draft"', async (key) => {
      const plain = await draftOfArticle(1, 'draft')
      await saveVersion(plain.id, { title: 'plain draft' })
      const lookalike = await draftOfArticle(1, key)
      await saveVersion(lookalike.id, { title: 'lookalike draft' })
      expect(await readItem('articles/1?version=draft&fields=title')).toEqual({ title: 'plain draft' })
      expect(await readItem(`articles/1?version=${encodeURIComponent(key)}&fields=title`)).toEqual({ title: 'lookalike draft' })
    })

    it.each([
      ['a missing key', { collection: 'articles', item: 1 }],
      ['an empty key', { key: '', collection: 'articles', item: 1 }],
      ['the reserved key "main"', { key: 'main', collection: 'articles', item: 1 }],
      ['a key longer than 64 characters', { key: 'k'.repeat(65), collection: 'articles', item: 1 }],
      ['a numeric key', { key: 5, collection: 'articles', item: 1 }],
      ['a name longer than 255 characters', { key: 'draft', name: 'n'.repeat(256), collection: 'articles', item: 1 }],
      ['a collection without versioning', { key: 'draft', collection: 'authors', item: 1 }],
      ['an unknown collection', { key: 'draft', collection: 'nope', item: 1 }],
      ['a missing collection', { key: 'draft', item: 1 }],
      ['a missing item', { key: 'draft', collection: 'articles' }],
      ['an item that is not a key of the collection', { key: 'draft', collection: 'articles', item: 'abc' }],
      ['an unknown body field', { key: 'draft', collection: 'articles', item: 1, delta: { title: 'x' } }],
      [
        'an array body with one bad entry',
        [
          { key: 'draft', collection: 'articles', item: 1 },
          { key: 'draft', collection: 'articles' },
        ],
      ],
    ])('refuses %s with 400 INVALID_PAYLOAD and creates nothing', async (_label, body) => {
      const response = await request(app).post('/api/versions').send(body)
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect(await versionRows(ctx)).toBe(0)
    })

    it('refuses a request without a JSON body with 400 INVALID_PAYLOAD', async () => {
      const response = await request(app).post('/api/versions').set('Content-Type', 'text/plain').send('key=draft')
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect(await versionRows(ctx)).toBe(0)
    })

    it('answers 404 NOT_FOUND for an item that does not exist', async () => {
      const response = await request(app)
        .post('/api/versions')
        .send({ key: 'draft', collection: 'articles', item: seed.articles.length + 1 })
      expectError(response, 404, 'NOT_FOUND')
      expect(await versionRows(ctx)).toBe(0)
    })

    // The key check and the insert are separate steps; the unique index must not turn a race into a different error.
    it('answers one of two simultaneous creates of the same key with 422', async () => {
      const body = { key: 'draft', collection: 'articles', item: 1 }
      const responses = await Promise.all([request(app).post('/api/versions').send(body), request(app).post('/api/versions').send(body)])
      expect(responses.map((response) => response.status).sort()).toEqual([200, 422])
      expect(responses.find((response) => response.status === 422)!.body.errors[0].extensions.code).toBe('UNPROCESSABLE_CONTENT')
      expect(await versionRows(ctx)).toBe(1)
    })
  })

  describe('GET /versions', () => {
    let ids: Record<string, number>
    beforeEach(async () => {
      ids = {
        a1draft: (await createVersion({ key: 'draft', name: 'First', collection: 'articles', item: 1 })).id,
        a1other: (await createVersion({ key: 'other', collection: 'articles', item: 1 })).id,
        a2draft: (await createVersion({ key: 'draft', collection: 'articles', item: 2 })).id,
        a10draft: (await createVersion({ key: 'draft', collection: 'articles', item: 10 })).id,
      }
    })

    const listIds = async (query: string): Promise<number[]> => {
      const response = await request(app).get(`/api/versions?${query}`)
      expect(response.status).toBe(200)
      return (response.body.data as Array<{ id: number }>).map((version) => version.id)
    }

    it('lists every version, whole, by id', async () => {
      const response = await request(app).get('/api/versions')
      expect(response.status).toBe(200)
      const data = response.body.data as VersionBody[]
      expect(data.map((version) => version.id)).toEqual(Object.values(ids))
      expect(data[0]).toEqual(await readVersion(ids.a1draft!))
      expect(Object.keys(data[0]!).sort()).toEqual([
        'collection',
        'date_created',
        'date_updated',
        'delta',
        'hash',
        'id',
        'item',
        'key',
        'name',
      ])
    })

    it.each([
      ['filter[collection][_eq]=articles', ['a1draft', 'a1other', 'a2draft', 'a10draft']],
      ['filter[collection][_eq]=settings', []],
      ['filter[item][_eq]=1', ['a1draft', 'a1other']],
      ['filter[key][_eq]=draft', ['a1draft', 'a2draft', 'a10draft']],
      ['filter[collection][_eq]=articles&filter[item][_eq]=1&filter[key][_eq]=other', ['a1other']],
      ['sort=-id', ['a10draft', 'a2draft', 'a1other', 'a1draft']],
    ])('answers %s', async (query, expected) => {
      expect(await listIds(query)).toEqual(expected.map((name) => ids[name]))
    })

    it('answers only the requested fields', async () => {
      const response = await request(app).get('/api/versions?fields=id,key&filter[item][_eq]=1')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: [
          { id: ids.a1draft, key: 'draft' },
          { id: ids.a1other, key: 'other' },
        ],
      })
    })

    it('answers meta=* with the total and the filtered count', async () => {
      const response = await request(app).get('/api/versions?fields=id&filter[key][_eq]=other&meta=*')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [{ id: ids.a1other }], meta: { total_count: 4, filter_count: 1 } })
    })
  })

  describe('GET /versions/:id', () => {
    it('answers only the requested fields', async () => {
      const version = await draftOfArticle()
      const response = await request(app).get(`/api/versions/${version.id}?fields=key,item`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { key: 'draft', item: '1' } })
    })

    it.each(['999999', 'abc', '0', '-1', '1.5'])('answers 404 NOT_FOUND for the id %s', async (id) => {
      await draftOfArticle()
      expectError(await request(app).get(`/api/versions/${id}`), 404, 'NOT_FOUND')
    })
  })

  describe('PATCH /versions/:id', () => {
    it('renames a version and touches date_updated only', async () => {
      const version = await createVersion({ key: 'draft', name: 'Old', collection: 'articles', item: 1 })
      const since = Date.now()
      const response = await request(app).patch(`/api/versions/${version.id}`).send({ name: 'New name' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { ...version, name: 'New name', date_updated: expect.any(String) } })
      expectRecentTimestamp(response.body.data.date_updated, since)
      expect(await readVersion(version.id)).toEqual(response.body.data)
    })

    it('clears the name with null', async () => {
      const version = await createVersion({ key: 'draft', name: 'Old', collection: 'articles', item: 1 })
      const response = await request(app).patch(`/api/versions/${version.id}`).send({ name: null })
      expect(response.status).toBe(200)
      expect(response.body.data.name).toBeNull()
    })

    it('changes the key, and ?version= follows it', async () => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE })
      const response = await request(app).patch(`/api/versions/${version.id}?fields=id,key,name`).send({ key: 'final' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: version.id, key: 'final', name: null } })
      expect(await readItem('articles/1?version=final&fields=title')).toEqual({ title: NEW_TITLE })
      expectError(await request(app).get('/api/items/articles/1?version=draft'), 404, 'NOT_FOUND')
    })

    it('accepts the version its own key', async () => {
      const version = await draftOfArticle()
      const response = await request(app).patch(`/api/versions/${version.id}?fields=key`).send({ key: 'draft' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { key: 'draft' } })
    })

    it('refuses a key another version of the same item has with 422 UNPROCESSABLE_CONTENT', async () => {
      await draftOfArticle(1, 'draft')
      const other = await draftOfArticle(1, 'other')
      expectError(await request(app).patch(`/api/versions/${other.id}`).send({ key: 'draft' }), 422, 'UNPROCESSABLE_CONTENT')
      expect((await readVersion(other.id)).key).toBe('other')
    })

    it('allows a key only a version of another item has', async () => {
      await draftOfArticle(2, 'draft')
      const other = await draftOfArticle(1, 'other')
      const response = await request(app).patch(`/api/versions/${other.id}?fields=key`).send({ key: 'draft' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { key: 'draft' } })
    })

    it.each([
      ['the reserved key "main"', { key: 'main' }],
      ['an empty key', { key: '' }],
      ['a key longer than 64 characters', { key: 'k'.repeat(65) }],
      ['a delta', { delta: { title: 'x' } }],
      ['another collection', { collection: 'settings' }],
      ['another item', { item: '2' }],
      ['a hash', { hash: 'f'.repeat(64) }],
      ['an array body', [{ name: 'x' }]],
    ])('refuses %s with 400 INVALID_PAYLOAD and changes nothing', async (_label, body) => {
      const version = await createVersion({ key: 'draft', name: 'Kept', collection: 'articles', item: 1 })
      expectError(await request(app).patch(`/api/versions/${version.id}`).send(body), 400, 'INVALID_PAYLOAD')
      expect(await readVersion(version.id)).toEqual(version)
    })

    it('refuses a request without a JSON body with 400 INVALID_PAYLOAD', async () => {
      const version = await draftOfArticle()
      const response = await request(app).patch(`/api/versions/${version.id}`).set('Content-Type', 'text/plain').send('name=x')
      expectError(response, 400, 'INVALID_PAYLOAD')
    })

    it('answers 404 NOT_FOUND for a missing version', async () => {
      expectError(await request(app).patch('/api/versions/999999').send({ name: 'x' }), 404, 'NOT_FOUND')
    })
  })

  describe('DELETE /versions/:id', () => {
    it('answers 204 without a body, and the version is gone', async () => {
      const version = await draftOfArticle()
      const kept = await draftOfArticle(2)
      const response = await request(app).delete(`/api/versions/${version.id}`)
      expect(response.status).toBe(204)
      expect(response.text).toBe('')
      expectError(await request(app).get(`/api/versions/${version.id}`), 404, 'NOT_FOUND')
      expectError(await request(app).get('/api/items/articles/1?version=draft'), 404, 'NOT_FOUND')
      expect(await readVersion(kept.id)).toEqual(kept)
    })

    it('leaves the main item alone', async () => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE })
      await request(app).delete(`/api/versions/${version.id}`).expect(204)
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
    })

    it.each(['999999', 'abc'])('answers 404 NOT_FOUND for the id %s', async (id) => {
      expectError(await request(app).delete(`/api/versions/${id}`), 404, 'NOT_FOUND')
    })
  })

  describe('POST /versions/:id/save', () => {
    it('answers the whole item as the version shows it, and stores the change as the delta', async () => {
      const version = await draftOfArticle()
      const since = Date.now()
      const response = await request(app).post(`/api/versions/${version.id}/save`).send({ title: NEW_TITLE })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { ...fullArticle(1), title: NEW_TITLE } })
      const stored = await readVersion(version.id)
      expect(stored).toEqual({ ...version, delta: { title: NEW_TITLE }, date_updated: expect.any(String) })
      expectRecentTimestamp(stored.date_updated, since)
    })

    it('merges several saves: later values win, earlier keys stay', async () => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: 'first title', rating: NEW_RATING })
      await saveVersion(version.id, { title: NEW_TITLE, tags: ['a', 'b'] })
      const last = await saveVersion(version.id, { author: NEW_AUTHOR, published_at: '2030-01-02T03:04:05' })
      const delta = { title: NEW_TITLE, rating: NEW_RATING, tags: ['a', 'b'], author: NEW_AUTHOR, published_at: '2030-01-02T03:04:05' }
      expect(last).toEqual({ ...fullArticle(1), ...delta })
      expect((await readVersion(version.id)).delta).toEqual(delta)
    })

    it('keeps a saved null in the delta and shows it', async () => {
      const version = await draftOfArticle()
      const shown = await saveVersion(version.id, { rating: null, tags: null })
      expect(shown).toEqual({ ...fullArticle(1), rating: null, tags: null })
      expect((await readVersion(version.id)).delta).toEqual({ rating: null, tags: null })
    })

    it('shapes the answer by fields', async () => {
      const version = await draftOfArticle()
      const response = await request(app)
        .post(`/api/versions/${version.id}/save?fields=id,title`)
        .send({ title: NEW_TITLE, rating: NEW_RATING })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 1, title: NEW_TITLE } })
    })

    it('leaves the main item unchanged', async () => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE, author: NEW_AUTHOR, rating: NEW_RATING })
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
      expect(await readItem('articles/1?version=main')).toEqual(fullArticle(1))
    })

    it.each([
      ['an unknown field', { nope: 1 }, 'nope', 'additionalProperties'],
      ['a wrong type', { rating: 'abc' }, 'rating', 'type'],
      ['a null for a required field', { title: null }, 'title', 'type'],
      ['a too long string', { title: 't'.repeat(201) }, 'title', 'maxLength'],
      ['an invalid dateTime', { published_at: '2024-13-40T00:00:00' }, 'published_at', 'format'],
      ['an unknown field of a nested item', { comments: [{ nope: 1 }] }, 'nope', 'additionalProperties'],
    ])('refuses %s with 400 FAILED_VALIDATION and keeps the delta', async (_label, body, field, type) => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE })
      const before = await readVersion(version.id)
      const response = await request(app)
        .post(`/api/versions/${version.id}/save`)
        .send({ ...body })
      expectError(response, 400, 'FAILED_VALIDATION')
      expect(response.body.errors[0].extensions).toEqual(expect.objectContaining({ field, type }))
      expect(await readVersion(version.id)).toEqual(before)
    })

    it('answers one error per failing field, and saves none of the valid ones', async () => {
      const version = await draftOfArticle()
      const response = await request(app).post(`/api/versions/${version.id}/save`).send({ title: NEW_TITLE, rating: 'abc', nope: 1 })
      expect(response.status).toBe(400)
      const errors = response.body.errors as Array<{ extensions: { code: string; field: string } }>
      expect(errors.map((error) => [error.extensions.code, error.extensions.field]).sort()).toEqual([
        ['FAILED_VALIDATION', 'nope'],
        ['FAILED_VALIDATION', 'rating'],
      ])
      expect((await readVersion(version.id)).delta).toBeNull()
    })

    it.each([
      ['an array body', [{ title: 'x' }]],
      ['a scalar body', 3],
    ])('refuses %s with 400 INVALID_PAYLOAD', async (_label, body) => {
      const version = await draftOfArticle()
      const response = await request(app)
        .post(`/api/versions/${version.id}/save`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(body))
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect((await readVersion(version.id)).delta).toBeNull()
    })

    it('refuses a request without a JSON body with 400 INVALID_PAYLOAD', async () => {
      const version = await draftOfArticle()
      const response = await request(app).post(`/api/versions/${version.id}/save`).set('Content-Type', 'text/plain').send('title=x')
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect((await readVersion(version.id)).delta).toBeNull()
    })

    it.each(['999999', 'abc'])('answers 404 NOT_FOUND for the version id %s', async (id) => {
      expectError(await request(app).post(`/api/versions/${id}/save`).send({ title: 'x' }), 404, 'NOT_FOUND')
    })

    // Each save reads the delta, merges and writes it back; two at once must not lose one of them.
    it('keeps both of two simultaneous saves of different fields', async () => {
      const version = await draftOfArticle()
      const responses = await Promise.all([
        request(app).post(`/api/versions/${version.id}/save`).send({ title: NEW_TITLE }),
        request(app).post(`/api/versions/${version.id}/save`).send({ rating: NEW_RATING }),
      ])
      expect(responses.map((response) => response.status)).toEqual([200, 200])
      expect((await readVersion(version.id)).delta).toEqual({ title: NEW_TITLE, rating: NEW_RATING })
    })
  })

  describe('GET /items/:collection/:id?version=', () => {
    let versionId: number
    beforeEach(async () => {
      versionId = (await draftOfArticle()).id
    })

    it('answers the main item with the delta applied', async () => {
      await saveVersion(versionId, { title: NEW_TITLE, rating: NEW_RATING })
      const response = await request(app).get('/api/items/articles/1?version=draft')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { ...fullArticle(1), title: NEW_TITLE, rating: NEW_RATING, $meta: { version_id: versionId } } })
    })

    it('answers the main item for a version with nothing saved yet', async () => {
      expect(await readItem('articles/1?version=draft')).toEqual(fullArticle(1))
    })

    it('does not add delta values of fields that were not requested', async () => {
      await saveVersion(versionId, { title: NEW_TITLE, rating: NEW_RATING, author: NEW_AUTHOR })
      const response = await request(app).get('/api/items/articles/1?version=draft&fields=id,title')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: 1, title: NEW_TITLE, $meta: { version_id: versionId } } })
    })

    it.each([
      ['author', { author: NEW_AUTHOR }],
      ['author.name', { author: { name: authorName(NEW_AUTHOR) } }],
      ['title,author.name,author.id', { title: NEW_TITLE, author: { name: authorName(NEW_AUTHOR), id: NEW_AUTHOR } }],
      ['parent.title', { parent: { title: seedArticle(5).title } }],
      ['parent.author.name', { parent: { author: seedArticle(5).author === null ? null : { name: authorName(seedArticle(5).author!) } } }],
    ])('resolves relational fields against the delta: fields=%s', async (fields, expected) => {
      await saveVersion(versionId, { title: NEW_TITLE, author: NEW_AUTHOR, parent: 5 })
      expect(await readItem(`articles/1?version=draft&fields=${fields}`)).toEqual(expected)
    })

    it.each([
      ['author', { author: null }],
      ['author.name', { author: null }],
      ['id,author.name', { id: 1, author: null }],
    ])('answers a m2o the delta sets to null as null: fields=%s', async (fields, expected) => {
      await saveVersion(versionId, { author: null })
      expect(await readItem(`articles/1?version=draft&fields=${fields}`)).toEqual(expected)
    })

    it('answers version=main with the main item', async () => {
      await saveVersion(versionId, { title: NEW_TITLE })
      expect(await readItem('articles/1?version=main')).toEqual(fullArticle(1))
      expect(await readItem('articles/1?version=main&fields=title,author.name')).toEqual(
        await readItem('articles/1?fields=title,author.name'),
      )
    })

    it.each([
      ['an unknown key', 'articles/1?version=nope'],
      ['a key that differs only in case', 'articles/1?version=DRAFT'],
      ['a key of article 1 asked on article 2', 'articles/2?version=draft'],
      ['a key on an item that does not exist', `articles/${seed.articles.length + 1}?version=draft`],
      ['a key on a collection without versioning', 'authors/1?version=draft'],
    ])('answers %s with 404 NOT_FOUND, never the main item', async (_label, path) => {
      await saveVersion(versionId, { title: NEW_TITLE })
      const response = await request(app).get(`/api/items/${path}`)
      expectError(response, 404, 'NOT_FOUND')
      expect(response.body).not.toHaveProperty('data')
    })

    it('answers version=main on a collection without versioning with the item', async () => {
      expect(await readItem('authors/1?version=main&fields=id,name')).toEqual({ id: 1, name: authorName(1) })
    })
  })

  describe('a singleton', () => {
    it('keeps a version of the singleton item, reads it at both paths, and promotes it', async () => {
      const main = await request(app).patch('/api/items/settings').send({ site_name: 'Mine', tagline: 'Main tagline' })
      expect(main.status).toBe(200)
      const mainItem = main.body.data as Body
      expect(mainItem).toEqual({ id: expect.any(Number), site_name: 'Mine', tagline: 'Main tagline', items_per_page: 10 })

      const version = await createVersion({ key: 'next', collection: 'settings', item: mainItem.id })
      expect(version).toEqual(expect.objectContaining({ key: 'next', collection: 'settings', item: String(mainItem.id), delta: null }))

      const drafted = { ...mainItem, tagline: 'Draft tagline' }
      expect(await saveVersion(version.id, { tagline: 'Draft tagline' })).toEqual(drafted)
      expect(await readItem('settings?version=next')).toEqual(drafted)
      expect(await readItem('settings/singleton?version=next')).toEqual(drafted)
      expect(await readItem('settings?version=next&fields=tagline')).toEqual({ tagline: 'Draft tagline' })
      expect(await readItem('settings/singleton?version=next&fields=site_name')).toEqual({ site_name: 'Mine' })

      expect(await readItem('settings')).toEqual(mainItem)
      expect(await readItem('settings/singleton')).toEqual(mainItem)
      expect(await readItem('settings?version=main')).toEqual(mainItem)
      expectError(await request(app).get('/api/items/settings?version=nope'), 404, 'NOT_FOUND')
      expectError(await request(app).get('/api/items/settings/singleton?version=nope'), 404, 'NOT_FOUND')

      const { mainHash, outdated, current, main: compared } = await compare(version.id)
      expect({ outdated, current, main: compared }).toEqual({ outdated: false, current: { tagline: 'Draft tagline' }, main: mainItem })
      const promoted = await request(app).post(`/api/versions/${version.id}/promote`).send({ mainHash })
      expect(promoted.status).toBe(200)
      expect(promoted.body).toEqual({ data: mainItem.id })
      expect(await readItem('settings')).toEqual(drafted)
      expect(await readItem('settings/singleton')).toEqual(drafted)
    })

    it('answers ?version= with 404 NOT_FOUND before the singleton row exists', async () => {
      expectError(await request(app).get('/api/items/settings?version=next'), 404, 'NOT_FOUND')
    })
  })

  describe('GET /versions/:id/compare', () => {
    it('answers outdated false, the main hash, the delta and the main item', async () => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE, rating: NEW_RATING })
      const response = await request(app).get(`/api/versions/${version.id}/compare`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: {
          outdated: false,
          mainHash: expect.stringMatching(SHA256_HEX),
          current: { title: NEW_TITLE, rating: NEW_RATING },
          main: fullArticle(1),
        },
      })
      expect(response.body.data.mainHash).toBe((await readVersion(version.id)).hash)
    })

    it('answers current {} for a version with nothing saved, with the hash taken at creation', async () => {
      const version = await draftOfArticle()
      expect(await compare(version.id)).toEqual({ outdated: false, mainHash: version.hash, current: {}, main: fullArticle(1) })
    })

    it('shapes main by fields', async () => {
      const version = await draftOfArticle()
      const response = await request(app).get(`/api/versions/${version.id}/compare?fields=id,title`)
      expect(response.status).toBe(200)
      expect(response.body.data.main).toEqual({ id: 1, title: seedArticle(1).title })
    })

    it('turns outdated and changes mainHash when the main item changes, until the next save', async () => {
      const version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE })
      const before = await compare(version.id)
      await request(app).patch('/api/items/articles/1').send({ rating: NEW_RATING }).expect(200)
      const after = await compare(version.id)
      expect(after).toEqual({
        outdated: true,
        mainHash: expect.stringMatching(SHA256_HEX),
        current: { title: NEW_TITLE },
        main: { ...fullArticle(1), rating: NEW_RATING },
      })
      expect(after.mainHash).not.toBe(before.mainHash)
      // The hash is the main item's as of the last save, so saving again brings the version up to date.
      await saveVersion(version.id, { status: 'published' })
      expect(await compare(version.id)).toEqual({ ...after, outdated: false, current: { title: NEW_TITLE, status: 'published' } })
    })

    it('gives the same mainHash when the main item is changed and changed back', async () => {
      const version = await draftOfArticle()
      const original = seedArticle(1).title
      await request(app).patch('/api/items/articles/1').send({ title: 'temporary' }).expect(200)
      await request(app).patch('/api/items/articles/1').send({ title: original }).expect(200)
      expect(await compare(version.id)).toEqual(expect.objectContaining({ outdated: false, mainHash: version.hash }))
    })

    it.each(['999999', 'abc'])('answers 404 NOT_FOUND for the version id %s', async (id) => {
      expectError(await request(app).get(`/api/versions/${id}/compare`), 404, 'NOT_FOUND')
    })
  })

  describe('POST /versions/:id/promote', () => {
    let version: VersionBody
    beforeEach(async () => {
      version = await draftOfArticle()
      await saveVersion(version.id, { title: NEW_TITLE, rating: NEW_RATING, author: NEW_AUTHOR })
    })
    const promote = (body: unknown): request.Test =>
      request(app)
        .post(`/api/versions/${version.id}/promote`)
        .send(body as object)

    it('applies the whole delta to the main item and answers its key; the version stays', async () => {
      const { mainHash } = await compare(version.id)
      const response = await promote({ mainHash })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: 1 })
      const promoted = { ...fullArticle(1), title: NEW_TITLE, rating: NEW_RATING, author: NEW_AUTHOR }
      expect(await readItem('articles/1')).toEqual(promoted)
      expect(await readItem('articles/2')).toEqual(fullArticle(2))
      const kept = await readVersion(version.id)
      expect(kept.delta).toEqual({ title: NEW_TITLE, rating: NEW_RATING, author: NEW_AUTHOR })
      expect(await readItem('articles/1?version=draft')).toEqual(promoted)
    })

    it('applies only the listed fields', async () => {
      const { mainHash } = await compare(version.id)
      const response = await promote({ mainHash, fields: ['title'] })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: 1 })
      expect(await readItem('articles/1')).toEqual({ ...fullArticle(1), title: NEW_TITLE })
      expect((await readVersion(version.id)).delta).toEqual({ title: NEW_TITLE, rating: NEW_RATING, author: NEW_AUTHOR })
    })

    it('refuses a stale mainHash with 422 UNPROCESSABLE_CONTENT and leaves the main item as it is', async () => {
      const { mainHash } = await compare(version.id)
      await request(app).patch('/api/items/articles/1').send({ status: 'archived' }).expect(200)
      expectError(await promote({ mainHash }), 422, 'UNPROCESSABLE_CONTENT')
      expect(await readItem('articles/1')).toEqual({ ...fullArticle(1), status: 'archived' })
    })

    it('refuses a promote that would change nothing with 422, so that one mainHash lets one promote through', async () => {
      const { mainHash } = await compare(version.id)
      const refused = expectError(await promote({ mainHash, fields: [] }), 422, 'UNPROCESSABLE_CONTENT')
      expect(refused.extensions).toEqual({ code: 'UNPROCESSABLE_CONTENT', mainHash })
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
      expect((await promote({ mainHash })).status).toBe(200)
      expectError(await promote({ mainHash }), 422, 'UNPROCESSABLE_CONTENT')
    })

    it('refuses a mainHash that was never the main item with 422 and changes nothing', async () => {
      expectError(await promote({ mainHash: '0'.repeat(64) }), 422, 'UNPROCESSABLE_CONTENT')
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
    })

    it.each<[string, (mainHash: string) => unknown]>([
      ['a missing mainHash', () => ({})],
      ['a numeric mainHash', () => ({ mainHash: 5 })],
      ['fields that are not a list', (mainHash) => ({ mainHash, fields: 'title' })],
      ['fields that are not names', (mainHash) => ({ mainHash, fields: [1] })],
      ['an array body', (mainHash) => [mainHash]],
    ])('refuses %s with 400 INVALID_PAYLOAD and changes nothing', async (_label, body) => {
      const { mainHash } = await compare(version.id)
      expectError(await promote(body(mainHash)), 400, 'INVALID_PAYLOAD')
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
    })

    it('refuses a request without a JSON body with 400 INVALID_PAYLOAD', async () => {
      const response = await request(app).post(`/api/versions/${version.id}/promote`).set('Content-Type', 'text/plain').send('mainHash=x')
      expectError(response, 400, 'INVALID_PAYLOAD')
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
    })

    it('leaves the main item untouched when the delta fails at promote time', async () => {
      const created = await request(app).post('/api/items/articles').send({ title: 'Short-lived parent' })
      expect(created.status).toBe(200)
      const parent = created.body.data.id as number
      await saveVersion(version.id, { parent, status: 'archived' })
      await request(app).delete(`/api/items/articles/${parent}`).expect(204)
      const { mainHash } = await compare(version.id)
      const response = await promote({ mainHash })
      expectError(response, 400, 'INVALID_FOREIGN_KEY')
      expect(response.body.errors[0].extensions).toEqual(expect.objectContaining({ field: 'parent' }))
      expect(await readItem('articles/1')).toEqual(fullArticle(1))
      expect((await readVersion(version.id)).delta).toEqual({
        title: NEW_TITLE,
        rating: NEW_RATING,
        author: NEW_AUTHOR,
        parent,
        status: 'archived',
      })
    })

    it('answers 404 NOT_FOUND for a missing version', async () => {
      const { mainHash } = await compare(version.id)
      expectError(await request(app).post('/api/versions/999999/promote').send({ mainHash }), 404, 'NOT_FOUND')
    })
  })

  describe('the versions table', () => {
    describe('createVersionsTable: true with a custom versionsTable', () => {
      const TABLE = 'my_versions'
      beforeEach(async () => {
        await ctx.knex.schema.dropTableIfExists(TABLE)
      })
      afterAll(async () => {
        await ctx.knex.schema.dropTableIfExists(TABLE)
      })

      it('creates that table on the first request and keeps versions only there', async () => {
        const own = createApp(ctx.knex, { createVersionsTable: true, versionsTable: TABLE })
        expect(await ctx.knex.schema.hasTable(TABLE)).toBe(false)
        const version = await createVersion({ key: 'draft', collection: 'articles', item: 1 }, own)
        expect(await ctx.knex.schema.hasTable(TABLE)).toBe(true)
        expect(await versionRows(ctx, TABLE)).toBe(1)
        expect(await versionRows(ctx)).toBe(0)
        await saveVersion(version.id, { title: NEW_TITLE }, own)
        const read = await request(own).get('/api/items/articles/1?version=draft&fields=title')
        expect(read.body).toEqual({ data: { title: NEW_TITLE, $meta: { version_id: version.id } } })
        expectError(await request(app).get('/api/items/articles/1?version=draft'), 404, 'NOT_FOUND')
      })

      it('creates it on a first read too', async () => {
        const own = createApp(ctx.knex, { createVersionsTable: true, versionsTable: TABLE })
        const response = await request(own).get('/api/versions')
        expect(response.status).toBe(200)
        expect(response.body).toEqual({ data: [] })
        expect(await ctx.knex.schema.hasTable(TABLE)).toBe(true)
      })

      it('serves simultaneous first requests', async () => {
        const own = createApp(ctx.knex, { createVersionsTable: true, versionsTable: TABLE })
        const responses = await Promise.all(
          [1, 2, 3].map((item) => request(own).post('/api/versions').send({ key: 'draft', collection: 'articles', item })),
        )
        expect(responses.map((response) => response.status)).toEqual([200, 200, 200])
        expect(await versionRows(ctx, TABLE)).toBe(3)
      })
    })

    describe('createVersionsTable(knex, name)', () => {
      const TABLE = 'h_versions_migrated'
      beforeEach(async () => {
        await ctx.knex.schema.dropTableIfExists(TABLE)
      })
      afterAll(async () => {
        await ctx.knex.schema.dropTableIfExists(TABLE)
      })

      it('creates a table a router can use, and calling it again changes nothing', async () => {
        await createVersionsTable(ctx.knex, TABLE)
        await createVersionsTable(ctx.knex, TABLE)
        expect(Object.keys(await ctx.knex(TABLE).columnInfo()).sort()).toEqual([
          'collection',
          'date_created',
          'date_updated',
          'delta',
          'hash',
          'id',
          'item',
          'key',
          'name',
        ])
        const own = createApp(ctx.knex, { versionsTable: TABLE })
        const version = await createVersion({ key: 'draft', collection: 'articles', item: 1 }, own)
        await saveVersion(version.id, { title: NEW_TITLE }, own)
        await createVersionsTable(ctx.knex, TABLE)
        expect(await versionRows(ctx, TABLE)).toBe(1)
        expect((await request(own).get(`/api/versions/${version.id}?fields=delta`)).body).toEqual({ data: { delta: { title: NEW_TITLE } } })
      })

      it('leaves the existing default table and its rows alone', async () => {
        await draftOfArticle()
        await createVersionsTable(ctx.knex)
        expect(await versionRows(ctx)).toBe(1)
      })
    })
  })

  describe('the same JSON on every database', () => {
    it('answers a fixed version workflow identically to the other databases', async () => {
      const steps: Array<[string, number, unknown]> = []
      const record = (label: string, response: request.Response): request.Response => {
        steps.push([label, response.status, stable(response.body)])
        return response
      }
      const created = record(
        'create',
        await request(app).post('/api/versions').send({ key: 'draft', name: 'Spring', collection: 'articles', item: 1 }),
      )
      const id = created.body.data.id as number
      record(
        'save 1',
        await request(app)
          .post(`/api/versions/${id}/save`)
          .send({ title: 'Ünïcode 🚀 title', author: 3, tags: ['x'] }),
      )
      record('save 2', await request(app).post(`/api/versions/${id}/save`).send({ rating: 2, published_at: '2031-05-06T07:08:09' }))
      record('save invalid', await request(app).post(`/api/versions/${id}/save`).send({ rating: 'abc' }))
      record('read', await request(app).get(`/api/versions/${id}`))
      record('preview', await request(app).get('/api/items/articles/1?version=draft&fields=*,author.name,parent.title'))
      const compared = record('compare', await request(app).get(`/api/versions/${id}/compare`))
      record(
        'stale promote',
        await request(app)
          .post(`/api/versions/${id}/promote`)
          .send({ mainHash: 'f'.repeat(64) }),
      )
      record('promote', await request(app).post(`/api/versions/${id}/promote`).send({ mainHash: compared.body.data.mainHash }))
      record('promoted', await request(app).get('/api/items/articles/1'))
      record('compare after promote', await request(app).get(`/api/versions/${id}/compare`))
      record('list', await request(app).get('/api/versions?meta=*'))
      expect(steps.map(([label, status]) => [label, status])).toEqual([
        ['create', 200],
        ['save 1', 200],
        ['save 2', 200],
        ['save invalid', 400],
        ['read', 200],
        ['preview', 200],
        ['compare', 200],
        ['stale promote', 422],
        ['promote', 200],
        ['promoted', 200],
        ['compare after promote', 200],
        ['list', 200],
      ])
      // Keyed by the other database's name, so the diff says which one differs.
      const others = [...scenarioByDialect.entries()]
      scenarioByDialect.set(ctx.name, steps)
      expect(Object.fromEntries(others.map(([name]) => [name, steps]))).toEqual(Object.fromEntries(others))
    })
  })
})
