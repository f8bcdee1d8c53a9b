// Sorting by a field behind one or more many-to-one hops orders rows like the seed sorted in JS (NULLs first ascending, text by code point) on every database.
import type { Express } from 'express'
import request from 'supertest'
import { seed, type ArticleRow, type AuthorRow, type CommentRow } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { getInvalidQuery } from '../support/expect-error'

type Value = string | number | null
type Direction = 'asc' | 'desc'
/** One sort key: how to read it from a row, and its direction. */
type Key<T> = [read: (row: T) => Value, direction: Direction]

const authorOf = (id: number | null): AuthorRow | undefined => (id === null ? undefined : seed.authors.find((row) => row.id === id))
const articleOf = (id: number | null): ArticleRow | undefined => (id === null ? undefined : seed.articles.find((row) => row.id === id))
const topicName = (id: number): string => seed.topics.find((row) => row.id === id)!.name

/** Code point order, as the contract asks of every database (`<` alone compares UTF-16 units). */
function byCodePoint(a: string, b: string): number {
  const [x, y] = [Array.from(a, (c) => c.codePointAt(0)!), Array.from(b, (c) => c.codePointAt(0)!)]
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}

/** NULL is the smallest value: first ascending, last descending. */
function compareValues(a: Value, b: Value): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return byCodePoint(String(a), String(b))
}

/** The seed rows in the order of `keys`, the primary key last (as the library appends it). */
function sorted<T extends { id: number }>(rows: readonly T[], ...keys: Array<Key<T>>): T[] {
  return [...rows].sort((a, b) => {
    for (const [read, direction] of [...keys, [(row: T) => row.id, 'asc'] as Key<T>]) {
      const order = compareValues(read(a), read(b))
      if (order !== 0) return direction === 'asc' ? order : -order
    }
    return 0
  })
}

const authorName = (row: { author: number | null }): Value => authorOf(row.author)?.name ?? null
const parentTitle = (row: ArticleRow): Value => articleOf(row.parent)?.title ?? null
const articleAuthorName = (row: CommentRow): Value => authorName(articleOf(row.article)!)
const idsOf = (rows: ReadonlyArray<{ id: number }>): number[] => rows.map((row) => row.id)

type Collection = 'articles' | 'comments' | 'article_topics'
/** [sort parameter, collection, expected ids] */
const CASES: Array<[string, Collection, number[]]> = [
  ['author.name,id', 'articles', idsOf(sorted(seed.articles, [authorName, 'asc']))],
  ['author.name', 'articles', idsOf(sorted(seed.articles, [authorName, 'asc']))],
  ['-author.name,id', 'articles', idsOf(sorted(seed.articles, [authorName, 'desc']))],
  ['-author.name,-id', 'articles', idsOf(sorted(seed.articles, [authorName, 'desc'], [(r) => r.id, 'desc']))],
  ['author.name,-rating', 'articles', idsOf(sorted(seed.articles, [authorName, 'asc'], [(r) => r.rating, 'desc']))],
  ['status,-author.name', 'articles', idsOf(sorted(seed.articles, [(r) => r.status, 'asc'], [authorName, 'desc']))],
  ['author.email', 'articles', idsOf(sorted(seed.articles, [(r) => authorOf(r.author)?.email ?? null, 'asc']))],
  ['-author.email', 'articles', idsOf(sorted(seed.articles, [(r) => authorOf(r.author)?.email ?? null, 'desc']))],
  ['author.id', 'articles', idsOf(sorted(seed.articles, [(r) => r.author, 'asc']))],
  ['author', 'articles', idsOf(sorted(seed.articles, [(r) => r.author, 'asc']))],
  ['parent.title', 'articles', idsOf(sorted(seed.articles, [parentTitle, 'asc']))],
  ['-parent.title', 'articles', idsOf(sorted(seed.articles, [parentTitle, 'desc']))],
  ['parent.rating,id', 'articles', idsOf(sorted(seed.articles, [(r) => articleOf(r.parent)?.rating ?? null, 'asc']))],
  ['-parent.published_at', 'articles', idsOf(sorted(seed.articles, [(r) => articleOf(r.parent)?.published_at ?? null, 'desc']))],
  [
    'parent.parent.title',
    'articles',
    idsOf(sorted(seed.articles, [(r) => articleOf(articleOf(r.parent)?.parent ?? null)?.title ?? null, 'asc'])),
  ],
  [
    'parent.author.name',
    'articles',
    idsOf(sorted(seed.articles, [(r) => authorOf(articleOf(r.parent)?.author ?? null)?.name ?? null, 'asc'])),
  ],
  ['article.author.name,id', 'comments', idsOf(sorted(seed.comments, [articleAuthorName, 'asc']))],
  ['-article.author.name,id', 'comments', idsOf(sorted(seed.comments, [articleAuthorName, 'desc']))],
  ['article.title,-votes', 'comments', idsOf(sorted(seed.comments, [(r) => articleOf(r.article)!.title, 'asc'], [(r) => r.votes, 'desc']))],
  ['author.name,article.author.name', 'comments', idsOf(sorted(seed.comments, [authorName, 'asc'], [articleAuthorName, 'asc']))],
  [
    'topic.name,-article.title',
    'article_topics',
    idsOf(sorted(seed.article_topics, [(r) => topicName(r.topic), 'asc'], [(r) => articleOf(r.article)!.title, 'desc'])),
  ],
]

