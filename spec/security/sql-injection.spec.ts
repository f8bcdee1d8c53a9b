// Hostile text in every part of a request is either refused before any SQL is sent or handled as a plain value: never a 500, no row changed, no table dropped.
import type { Express } from 'express'
import request, { type Response } from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import type { ErrorCode } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError, type RenderedError } from '../support/expect-error'

type Method = 'get' | 'post' | 'patch' | 'delete'

/** Strings that would change a statement if any of them were spliced into SQL text. */
const HOSTILE_VALUES = [
  "' or 1=1 --",
  '"; drop table authors; --',
  "\\'; drop table articles; --",
  '1) or (1=1',
  "%' or '1'='1",
  "Robert'); DROP TABLE articles;--",
  '\\',
  '\\\\%\\_',
  "' union select password_hash from authors --",
  '`; drop table authors; #',
  '$1',
  '?',
]

const SEEDED = { articles: seed.articles.length, authors: seed.authors.length }
const TABLES = Object.keys(collections)

async function rowCounts(ctx: DialectContext): Promise<{ articles: number; authors: number }> {
  const count = async (table: string): Promise<number> => Number((await ctx.knex(table).count({ n: '*' }))[0]!.n)
  return { articles: await count('articles'), authors: await count('authors') }
}

/** Every fixture table is still there and `articles` / `authors` hold `expected` rows. */
async function expectIntact(ctx: DialectContext, expected = SEEDED): Promise<void> {
  for (const table of TABLES) expect([table, await ctx.knex.schema.hasTable(table)]).toEqual([table, true])
  expect(await rowCounts(ctx)).toEqual(expected)
}

async function send(app: Express, method: Method, path: string, body?: unknown): Promise<Response> {
  const call = request(app)[method](path)
  return body === undefined ? await call : await call.send(body as object)
}

