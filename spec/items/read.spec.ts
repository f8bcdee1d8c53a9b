// GET /items/:collection and /items/:collection/:id answer the same pages, fields, orders, counts and errors on every database.
import express, { type Express } from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { AUTHOR_WITHOUT_ARTICLES, seed, type ArticleRow, type AuthorRow } from '../../fixtures/seed'
import { createItemsRouter } from '../../lib'
import { createApp, recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectError, getInvalidQuery } from '../support/expect-error'

type Body = { data?: unknown; meta?: unknown; errors?: Array<{ message: string; extensions: Record<string, unknown> }> }

const ids = (rows: ReadonlyArray<{ id: number }>): number[] => rows.map((row) => row.id)

/** Article ids of the children pointing at `id`, in child primary-key order. */
function childKeys(rows: ReadonlyArray<{ id: number; article: number }>, id: number): number[] {
  return rows
    .filter((row) => row.article === id)
    .map((row) => row.id)
    .sort((a, b) => a - b)
}

/** An article exactly as `fields=*` must answer it: seed columns plus the o2m aliases as child keys. */
function articleJson(row: ArticleRow): Record<string, unknown> {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    rating: row.rating,
    published_at: row.published_at,
    tags: row.tags,
    author: row.author,
    parent: row.parent,
    comments: childKeys(seed.comments, row.id),
    topics: childKeys(seed.article_topics, row.id),
  }
}

function authorJson(row: AuthorRow): Record<string, unknown> {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    bio: row.bio,
    articles: seed.articles.filter((article) => article.author === row.id).map((article) => article.id),
  }
}

const article = (id: number): ArticleRow => {
  const row = seed.articles.find((candidate) => candidate.id === id)
  if (!row) throw new Error(`seed has no article ${id}`)
  return row
}

const isInteger = (term: string): boolean => /^[+-]?\d+$/.test(term.trim())
const includesFolded = (value: string | null, term: string): boolean => value !== null && value.toLowerCase().includes(term.toLowerCase())

/** The search rule on articles: substring in string fields, equality on number fields when the term is a number. */
function articleMatchesSearch(row: ArticleRow, term: string): boolean {
  if (includesFolded(row.title, term) || includesFolded(row.status, term)) return true
  if (!isInteger(term)) return false
  const number = Number(term)
  return [row.id, row.rating, row.author, row.parent].includes(number)
}

function authorMatchesSearch(row: AuthorRow, term: string): boolean {
  if ([row.name, row.email, row.bio].some((value) => includesFolded(value, term))) return true
  return isInteger(term) && row.id === Number(term)
}

/** NULLs first ascending and last descending, then the primary key ascending: the order on every database. */
function compareNullable<T extends number | string>(a: T | null, b: T | null, direction: 'asc' | 'desc'): number {
  if (a === b) return 0
  if (a === null) return direction === 'asc' ? -1 : 1
  if (b === null) return direction === 'asc' ? 1 : -1
  const order = a < b ? -1 : 1
  return direction === 'asc' ? order : -order
}

function sortedArticles(
  rows: readonly ArticleRow[],
  keys: ReadonlyArray<[keyof ArticleRow & ('rating' | 'published_at' | 'status' | 'title'), 'asc' | 'desc']>,
): ArticleRow[] {
  return [...rows].sort((a, b) => {
    for (const [key, direction] of keys) {
      const order = compareNullable(a[key], b[key], direction)
      if (order !== 0) return order
    }
    return a.id - b.id
  })
}