describe('relational sort expectations', () => {
  it('the seed makes code point order differ from language order, and has ties and NULLs', () => {
    const names = seed.authors.map((row) => row.name)
    const byLocale = [...names].sort((a, b) => a.localeCompare(b, 'en'))
    expect([...names].sort(byCodePoint)).not.toEqual(byLocale)
    // Several articles share an author (ties), and some have none (NULL keys).
    expect(seed.articles.filter((row) => row.author === null).length).toBeGreaterThan(1)
    expect(seed.articles.filter((row) => row.author === 1).length).toBeGreaterThan(1)
    // Some article's author has no email: a NULL behind a non-null key sorts with the missing authors.
    expect(seed.articles.some((row) => row.author !== null && authorOf(row.author)!.email === null)).toBe(true)
    expect(seed.articles.some((row) => articleOf(row.parent)?.parent != null)).toBe(true)
  })

  it('the code point comparator is not the UTF-16 one', () => {
    // U+FF21 (fullwidth A) is one unit above the surrogates; U+1F680 (rocket) is two units starting at 0xD83D.
    expect(byCodePoint('\uFF21', '🚀')).toBeLessThan(0)
    expect('\uFF21' < '🚀').toBe(false)
  })
})

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  async function ids(collection: Collection, query: string): Promise<number[]> {
    const all = /(^|&)limit=/.test(query) ? '' : 'limit=-1&'
    const response = await request(app).get(`/api/items/${collection}?fields=id&${all}${query}`)
    if (response.status !== 200) throw new Error(`${query} → ${response.status} ${JSON.stringify(response.body)}`)
    return (response.body.data as Array<{ id: number }>).map((row) => row.id)
  }

  describe('orders like the seed sorted in JS', () => {
    it.each(CASES)('sort=%s on %s', async (sort, collection, expected) => {
      expect(await ids(collection, `sort=${sort}`)).toEqual(expected)
    })

    it('sort[]= array form equals the comma form', async () => {
      expect(await ids('comments', 'sort[]=-article.author.name&sort[]=id')).toEqual(
        CASES.find(([sort]) => sort === '-article.author.name,id')![2],
      )
    })
  })

  describe('what the rows show', () => {
    it('sort=author.name,id: articles without an author first, then names by code point, ties by id', async () => {
      const response = await request(app).get('/api/items/articles?fields=id,author.name&limit=-1&sort=author.name,id')
      const expected = sorted(seed.articles, [authorName, 'asc']).map((row) => ({
        id: row.id,
        author: row.author === null ? null : { name: authorOf(row.author)!.name },
      }))
      expect(response.body).toEqual({ data: expected })
      const names = expected.map((row) => row.author?.name ?? null)
      const withoutAuthor = seed.articles.filter((row) => row.author === null).length
      expect(names.slice(0, withoutAuthor).every((name) => name === null)).toBe(true)
      // Å, Ü and 李 sort after Z by code point.
      expect(names.indexOf('Ådne')).toBeGreaterThan(names.lastIndexOf('Zoë Ångström'))
      expect(names.indexOf('Ümit Öztürk')).toBeGreaterThan(names.lastIndexOf('Ådne'))
      expect(names[names.length - 1]).toBe('李雷')
    })

    it('sort=-author.name,id: articles without an author last, ties still by ascending id', async () => {
      const response = await request(app).get('/api/items/articles?fields=id,author&limit=-1&sort=-author.name,id')
      const data = response.body.data as Array<{ id: number; author: number | null }>
      const withoutAuthor = seed.articles.filter((row) => row.author === null).map((row) => row.id)
      expect(data.slice(-withoutAuthor.length)).toEqual(withoutAuthor.map((id) => ({ id, author: null })))
      expect(data[0]!.author).toBe(5)
      const ofAlice = data.filter((row) => row.author === 1).map((row) => row.id)
      expect(ofAlice).toEqual([...ofAlice].sort((a, b) => a - b))
    })

    it('/items/comments?sort=article.author.name,id goes two hops', async () => {
      const response = await request(app).get('/api/items/comments?fields=id,article.author.name&limit=-1&sort=article.author.name,id')
      expect(response.body).toEqual({
        data: sorted(seed.comments, [articleAuthorName, 'asc']).map((row) => {
          const name = articleAuthorName(row)
          return { id: row.id, article: { author: name === null ? null : { name } } }
        }),
      })
    })
  })

  describe('pages', () => {
    it.each<[string, Collection, number]>([
      ['author.name', 'articles', 7],
      ['-parent.title', 'articles', 11],
      ['article.author.name,-votes', 'comments', 25],
      ['-topic.name', 'article_topics', 30],
    ])('sort=%s on %s: pages of %i put together give the whole list', async (sort, collection, size) => {
      const whole = await ids(collection, `sort=${sort}`)
      const pages: number[] = []
      for (let offset = 0; offset < whole.length; offset += size)
        pages.push(...(await ids(collection, `sort=${sort}&limit=${size}&offset=${offset}`)))
      expect(pages).toEqual(whole)
      expect(new Set(pages).size).toBe(whole.length)
    })

    it('page=3&limit=10 is the third window', async () => {
      const expected = idsOf(sorted(seed.articles, [authorName, 'desc'])).slice(20, 30)
      const response = await request(app).get('/api/items/articles?fields=id&sort=-author.name&limit=10&page=3')
      expect((response.body.data as Array<{ id: number }>).map((row) => row.id)).toEqual(expected)
    })
  })

  describe('inside deep and by-query writes', () => {
    it("deep[comments][_sort]=-author.name orders each article's comments", async () => {
      const articles = seed.articles.slice(0, 12)
      const response = await request(app).get('/api/items/articles?fields=id,comments.id&limit=12&deep[comments][_sort]=-author.name')
      expect(response.body).toEqual({
        data: articles.map((row) => ({
          id: row.id,
          comments: sorted(
            seed.comments.filter((c) => c.article === row.id),
            [authorName, 'desc'],
          ).map((c) => ({ id: c.id })),
        })),
      })
    })

    it("deep[comments][_sort]=author.name with _limit=2 keeps each article's first two", async () => {
      const articles = seed.articles.slice(0, 12)
      const response = await request(app).get(
        '/api/items/articles?fields=id,comments.id&limit=12&deep[comments][_sort]=author.name&deep[comments][_limit]=2',
      )
      expect(response.body).toEqual({
        data: articles.map((row) => ({
          id: row.id,
          comments: sorted(
            seed.comments.filter((c) => c.article === row.id),
            [authorName, 'asc'],
          )
            .slice(0, 2)
            .map((c) => ({ id: c.id })),
        })),
      })
    })

    it('PATCH { query: { sort: [-author.name], limit: 5 } } changes the first five in that order', async () => {
      await ctx.reset()
      try {
        const expected = idsOf(sorted(seed.articles, [authorName, 'desc'])).slice(0, 5)
        const response = await request(app)
          .patch('/api/items/articles?fields=id')
          .send({ query: { sort: ['-author.name'], limit: 5 }, data: { rating: 1 } })
        expect(response.status).toBe(200)
        expect((response.body.data as Array<{ id: number }>).map((row) => row.id).sort((a, b) => a - b)).toEqual(
          [...expected].sort((a, b) => a - b),
        )
        expect(await ids('articles', 'filter[rating][_eq]=1')).toEqual(
          seed.articles.filter((row) => row.rating === 1 || expected.includes(row.id)).map((row) => row.id),
        )
      } finally {
        await ctx.reset()
      }
    })
  })

  describe('invalid relational sorts', () => {
    const expectInvalid = (collection: string, sort: string, mentions: readonly string[]) =>
      getInvalidQuery(ctx, app, `/api/items/${collection}?fields=id&sort=${sort}`, mentions)

    it.each<[string, string, string, string[]]>([
      ['an o2m in the path', 'articles', 'comments.votes', ['comments.votes', '"comments"']],
      ['an o2m in the path, descending', 'articles', '-comments.votes', ['comments.votes', '"comments"']],
      ['the junction of an m2m', 'articles', 'topics.topic.name', ['topics.topic.name', '"topics"']],
      ['an o2m after an m2o', 'articles', 'author.articles.title', ['author.articles.title', '"articles"']],
      ['an o2m as the last segment', 'articles', 'author.articles', ['author.articles']],
      ['an unknown related field', 'articles', 'author.nope', ['author.nope', '"nope"', '"authors"']],
      ['an unknown field two hops down', 'comments', 'article.author.nope', ['"nope"', '"authors"']],
      ['a path through a scalar field', 'articles', 'title.x', ['title.x', '"title"']],
      ['a path through a scalar field two hops down', 'comments', 'article.title.x', ['"title"']],
      ['a related json field', 'comments', 'article.tags', ['article.tags']],
      ['an empty segment', 'articles', 'author.', ['author.']],
      ['an unknown relation', 'articles', 'writer.name', ['"writer"']],
    ])('%s: sort=%s on %s', async (_label, collection, sort, mentions) => {
      await expectInvalid(collection, sort, mentions)
    })

    it.each([
      ['articles', 'author.password_hash'],
      ['comments', '-article.author.password_hash'],
      ['comments', 'author.password_hash'],
    ])('a hidden field behind a relation answers like an unknown one: %s sort=%s', async (collection, sort) => {
      const hidden = await expectInvalid(collection, sort, ['"password_hash"'])
      const unknown = await expectInvalid(collection, sort.replace('password_hash', 'password_hasx'), ['"password_hasx"'])
      expect(hidden.replace(/password_hash/g, 'password_hasx')).toBe(unknown)
    })
  })
})