/** Case-insensitive substring over the fields `search` looks in, as the API documents it (terms here are not numbers). */
function searchIds<T extends { id: number }>(rows: readonly T[], fields: ReadonlyArray<keyof T>, term: string): number[] {
  const needle = term.toLowerCase()
  return rows
    .filter((row) =>
      fields.some((field) =>
        String(row[field] ?? '')
          .toLowerCase()
          .includes(needle),
      ),
    )
    .map((row) => row.id)
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  /** Sends the request while counting statements; a request the parser rejects must send none. */
  async function rejectedWithoutSql(method: Method, path: string, body: unknown, status: number, code: ErrorCode): Promise<RenderedError> {
    const { result: response, count, sql } = await ctx.countQueries(() => send(app, method, path, body))
    const error = expectError(response, status, code)
    expect({ count, sql }).toEqual({ count: 0, sql: [] })
    return error
  }

  describe('collection name in the URL', () => {
    const NAMES = [
      'articles; drop table authors',
      "articles' --",
      'articles"',
      'articles/../authors',
      'articles\u0000',
      'ARTICLES',
      ' articles',
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'sqlite_master',
      'information_schema.tables',
      'pg_catalog.pg_tables',
      '(select * from authors)',
    ]
    const cases = NAMES.flatMap((name) => (['get', 'post', 'patch', 'delete'] as const).map((method): [Method, string] => [method, name]))

    it.each(cases)('%s %j → 404 ROUTE_NOT_FOUND without SQL', async (method, name) => {
      const body = method === 'get' ? undefined : method === 'delete' ? [1] : { title: 'x' }
      await rejectedWithoutSql(method, `/api/items/${encodeURIComponent(name)}`, body, 404, 'ROUTE_NOT_FOUND')
    })

    it.each(NAMES)('GET %j/1 → 404 ROUTE_NOT_FOUND without SQL', async (name) => {
      await rejectedWithoutSql('get', `/api/items/${encodeURIComponent(name)}/1`, undefined, 404, 'ROUTE_NOT_FOUND')
    })

    afterAll(() => expectIntact(ctx))
  })

  describe(':id in the URL', () => {
    const IDS = [
      '1 or 1=1',
      '1; drop table articles',
      "1' --",
      '1)',
      '-1 union select 1',
      '1/**/or/**/1=1',
      '0x1',
      '1e0',
      '1.0',
      ' 1',
      '1\u0000',
      '*',
    ]
    const cases = IDS.flatMap((id) => (['get', 'patch', 'delete'] as const).map((method): [Method, string] => [method, id]))

    it.each(cases)('%s articles/%j → 404 NOT_FOUND without SQL', async (method, id) => {
      await rejectedWithoutSql(
        method,
        `/api/items/articles/${encodeURIComponent(id)}`,
        method === 'patch' ? { title: 'pwned' } : undefined,
        404,
        'NOT_FOUND',
      )
    })

    it.each(["' or ''='", `${seed.samples[0]!.id}' or '1'='1`, `${seed.samples[0]!.id};`])(
      'GET samples/%j (uuid key) → 404 NOT_FOUND without SQL',
      async (id) => {
        await rejectedWithoutSql('get', `/api/items/samples/${encodeURIComponent(id)}`, undefined, 404, 'NOT_FOUND')
      },
    )

    afterAll(async () => {
      await expectIntact(ctx)
      expect(Number((await ctx.knex('articles').where({ title: 'pwned' }).count({ n: '*' }))[0]!.n)).toBe(0)
    })
  })

  describe('fields', () => {
    // [fields, the entry the error must name]
    const FIELDS: Array<[string, string]> = [
      ['title;drop table articles', 'title;drop table articles'],
      ['id desc', 'id desc'],
      ['id,(select 1)', '(select 1)'],
      ['*,(select password_hash from authors)', '(select password_hash from authors)'],
      ['title as id', 'title as id'],
      ['"title"', '"title"'],
      ['title--', 'title--'],
      ['count(*)', 'count(*)'],
      ['id from articles;--', 'id from articles;--'],
      ['authors.password_hash', 'authors'],
      // A hidden field stays hidden behind a relation.
      ['author.password_hash', 'password_hash'],
      ['author.name;drop table authors', 'name;drop table authors'],
    ]

    it.each(FIELDS)('fields=%j → 400 INVALID_QUERY naming %j, without SQL', async (fields, named) => {
      const error = await rejectedWithoutSql(
        'get',
        `/api/items/articles?fields=${encodeURIComponent(fields)}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
      expect(error.extensions.reason).toContain(`"${named}"`)
    })

    it('fields[] array form → 400 without SQL', async () => {
      await rejectedWithoutSql(
        'get',
        `/api/items/articles?fields[]=id&fields[]=${encodeURIComponent('title) --')}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
    })

    it('a hostile fields on a write is refused before anything is written', async () => {
      await rejectedWithoutSql(
        'post',
        `/api/items/articles?fields=${encodeURIComponent('id;drop table articles')}`,
        { title: 'x' },
        400,
        'INVALID_QUERY',
      )
      await expectIntact(ctx)
    })
  })

  describe('sort', () => {
    const SORTS: Array<[string, string]> = [
      ['title;drop table articles', 'title;drop table articles'],
      ['id desc, (select 1)', 'id desc'],
      ['-title; drop table authors', 'title; drop table authors'],
      ['(case when 1=1 then id end)', '(case when 1=1 then id end)'],
      ['1', '1'],
      ['random()', 'random()'],
      ['id asc nulls first', 'id asc nulls first'],
      ['title collate "C"', 'title collate "C"'],
    ]

    it.each(SORTS)('sort=%j → 400 INVALID_QUERY naming %j, without SQL', async (sort, named) => {
      const error = await rejectedWithoutSql('get', `/api/items/articles?sort=${encodeURIComponent(sort)}`, undefined, 400, 'INVALID_QUERY')
      expect(error.extensions.reason).toContain(`"${named}"`)
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('the hidden authors.password_hash', () => {
    it.each([
      'fields=id,password_hash',
      'sort=-password_hash',
      `filter=${encodeURIComponent('{"password_hash":{"_starts_with":"$hash$1"}}')}`,
      'filter[password_hash][_nnull]=true',
      `filter=${encodeURIComponent('{"_or":[{"id":{"_eq":1}},{"password_hash":{"_eq":"x\' or 1=1"}}]}')}`,
    ])('%s → 400 INVALID_QUERY without SQL, like a field that does not exist', async (query) => {
      const error = await rejectedWithoutSql('get', `/api/items/authors?${query}`, undefined, 400, 'INVALID_QUERY')
      expect(error.extensions.reason).toContain('"password_hash"')
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('other query parameters', () => {
    it.each([
      ['limit', '1;drop table articles'],
      ['limit', '1 or 1=1'],
      ['offset', '0) union select 1 --'],
      ['page', "1'--"],
      ['meta', '*;drop table articles'],
      ['meta', 'total_count,(select 1)'],
      ['backlink', "true' --"],
    ])('%s=%j → 400 INVALID_QUERY naming the parameter, without SQL', async (parameter, value) => {
      const error = await rejectedWithoutSql(
        'get',
        `/api/items/articles?${parameter}=${encodeURIComponent(value)}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
      expect(error.extensions.reason).toContain(`"${parameter}"`)
    })

    it('version with a hostile key on a collection without versioning → 404 NOT_FOUND without SQL', async () => {
      await rejectedWithoutSql('get', `/api/items/authors/1?version=${encodeURIComponent("main' or 1=1 --")}`, undefined, 404, 'NOT_FOUND')
    })

    it('version with a hostile key on a versioned collection → 404, the key only ever a bound value', async () => {
      const hostile = "main' or 1=1 --"
      const { result, sql } = await ctx.countQueries(() => request(app).get(`/api/items/articles/1?version=${encodeURIComponent(hostile)}`))
      expect(result.status).toBe(404)
      expect(result.body.errors[0].extensions.code).toBe('NOT_FOUND')
      expect(sql.join('\n')).not.toContain('1=1')
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('filter field names', () => {
    const JSON_FILTERS: Array<[string, unknown]> = [
      ['a statement after the name', { 'title;drop table articles': { _eq: 'x' } }],
      ['an expression as the name', { '1=1) or (1': { _eq: 1 } }],
      ['a quoted name', { 'title" or 1=1 --': { _eq: 'x' } }],
      ['a name inside _and', { _and: [{ 'id; delete from authors': { _eq: 1 } }] }],
      ['a name inside _or', { _or: [{ id: { _eq: 1 } }, { 'id or 1': { _eq: 1 } }] }],
      ['__proto__', JSON.parse('{"__proto__":{"_eq":1}}')],
      ['constructor', { constructor: { _eq: 1 } }],
      ['a table-qualified name', { 'authors.name': { _eq: 'x' } }],
    ]

    it.each(JSON_FILTERS)('JSON filter with %s → 400 INVALID_QUERY without SQL', async (_case, filter) => {
      await rejectedWithoutSql(
        'get',
        `/api/items/articles?filter=${encodeURIComponent(JSON.stringify(filter))}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
    })

    it.each([
      'filter[title;drop table articles][_eq]=x',
      `filter[${encodeURIComponent("title' or '1'='1")}][_eq]=x`,
      'filter[_or][0][id][_eq]=1&filter[_or][1][id%20or%201][_eq]=1',
      `filter[${encodeURIComponent('(select 1)')}]=1`,
    ])('bracket filter %s → 400 INVALID_QUERY without SQL', async (query) => {
      await rejectedWithoutSql('get', `/api/items/articles?${query}`, undefined, 400, 'INVALID_QUERY')
    })

    it('by-query PATCH and DELETE refuse a hostile field name before writing', async () => {
      const query = { filter: { 'id; drop table articles': { _gt: 0 } } }
      await rejectedWithoutSql('patch', '/api/items/articles', { query, data: { rating: 1 } }, 400, 'INVALID_QUERY')
      await rejectedWithoutSql('delete', '/api/items/articles', { query }, 400, 'INVALID_QUERY')
      await expectIntact(ctx)
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('filter operator names', () => {
    const OPERATORS = [
      '_eq;drop table articles',
      '= 1 or 1=1 --',
      '_like',
      '_raw',
      '_regex',
      "_eq' --",
      '$eq',
      '_EQ',
      'eq',
      '_and',
      '__proto__',
    ]

    it.each(OPERATORS)('filter[title][%j] → 400 INVALID_QUERY without SQL', async (operator) => {
      const filter = JSON.parse(`{"title":{${JSON.stringify(operator)}:"x"}}`) as unknown
      await rejectedWithoutSql(
        'get',
        `/api/items/articles?filter=${encodeURIComponent(JSON.stringify(filter))}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
    })

    it.each(OPERATORS.filter((operator) => operator !== '__proto__'))(
      'bracket filter[title][%j] → 400 INVALID_QUERY without SQL',
      async (operator) => {
        await rejectedWithoutSql(
          'get',
          `/api/items/articles?filter[title][${encodeURIComponent(operator)}]=x`,
          undefined,
          400,
          'INVALID_QUERY',
        )
      },
    )

    it('an operator in place of a field → 400 without SQL', async () => {
      await rejectedWithoutSql(
        'get',
        `/api/items/articles?filter=${encodeURIComponent('{"_eq":"1 or 1=1"}')}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('filter values', () => {
    it.each(HOSTILE_VALUES)('title _eq %j is compared as a value: 200, no match', async (value) => {
      const filter = JSON.stringify({ title: { _eq: value } })
      const response = await request(app).get(`/api/items/articles?fields=id&limit=-1&filter=${encodeURIComponent(filter)}`)
      expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { data: [] } })
    })

    it.each(HOSTILE_VALUES)('bracket filter[title][_neq]=%j excludes nothing else: every article matches', async (value) => {
      const response = await request(app).get(`/api/items/articles?fields=id&limit=-1&filter[title][_neq]=${encodeURIComponent(value)}`)
      expect(response.status).toBe(200)
      expect((response.body as { data: unknown[] }).data).toHaveLength(seed.articles.length)
    })

    it.each(['_contains', '_icontains', '_starts_with', '_iends_with', '_ncontains'])(
      'title %s with hostile values matches literally',
      async (operator) => {
        for (const value of HOSTILE_VALUES) {
          const filter = JSON.stringify({ title: { [operator]: value } })
          const response = await request(app).get(`/api/items/articles?fields=id&limit=-1&filter=${encodeURIComponent(filter)}`)
          expect(response.status).toBe(200)
          // No seeded title contains any of these strings.
          const expected = operator === '_ncontains' ? seed.articles.length : 0
          expect([value, (response.body as { data: unknown[] }).data.length]).toEqual([value, expected])
        }
      },
    )

    it.each([
      ['%', [58, 73]],
      ['_', [88, 117]],
      ['100%', [58]],
      ['\\', []],
      ['*', []],
      ['[', []],
      ['?', []],
    ] as Array<[string, number[]]>)('title _contains %j treats wildcard characters literally', async (value, ids) => {
      const filter = JSON.stringify({ title: { _contains: value } })
      const response = await request(app).get(`/api/items/articles?fields=id&limit=-1&filter=${encodeURIComponent(filter)}`)
      expect(response.body).toEqual({ data: ids.map((id) => ({ id })) })
      // The expectation is the seed's own answer, not a guess.
      expect(seed.articles.filter((article) => article.title.includes(value)).map((article) => article.id)).toEqual(ids)
    })

    it('a hostile entry in an _in list does not widen the match', async () => {
      const filter = JSON.stringify({ title: { _in: ["' or 1=1 --", seed.articles[6]!.title, '") or ("1"="1'] } })
      const response = await request(app).get(`/api/items/articles?fields=id,title&filter=${encodeURIComponent(filter)}`)
      expect(response.body).toEqual({ data: [{ id: 7, title: seed.articles[6]!.title }] })
    })

    it('a comma-separated _in list with quotes is split into plain values', async () => {
      const response = await request(app).get(
        `/api/items/articles?fields=id&filter[status][_in]=${encodeURIComponent("draft','published")}`,
      )
      expect(response.body).toEqual({ data: [] })
    })

    it.each([
      ['rating _eq', { rating: { _eq: '1 or 1=1' } }],
      ['rating _gt', { rating: { _gt: '0; drop table articles' } }],
      ['id _in', { id: { _in: ['1', '2) or (1=1'] } }],
      ['id _in as text', { id: { _in: '1,2) or (1=1' } }],
      ['id _nin', { id: { _nin: ["1' --"] } }],
      ['id _between', { id: { _between: ['1', '2 or 1=1'] } }],
      ['published_at _gte', { published_at: { _gte: "2024-01-01' or '1'='1" } }],
      ['author _eq', { author: { _eq: '1 union select 1' } }],
      ['title _eq object', { title: { _eq: { raw: '1=1' } } }],
      ['title _in nested list', { title: { _in: [['a']] } }],
      ['samples.id _eq', { id: { _eq: "' or ''='" } }],
    ])('%s with a non-value → 400 INVALID_QUERY without SQL', async (_case, filter) => {
      const collection = _case.startsWith('samples') ? 'samples' : 'articles'
      await rejectedWithoutSql(
        'get',
        `/api/items/${collection}?filter=${encodeURIComponent(JSON.stringify(filter))}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
    })

    it('a NUL byte in a filter value is never a 500 (no row matches, or the value is refused)', async () => {
      const filter = JSON.stringify({ title: { _eq: 'Über\u0000 alles' } })
      const response = await request(app).get(`/api/items/articles?fields=id&filter=${encodeURIComponent(filter)}`)
      if (response.status === 200) expect(response.body).toEqual({ data: [] })
      else expectError(response, 400, 'INVALID_QUERY')
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('search', () => {
    const ARTICLE_TERMS = ["'", '"', "' or 1=1 --", '%', '_', '\\', "%' --", '\\%', '*', '[a]', '?', '; drop table articles', '$1']

    it.each(ARTICLE_TERMS)('articles search=%j matches the term literally', async (term) => {
      const response = await request(app).get(`/api/items/articles?fields=id&limit=-1&search=${encodeURIComponent(term)}`)
      expect(response.status).toBe(200)
      expect((response.body as { data: Array<{ id: number }> }).data.map((item) => item.id)).toEqual(
        searchIds(seed.articles, ['title', 'status'], term),
      )
    })

    it.each(["'", '"', "O'Brien", "' or '1'='1", '%', '_', '\\', '$hash', 'secret'])(
      'authors search=%j matches visible fields literally',
      async (term) => {
        const response = await request(app).get(`/api/items/authors?fields=id&limit=-1&search=${encodeURIComponent(term)}`)
        expect(response.status).toBe(200)
        // password_hash is hidden, so `$hash` and `secret` (which only it contains) find nothing.
        expect((response.body as { data: Array<{ id: number }> }).data.map((item) => item.id)).toEqual(
          searchIds(seed.authors, ['name', 'email', 'bio'], term),
        )
      },
    )

    it('the quote-bearing author is found by a quote', async () => {
      const response = await request(app).get(`/api/items/authors?fields=id,name&search=${encodeURIComponent("o'brien")}`)
      expect(response.body).toEqual({ data: [{ id: 19, name: "Seán O'Brien" }] })
    })

    it('search combined with a hostile filter field is still refused without SQL', async () => {
      await rejectedWithoutSql(
        'get',
        `/api/items/articles?search=x&filter=${encodeURIComponent('{"title)--":{"_eq":"x"}}')}`,
        undefined,
        400,
        'INVALID_QUERY',
      )
    })

    it('a NUL byte in the search term is never a 500', async () => {
      const response = await request(app).get(`/api/items/articles?fields=id&search=${encodeURIComponent('a\u0000b')}`)
      if (response.status === 200) expect(response.body).toEqual({ data: [] })
      else expectError(response, 400, 'INVALID_QUERY')
    })

    afterAll(() => expectIntact(ctx))
  })

  describe('payload field names', () => {
    const NAMES = [
      'title; drop table articles',
      'id) values (1); drop table articles; --',
      "title\" = 'x' where 1=1; --",
      'title`',
      'authors.name',
      'constructor',
      'toString',
    ]

    it.each(NAMES)('POST with field %j → 400 FAILED_VALIDATION naming it, without SQL', async (name) => {
      const { result: response, count } = await ctx.countQueries(() =>
        send(app, 'post', '/api/items/articles', { title: 'Legit', [name]: 1 }),
      )
      const error = expectError(response, 400, 'FAILED_VALIDATION')
      expect(error.extensions).toMatchObject({ field: name, collection: 'articles' })
      expect(count).toBe(0)
    })

    it('POST with a __proto__ key → 400 FAILED_VALIDATION without SQL', async () => {
      const { result: response, count } = await ctx.countQueries(() =>
        request(app).post('/api/items/articles').set('Content-Type', 'application/json').send('{"title":"Legit","__proto__":{"id":1}}'),
      )
      expect(expectError(response, 400, 'FAILED_VALIDATION').extensions).toMatchObject({ field: '__proto__' })
      expect(count).toBe(0)
    })

    it.each(NAMES)('PATCH one, by keys and by array with field %j → 400 without SQL', async (name) => {
      for (const [path, body] of [
        ['/api/items/articles/1', { [name]: 'x' }],
        ['/api/items/articles', { keys: [1], data: { [name]: 'x' } }],
        ['/api/items/articles', [{ id: 1, [name]: 'x' }]],
        ['/api/items/articles', { query: { filter: { id: { _eq: 1 } } }, data: { [name]: 'x' } }],
      ] as Array<[string, unknown]>) {
        await rejectedWithoutSql('patch', path, body, 400, 'FAILED_VALIDATION')
      }
    })

    it('POST with a non-integer hostile value for an integer field → 400 FAILED_VALIDATION', async () => {
      const { result: response, count } = await ctx.countQueries(() =>
        send(app, 'post', '/api/items/articles', { title: 'Legit', rating: '1; drop table articles', author: '1 or 1=1' }),
      )
      expect(response.status).toBe(400)
      const fields = (response.body as { errors: Array<{ extensions: { code: string; field: string } }> }).errors.map((error) => [
        error.extensions.code,
        error.extensions.field,
      ])
      expect(fields.sort()).toEqual([
        ['FAILED_VALIDATION', 'author'],
        ['FAILED_VALIDATION', 'rating'],
      ])
      expect(count).toBe(0)
    })

    afterAll(async () => {
      await expectIntact(ctx)
      const [row] = await ctx.knex('articles').where({ id: 1 }).select('title')
      expect(row.title).toBe(seed.articles[0]!.title)
    })
  })

  describe('keys in writes', () => {
    const KEYS: Array<[string, unknown]> = [
      ['a text key', ['1 or 1=1']],
      ['a statement key', ['1; drop table articles']],
      ['a good and a hostile key', [1, '2) or (1=1']],
      ['an object key', [{ '1': 1 }]],
      ['a nested list', [[1, 2]]],
      ['a boolean key', [true]],
      ['a fractional key', [1.5]],
      ['a null key', [null]],
    ]

    it.each(KEYS)('DELETE with %s (array form) → 400 INVALID_PAYLOAD without SQL', async (_case, keys) => {
      await rejectedWithoutSql('delete', '/api/items/articles', keys, 400, 'INVALID_PAYLOAD')
    })

    it.each(KEYS)('DELETE with %s ({ keys }) → 400 INVALID_PAYLOAD without SQL', async (_case, keys) => {
      await rejectedWithoutSql('delete', '/api/items/articles', { keys }, 400, 'INVALID_PAYLOAD')
    })

    it.each(KEYS)('PATCH with %s ({ keys, data }) → 400 INVALID_PAYLOAD without SQL', async (_case, keys) => {
      await rejectedWithoutSql('patch', '/api/items/articles', { keys, data: { rating: 1 } }, 400, 'INVALID_PAYLOAD')
    })

    it.each([
      ['keys as a comma string', { keys: '1,2' }],
      ['keys as an SQL string', { keys: '1 or 1=1' }],
    ])('DELETE with %s → 400 INVALID_PAYLOAD without SQL', async (_case, body) => {
      await rejectedWithoutSql('delete', '/api/items/articles', body, 400, 'INVALID_PAYLOAD')
    })

    it('PATCH array form with a hostile key → 400 INVALID_PAYLOAD without SQL', async () => {
      await rejectedWithoutSql('patch', '/api/items/articles', [{ id: '1 or 1=1', rating: 1 }], 400, 'INVALID_PAYLOAD')
    })

    it('DELETE on a uuid collection with a hostile key → 400 INVALID_PAYLOAD without SQL', async () => {
      await rejectedWithoutSql('delete', '/api/items/samples', { keys: ["' or ''='"] }, 400, 'INVALID_PAYLOAD')
      expect(Number((await ctx.knex('samples').count({ n: '*' }))[0]!.n)).toBe(seed.samples.length)
    })

    afterAll(async () => {
      await expectIntact(ctx)
      const ratings = await ctx.knex('articles').orderBy('id').pluck('rating')
      expect(ratings).toEqual(seed.articles.map((article) => article.rating))
    })
  })

  describe('hostile values are stored and read back verbatim', () => {
    beforeEach(() => ctx.reset())

    it.each(HOSTILE_VALUES)('POST title %j round-trips and matches only itself', async (title) => {
      const created = await request(app)
        .post('/api/items/articles?fields=id,title,tags')
        .send({ title, tags: [title, 'news'] })
      expect(created.status).toBe(200)
      const id = SEEDED.articles + 1
      expect(created.body).toEqual({ data: { id, title, tags: [title, 'news'] } })

      const read = await request(app).get(`/api/items/articles/${id}?fields=title,tags`)
      expect(read.body).toEqual({ data: { title, tags: [title, 'news'] } })

      const filter = JSON.stringify({ title: { _eq: title } })
      const found = await request(app).get(`/api/items/articles?fields=id&filter=${encodeURIComponent(filter)}`)
      expect(found.body).toEqual({ data: [{ id }] })
      await expectIntact(ctx, { ...SEEDED, articles: SEEDED.articles + 1 })
    })

    it('POST an author whose every text field is hostile', async () => {
      const author = { name: "Robert'); DROP TABLE authors;--", email: "x@y.z' or '1'='1", bio: '"; delete from articles; --\\' }
      const response = await request(app).post('/api/items/authors?fields=name,email,bio').send(author)
      expect(response.body).toEqual({ data: author })
      await expectIntact(ctx, { ...SEEDED, authors: SEEDED.authors + 1 })
    })

    it('PATCH one item with a hostile value changes that item only', async () => {
      const title = "x' where 1=1; update articles set title='pwned' --"
      const response = await request(app).patch('/api/items/articles/5?fields=id,title').send({ title })
      expect(response.body).toEqual({ data: { id: 5, title } })
      const titles = await ctx.knex('articles').orderBy('id').pluck('title')
      expect(titles).toEqual(seed.articles.map((article) => (article.id === 5 ? title : article.title)))
    })

    it('PATCH by keys with a hostile value changes those items only', async () => {
      const status = "'; drop --"
      const response = await request(app)
        .patch('/api/items/articles?fields=id,status')
        .send({ keys: [2, 3], data: { status } })
      expect(response.body).toEqual({
        data: [
          { id: 2, status },
          { id: 3, status },
        ],
      })
      const statuses = await ctx.knex('articles').orderBy('id').pluck('status')
      expect(statuses).toEqual(seed.articles.map((article) => ([2, 3].includes(article.id) ? status : article.status)))
    })

    it('by-query PATCH and DELETE with a hostile filter value match nothing and change nothing', async () => {
      const query = { filter: { title: { _eq: "' or 1=1 --" } } }
      const patched = await request(app)
        .patch('/api/items/articles')
        .send({ query, data: { rating: 1 } })
      expect({ status: patched.status, body: patched.body as unknown }).toEqual({ status: 200, body: { data: [] } })
      const deleted = await request(app)
        .delete('/api/items/articles')
        .send({ query: { ...query, search: "%' or '1'='1" } })
      expect(deleted.status).toBe(204)
      await expectIntact(ctx)
      expect(await ctx.knex('articles').orderBy('id').pluck('rating')).toEqual(seed.articles.map((article) => article.rating))
    })

    it('a NUL byte in a payload value is stored verbatim or refused, never a 500', async () => {
      const title = 'before\u0000after'
      const response = await request(app).post('/api/items/articles?fields=title').send({ title })
      if (response.status === 200) {
        expect(response.body).toEqual({ data: { title } })
        await expectIntact(ctx, { ...SEEDED, articles: SEEDED.articles + 1 })
      } else {
        expect(response.status).toBe(400)
        expect(['FAILED_VALIDATION', 'INVALID_PAYLOAD']).toContain(
          (response.body as { errors: Array<{ extensions: { code: string } }> }).errors[0]!.extensions.code,
        )
        await expectIntact(ctx)
      }
    })
  })
})