/** Titles at ids above 150 are all "Adjective noun" in plain ASCII: every collation orders them alike. */
const PLAIN_TITLE_FILTER = 'filter[id][_gt]=150'
const plainTitleArticles = seed.articles.filter((row) => row.id > 150)

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })
  const get = (url: string): request.Test => request(app).get(url)
  const data = (response: request.Response): Array<Record<string, unknown>> => {
    expect(response.status).toBe(200)
    return (response.body as Body).data as Array<Record<string, unknown>>
  }

  describe('GET /items/:collection — envelope and page size', () => {
    it('answers the first 100 articles by primary key, all fields, without meta', async () => {
      const response = await get('/api/items/articles')
      expect(response.status).toBe(200)
      expect(Object.keys(response.body as object)).toEqual(['data'])
      expect(response.body).toEqual({ data: seed.articles.slice(0, 100).map(articleJson) })
    })

    it('renders every article identically (the cross-database JSON rules)', async () => {
      const response = await get('/api/items/articles?limit=-1')
      expect(data(response)).toEqual(seed.articles.map(articleJson))
    })

    it('answers every author without the hidden field, o2m aliases as keys', async () => {
      const response = await get('/api/items/authors?limit=-1')
      const items = data(response)
      expect(items).toEqual(seed.authors.map(authorJson))
      for (const item of items) expect(Object.keys(item)).toEqual(['id', 'name', 'email', 'bio', 'articles'])
      expect(items.find((item) => item.id === AUTHOR_WITHOUT_ARTICLES)!.articles).toEqual([])
    })

    it('ignores unknown parameters', async () => {
      const response = await get('/api/items/articles?foo=bar&limit=2&fields=id&x[y]=z&_limit=1')
      expect(response.body).toEqual({ data: [{ id: 1 }, { id: 2 }] })
    })
  })

  describe('limit, offset and page', () => {
    it.each<[string, number[]]>([
      ['limit=0', []],
      ['limit=3', [1, 2, 3]],
      ['limit=1&offset=299', [300]],
      ['offset=295', [296, 297, 298, 299, 300]],
      ['offset=300', []],
      ['offset=5000', []],
      ['limit=3&offset=0', [1, 2, 3]],
      ['limit=10&page=2', [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]],
      ['limit=3&page=1', [1, 2, 3]],
      ['limit=3&page=0', [1, 2, 3]],
      ['limit=3&page=100', [298, 299, 300]],
      ['limit=3&page=101', []],
      ['limit=3&page=2&offset=100', [4, 5, 6]],
    ])('%s', async (query, expected) => {
      const response = await get(`/api/items/articles?fields=id&${query}`)
      expect(data(response)).toEqual(expected.map((id) => ({ id })))
    })

    it('limit=-1 answers all 300 articles', async () => {
      const response = await get('/api/items/articles?fields=id&limit=-1')
      expect(data(response)).toEqual(ids(seed.articles).map((id) => ({ id })))
      expect(seed.articles).toHaveLength(300)
    })

    it('page=3 uses the default page size of 100', async () => {
      const response = await get('/api/items/articles?fields=id&page=3')
      expect(data(response)).toEqual(
        ids(seed.articles)
          .slice(200, 300)
          .map((id) => ({ id })),
      )
    })

    it.each<[string, string]>([
      ['limit=abc', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=-5', 'limit'],
      ['limit=-2', 'limit'],
      ['limit=1e2', 'limit'],
      ['limit=99999999999999999999', 'limit'],
      ['limit=2147483648', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=abc', 'offset'],
      ['offset=1.5', 'offset'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
    ])('%s → 400 INVALID_QUERY', async (query, parameter) => {
      await getInvalidQuery(ctx, app, `/api/items/articles?${query}`, [`"${parameter}"`])
    })

    describe('with a maxLimit option', () => {
      let capped: Express
      beforeAll(() => {
        capped = createApp(ctx.knex, { maxLimit: 150 })
      })

      it('keeps the default page size below the cap', async () => {
        const response = await request(capped).get('/api/items/articles?fields=id')
        expect(data(response)).toHaveLength(100)
      })

      it('accepts a limit equal to the cap', async () => {
        const response = await request(capped).get('/api/items/articles?fields=id&limit=150')
        expect(data(response)).toEqual(
          ids(seed.articles)
            .slice(0, 150)
            .map((id) => ({ id })),
        )
      })

      it('caps limit=-1 to maxLimit', async () => {
        const response = await request(capped).get('/api/items/articles?fields=id&limit=-1')
        expect(data(response)).toEqual(
          ids(seed.articles)
            .slice(0, 150)
            .map((id) => ({ id })),
        )
      })

      it('refuses a larger limit with 400 INVALID_QUERY', async () => {
        await getInvalidQuery(ctx, capped, '/api/items/articles?limit=151', ['"limit"'])
      })
    })
  })

  describe('fields', () => {
    it.each<[string, string[]]>([
      ['fields=id,title', ['id', 'title']],
      ['fields=title,id', ['title', 'id']],
      ['fields[]=rating&fields[]=id', ['rating', 'id']],
      ['fields=status&fields=id', ['status', 'id']],
      ['fields=author,comments,id', ['author', 'comments', 'id']],
    ])('%s answers exactly those keys in request order', async (query, keys) => {
      const response = await get(`/api/items/articles?${query}&limit=5`)
      const items = data(response)
      const expected = seed.articles.slice(0, 5).map((row) => {
        const full = articleJson(row)
        return Object.fromEntries(keys.map((key) => [key, full[key]]))
      })
      expect(items).toEqual(expected)
      for (const item of items) expect(Object.keys(item)).toEqual(keys)
    })

    it('fields=* answers every visible field in definition order', async () => {
      const response = await get('/api/items/articles?fields=*&limit=1')
      expect(Object.keys(data(response)[0]!)).toEqual(Object.keys(collections.articles.fields))
      expect(data(response)).toEqual([articleJson(article(1))])
    })

    it('o2m aliases answer every article’s child keys, [] when it has none', async () => {
      const response = await get('/api/items/articles?fields=id,comments,topics&limit=-1')
      const expected = seed.articles.map((row) => ({
        id: row.id,
        comments: childKeys(seed.comments, row.id),
        topics: childKeys(seed.article_topics, row.id),
      }))
      expect(data(response)).toEqual(expected)
      // The seed must exercise both cases for this to prove anything.
      expect(expected.some((row) => row.comments.length === 0)).toBe(true)
      expect(expected.some((row) => row.comments.length > 1)).toBe(true)
      expect(expected.some((row) => row.topics.length === 0)).toBe(true)
    })

    it('an author without articles answers articles: []', async () => {
      const response = await get(`/api/items/authors/${AUTHOR_WITHOUT_ARTICLES}?fields=id,articles`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: AUTHOR_WITHOUT_ARTICLES, articles: [] } })
    })

    it.each<[string, string, string]>([
      ['unknown field', '/api/items/articles?fields=id,nope', '"nope"'],
      ['unknown field in array form', '/api/items/articles?fields[]=id&fields[]=nope', '"nope"'],
      ['hidden field, like an unknown one', '/api/items/authors?fields=password_hash', '"password_hash"'],
      ['hidden field next to *', '/api/items/authors?fields=*,password_hash', '"password_hash"'],
      ['unknown segment of a relational path', '/api/items/articles?fields=author.nope', '"nope"'],
      ['hidden field behind a relation', '/api/items/articles?fields=author.password_hash', '"password_hash"'],
      ['a path through a field that is not a relation', '/api/items/articles?fields=title.length', '"title.length"'],
      ['unknown field on one item', '/api/items/articles/1?fields=nope', '"nope"'],
    ])('%s → 400 INVALID_QUERY naming it', async (_label, url, mention) => {
      await getInvalidQuery(ctx, app, url, [mention])
    })

    it('answers a hidden field exactly as it answers a field that does not exist', async () => {
      const hidden = await get('/api/items/authors?fields=password_hash')
      const missing = await get('/api/items/authors?fields=no_such_field')
      expect(hidden.body).toEqual(JSON.parse(JSON.stringify(missing.body).replaceAll('no_such_field', 'password_hash')) as unknown)
    })
  })

  describe('sort', () => {
    const project = (rows: readonly ArticleRow[], keys: Array<keyof ArticleRow>): Array<Record<string, unknown>> =>
      rows.map((row) => Object.fromEntries(keys.map((key) => [key, row[key]])))

    it.each<[string, string]>([
      ['comma list', 'sort=-rating,title'],
      ['array form', 'sort[]=-rating&sort[]=title'],
    ])('%s: -rating then title, NULL ratings last', async (_label, sort) => {
      const response = await get(`/api/items/articles?${sort}&${PLAIN_TITLE_FILTER}&fields=id,rating,title&limit=-1`)
      const expected = sortedArticles(plainTitleArticles, [
        ['rating', 'desc'],
        ['title', 'asc'],
      ])
      expect(data(response)).toEqual(project(expected, ['id', 'rating', 'title']))
      expect(plainTitleArticles.some((row) => row.rating === null)).toBe(true)
    })

    it.each<[string, 'rating' | 'published_at' | 'status', 'asc' | 'desc']>([
      ['sort=rating', 'rating', 'asc'],
      ['sort=-rating', 'rating', 'desc'],
      ['sort=published_at', 'published_at', 'asc'],
      ['sort=-published_at', 'published_at', 'desc'],
      ['sort=status', 'status', 'asc'],
      ['sort=-status', 'status', 'desc'],
    ])('%s: NULLs first ascending, last descending, ties by primary key', async (query, key, direction) => {
      const response = await get(`/api/items/articles?${query}&fields=id,${key}&limit=-1`)
      expect(data(response)).toEqual(project(sortedArticles(seed.articles, [[key, direction]]), ['id', key]))
    })

    it.each<[string, 'asc' | 'desc']>([
      ['sort=email', 'asc'],
      ['sort=-email', 'desc'],
    ])('%s puts authors without an email first ascending, last descending', async (query, direction) => {
      const response = await get(`/api/items/authors?${query}&fields=id,email&limit=-1`)
      const items = data(response)
      const nullIds = seed.authors.filter((row) => row.email === null).map((row) => row.id)
      const nulls = items.filter((item) => item.email === null).map((item) => item.id)
      expect(nulls).toEqual(nullIds)
      const positions = direction === 'asc' ? items.slice(0, nullIds.length) : items.slice(-nullIds.length)
      expect(positions.map((item) => item.id)).toEqual(nullIds)
      expect(items).toHaveLength(seed.authors.length)
    })

    it('-id reverses the default order', async () => {
      const response = await get('/api/items/articles?sort=-id&fields=id&limit=3')
      expect(data(response)).toEqual([{ id: 300 }, { id: 299 }, { id: 298 }])
    })

    it('pages of 7 concatenate to the one big list (primary key tiebreaker)', async () => {
      const all = data(await get('/api/items/articles?sort=-rating&fields=id,rating&limit=-1'))
      const pages: Array<Record<string, unknown>> = []
      for (let page = 1; page <= Math.ceil(all.length / 7); page++) {
        pages.push(...data(await get(`/api/items/articles?sort=-rating&fields=id,rating&limit=7&page=${page}`)))
      }
      expect(pages).toEqual(all)
      expect(all).toEqual(project(sortedArticles(seed.articles, [['rating', 'desc']]), ['id', 'rating']))
    })

    it('offset pages over a tied sort are stable too', async () => {
      const all = data(await get('/api/items/articles?sort=status&fields=id&limit=-1'))
      const pages: Array<Record<string, unknown>> = []
      for (let offset = 0; offset < all.length; offset += 7) {
        pages.push(...data(await get(`/api/items/articles?sort=status&fields=id&limit=7&offset=${offset}`)))
      }
      expect(pages).toEqual(all)
    })

    it.each<[string, string, string]>([
      ['unknown field', '/api/items/articles?sort=nope', '"nope"'],
      ['unknown descending field', '/api/items/articles?sort=-nope', '"nope"'],
      ['hidden field', '/api/items/authors?sort=password_hash', '"password_hash"'],
      ['json field', '/api/items/articles?sort=tags', '"tags"'],
      ['o2m alias', '/api/items/articles?sort=comments', '"comments"'],
      ['unknown field in array form', '/api/items/articles?sort[]=id&sort[]=nope', '"nope"'],
    ])('%s → 400 INVALID_QUERY naming it', async (_label, url, mention) => {
      await getInvalidQuery(ctx, app, url, [mention])
    })
  })

  describe('meta', () => {
    const drafts = seed.articles.filter((row) => row.status === 'draft')

    it.each<[string, Record<string, number>]>([
      ['meta=total_count', { total_count: 300 }],
      ['meta=filter_count', { filter_count: 300 }],
      ['meta=*', { total_count: 300, filter_count: 300 }],
      ['meta=total_count,filter_count', { total_count: 300, filter_count: 300 }],
      ['meta[]=filter_count&meta[]=total_count', { total_count: 300, filter_count: 300 }],
      ['meta=total_count&filter[status][_eq]=draft', { total_count: 300 }],
      ['meta=filter_count&filter[status][_eq]=draft', { filter_count: drafts.length }],
      ['meta=*&filter[status][_eq]=draft', { total_count: 300, filter_count: drafts.length }],
    ])('%s', async (query, meta) => {
      const response = await get(`/api/items/articles?fields=id&limit=1&${query}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expect.any(Array), meta })
      for (const value of Object.values((response.body as Body).meta as object)) expect(typeof value).toBe('number')
    })

    it('filter_count counts filter and search together, independent of the page', async () => {
      const matching = seed.articles.filter((row) => row.status === 'published' && articleMatchesSearch(row, 'river'))
      const response = await get('/api/items/articles?meta=*&filter[status][_eq]=published&search=river&fields=id&limit=2&offset=1')
      expect(response.body).toEqual({
        data: ids(matching)
          .slice(1, 3)
          .map((id) => ({ id })),
        meta: { total_count: 300, filter_count: matching.length },
      })
      expect(matching.length).toBeGreaterThan(3)
    })

    it('counts even when limit=0 answers no items', async () => {
      const response = await get('/api/items/authors?meta=*&limit=0')
      expect(response.body).toEqual({ data: [], meta: { total_count: 20, filter_count: 20 } })
    })

    it('meta= (empty) asks for nothing', async () => {
      const response = await get('/api/items/articles?meta=&fields=id&limit=1')
      expect(response.body).toEqual({ data: [{ id: 1 }] })
    })

    it.each<[string]>([['meta=bogus'], ['meta=total_count,bogus'], ['meta[a]=b']])('%s → 400 INVALID_QUERY', async (query) => {
      await getInvalidQuery(ctx, app, `/api/items/articles?${query}`, ['"meta"'])
    })
  })

  describe('search', () => {
    const searchIds = async (url: string): Promise<unknown[]> => data(await get(url)).map((item) => item.id)

    it.each<[string, string]>([
      ['lower-case term, both cases of the umlaut', 'über'],
      ['upper-case term', 'Über'],
      ['ASCII folding is not accent folding', 'UBER'],
      ['ASCII case folding', 'RIVER'],
      ['substring inside a word', 'arde'],
      ['literal percent', '%'],
      ['literal underscore', '_'],
      ['percent inside a term', '0% o'],
      ['emoji', '🚀'],
      ['ß is not ss', 'straße'],
      ['status field', 'archived'],
      ['number: equality on id, rating, author and parent', '3'],
      ['number that also matches titles', '100'],
    ])('articles: %s (search=%s)', async (_label, term) => {
      const expected = ids(seed.articles.filter((row) => articleMatchesSearch(row, term)))
      const found = await searchIds(`/api/items/articles?fields=id&limit=-1&search=${encodeURIComponent(term)}`)
      expect(found).toEqual(expected)
      expect(expected.length).toBeGreaterThan(0)
    })

    it('über matches exactly the two umlaut titles', async () => {
      expect(await searchIds('/api/items/articles?fields=id&limit=-1&search=%C3%BCber')).toEqual([7, 19])
      expect(await searchIds('/api/items/articles?fields=id&limit=-1&search=%C3%9Cber')).toEqual([7, 19])
    })

    it('search=% does not match everything', async () => {
      const found = await searchIds('/api/items/articles?fields=id&limit=-1&search=%25')
      expect(found).toEqual([58, 73])
    })

    it('search=_ matches only titles with an underscore', async () => {
      expect(await searchIds('/api/items/articles?fields=id&limit=-1&search=_')).toEqual([88, 117])
    })

    it('an empty search= means no search', async () => {
      expect(await searchIds('/api/items/articles?fields=id&search=')).toEqual(ids(seed.articles).slice(0, 100))
    })

    it('a term matching nothing answers []', async () => {
      expect(await searchIds('/api/items/articles?fields=id&search=zzzz-nothing')).toEqual([])
    })

    it('is AND-ed with the filter', async () => {
      const expected = ids(seed.articles.filter((row) => row.status === 'draft' && articleMatchesSearch(row, 'e')))
      const found = await searchIds('/api/items/articles?fields=id&limit=-1&search=e&filter[status][_eq]=draft')
      expect(found).toEqual(expected)
      expect(await searchIds('/api/items/articles?fields=id&search=%C3%BCber&filter[id][_eq]=19')).toEqual([19])
      expect(await searchIds('/api/items/articles?fields=id&search=%C3%BCber&filter[id][_eq]=20')).toEqual([])
    })

    it('an author id finds that author (numeric equality)', async () => {
      const expected = ids(seed.authors.filter((row) => authorMatchesSearch(row, '5')))
      expect(expected).toEqual([5])
      expect(await searchIds('/api/items/authors?fields=id&limit=-1&search=5')).toEqual(expected)
    })

    it.each<[string, string]>([
      ['unicode in a name', 'ångström'],
      ['unicode in a bio', 'CAFÉ'],
      ['mixed-case email', 'carla.nunez@example'],
      ['quote in a bio', "'"],
      ['literal % in a bio', '100%'],
    ])('authors: %s (search=%s)', async (_label, term) => {
      const expected = ids(seed.authors.filter((row) => authorMatchesSearch(row, term)))
      expect(expected.length).toBeGreaterThan(0)
      expect(await searchIds(`/api/items/authors?fields=id&limit=-1&search=${encodeURIComponent(term)}`)).toEqual(expected)
    })

    it('never looks inside the hidden password_hash', async () => {
      // Every hash contains these; no visible field does.
      for (const term of ['secret', '$hash$']) {
        expect(seed.authors.every((row) => row.password_hash.includes(term))).toBe(true)
        expect(seed.authors.filter((row) => authorMatchesSearch(row, term))).toEqual([])
        expect(await searchIds(`/api/items/authors?fields=id&limit=-1&search=${encodeURIComponent(term)}`)).toEqual([])
      }
    })

    it.each<[string, string, (row: (typeof seed.samples)[number]) => boolean]>([
      ['a uuid matches the primary key', '0b9e6f4a-1c2d-4e5f-8a9b-000000000004', (row) => row.id.endsWith('0004')],
      ['an upper-case uuid matches too', '0B9E6F4A-1C2D-4E5F-8A9B-000000000004', (row) => row.id.endsWith('0004')],
      ['a uuid matches a uuid field', '7d444840-9dc0-11d1-b245-5ffdce74fad2', (row) => row.ref === '7d444840-9dc0-11d1-b245-5ffdce74fad2'],
      ['an integer matches integer and bigInteger fields', '42', (row) => row.count === 42 || row.big === '42'],
      ['a fraction matches float fields', '0.5', (row) => row.ratio === 0.5],
      ['a fraction matches decimal fields', '12.50', (row) => row.price === '12.50'],
      ['text matches label and body', 'über', (row) => includesFolded(row.label, 'über') || includesFolded(row.body, 'über')],
    ])('samples: %s', async (_label, term, predicate) => {
      const expected = seed.samples.filter(predicate).map((row) => row.id)
      expect(expected.length).toBeGreaterThan(0)
      const found = data(await get(`/api/items/samples?fields=id&limit=-1&search=${encodeURIComponent(term)}`))
      expect(found.map((item) => item.id)).toEqual(expected)
    })
  })

  describe('GET /items/:collection/:id', () => {
    it('answers one article as an object', async () => {
      const response = await get('/api/items/articles/1')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: articleJson(article(1)) })
    })

    it('answers an article with children, parent and NULLs exactly', async () => {
      const row =
        seed.articles.find((candidate) => candidate.parent !== null && candidate.rating === null) ??
        seed.articles.find((candidate) => candidate.parent !== null)!
      const response = await get(`/api/items/articles/${row.id}`)
      expect(response.body).toEqual({ data: articleJson(row) })
    })

    it('answers the requested fields in request order', async () => {
      const response = await get('/api/items/articles/7?fields=title,id,comments')
      expect(response.body).toEqual({ data: { title: 'Über alles', id: 7, comments: childKeys(seed.comments, 7) } })
      expect(Object.keys((response.body as { data: object }).data)).toEqual(['title', 'id', 'comments'])
    })

    it.each<[string]>([['99999'], ['0'], ['-1'], ['abc'], ['1.5'], ['2147483648']])('/items/articles/%s → 404 NOT_FOUND', async (id) => {
      expectError(await get(`/api/items/articles/${id}`), 404, 'NOT_FOUND')
    })

    it.each(seed.samples.map((row) => [row.id, row] as const))('answers sample %s with every type canonical', async (id, row) => {
      const response = await get(`/api/items/samples/${id}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: row })
    })

    it('finds a uuid key written in upper case', async () => {
      const [row] = seed.samples
      const response = await get(`/api/items/samples/${row!.id.toUpperCase()}?fields=id,label`)
      expect(response.body).toEqual({ data: { id: row!.id, label: row!.label } })
    })

    it.each<[string]>([['not-a-uuid'], ['0b9e6f4a-1c2d-4e5f-8a9b-00000000ffff'], ['1']])(
      '/items/samples/%s → 404 NOT_FOUND',
      async (id) => {
        expectError(await get(`/api/items/samples/${id}`), 404, 'NOT_FOUND')
      },
    )

    it('version=main answers the item itself', async () => {
      const response = await get('/api/items/articles/1?version=main&fields=id,title')
      expect(response.body).toEqual({ data: { id: 1, title: article(1).title } })
    })

    it('version=draft → 404 NOT_FOUND (no such version)', async () => {
      expectError(await get('/api/items/articles/1?version=draft'), 404, 'NOT_FOUND')
    })

    it('version= (empty) → 400 INVALID_QUERY', async () => {
      await getInvalidQuery(ctx, app, '/api/items/articles/1?version=', ['"version"'])
    })

    it.each<[string]>([['backlink=false'], ['backlink=true']])('%s is accepted', async (query) => {
      const response = await get(`/api/items/articles/2?${query}&fields=id`)
      expect(response.body).toEqual({ data: { id: 2 } })
    })

    it('backlink=maybe → 400 INVALID_QUERY', async () => {
      await getInvalidQuery(ctx, app, '/api/items/articles/2?backlink=maybe', ['"backlink"'])
    })

    it('lists accept backlink=false and refuse backlink=maybe too', async () => {
      expect(data(await get('/api/items/articles?backlink=false&fields=id&limit=1'))).toEqual([{ id: 1 }])
      await getInvalidQuery(ctx, app, '/api/items/articles?backlink=maybe', ['"backlink"'])
    })
  })

  describe('unknown collections', () => {
    it.each<[string]>([['/api/items/nope'], ['/api/items/nope/1'], ['/api/items/Articles'], ['/api/items/nope?limit=abc']])(
      'GET %s → 404 ROUTE_NOT_FOUND',
      async (url) => {
        expectError(await get(url), 404, 'ROUTE_NOT_FOUND')
      },
    )
  })

  describe('the router parses the query string itself', () => {
    const fiveStars = ids(seed.articles.filter((row) => row.rating === 5))

    it.each<[string, 'simple' | 'extended' | false]>([
      ['simple', 'simple'],
      ['extended', 'extended'],
      ['disabled', false],
    ])('host query parser %s: bracket filters still apply', async (_label, parser) => {
      const host = express()
      host.set('query parser', parser)
      host.use('/api', createItemsRouter({ knex: ctx.knex, defaultAccess: true, collections, logger: recordingLogger() }))
      const response = await request(host).get('/api/items/articles?filter[rating][_eq]=5&fields[]=id&limit=-1&sort=id')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: fiveStars.map((id) => ({ id })) })
      expect(fiveStars.length).toBeGreaterThan(10)
    })

    it('percent-encoded brackets parse the same', async () => {
      const response = await get('/api/items/articles?filter%5Brating%5D%5B_eq%5D=5&fields=id&limit=-1')
      expect(data(response).map((item) => item.id)).toEqual(fiveStars)
    })
  })
})

// Guards the helpers above: a sort helper that ignored NULLs would make the order tests vacuous.
describe('read.spec helpers', () => {
  it('orders NULLs first ascending and last descending', () => {
    const rows = [
      { id: 1, rating: 2 },
      { id: 2, rating: null },
      { id: 3, rating: 1 },
    ] as ArticleRow[]
    expect(ids(sortedArticles(rows, [['rating', 'asc']]))).toEqual([2, 3, 1])
    expect(ids(sortedArticles(rows, [['rating', 'desc']]))).toEqual([1, 3, 2])
  })
})
