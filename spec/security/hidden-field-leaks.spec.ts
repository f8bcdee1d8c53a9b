// The leak suite: a caller whose access rules hide fields and rows learns nothing about them on any path. Every
// probe must answer exactly what the same request answers for a field or row that does not exist.
import type { Express } from 'express'
import request, { type Response } from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed, type ArticleRow, type CommentRow } from '../../fixtures/seed'
import type { AccessDecision, CollectionDefinition, ErrorCode, ItemsContext } from '../../lib'
import { createApp } from '../support/app'
import { forEachDialect, type DialectContext } from '../support/dialects'
import { expectError } from '../support/expect-error'

type Method = 'get' | 'post' | 'patch' | 'delete'
type Who = keyof typeof HEADERS
type Row = Record<string, unknown>

// ---------------------------------------------------------------------------------------------------------------
// The caller: author 4 as a member. Admins (x-role: admin) see and change everything; editors the settings.
// ---------------------------------------------------------------------------------------------------------------

const USER = 4
const HEADERS = {
  member: { 'x-user': String(USER), 'x-role': 'member' },
  admin: { 'x-role': 'admin' },
  editor: { 'x-role': 'editor' },
} as const
/** Members see authors 1..10, by name only. */
const LAST_VISIBLE_AUTHOR = 10
/** Members see comments below this many votes, without their body. */
const VOTE_LIMIT = 50
const ARTICLE_FIELDS = ['title', 'status', 'published_at', 'tags', 'author', 'parent', 'comments', 'topics']
const OWN = { author: { _eq: '$CURRENT_USER' } }
/** The seeded settings row has 25 items per page. */
const SETTINGS_SCOPE = { items_per_page: { _gt: 100 } }

const isAdmin = (context: ItemsContext): boolean => context.role === 'admin'
const rule =
  (member: AccessDecision) =>
  (context: ItemsContext): AccessDecision =>
    isAdmin(context) ? true : member

const ACCESS_COLLECTIONS: Record<string, CollectionDefinition> = {
  ...collections,
  authors: {
    ...collections.authors,
    access: {
      read: rule({ fields: ['name', 'articles'], filter: { id: { _lte: LAST_VISIBLE_AUTHOR } } }),
      create: rule(false),
      update: rule(false),
      delete: rule(false),
    },
  },
  articles: {
    ...collections.articles,
    access: {
      read: rule({ filter: OWN, fields: ARTICLE_FIELDS }),
      create: rule({ fields: ['title', 'status', 'author', 'parent', 'tags'], presets: { author: '$CURRENT_USER' } }),
      update: rule({ filter: OWN, fields: ['title', 'status', 'author', 'parent', 'tags'] }),
      delete: rule({ filter: OWN }),
    },
  },
  comments: {
    ...collections.comments,
    access: {
      read: rule({ filter: { votes: { _lt: VOTE_LIMIT } }, fields: ['article', 'author', 'votes'] }),
      create: rule({ fields: ['article', 'author', 'votes', 'body'] }),
      // Comments on the caller's own articles, read or not.
      update: rule({ filter: { article: OWN }, fields: ['votes', 'body', 'author'] }),
      delete: rule({ filter: { article: OWN } }),
    },
  },
  // Editors manage the settings fully (and so their versions); members' rules leave the seeded row out.
  settings: {
    ...collections.settings,
    access: {
      read: (context) => isAdmin(context) || context.role === 'editor' || { filter: SETTINGS_SCOPE },
      update: (context) => isAdmin(context) || context.role === 'editor' || { filter: SETTINGS_SCOPE },
      create: (context) => isAdmin(context) || context.role === 'editor',
    },
  },
}

function callerContext(req: { header(name: string): string | undefined }): ItemsContext {
  const user = req.header('x-user')
  return { user: user === undefined ? undefined : Number(user), role: req.header('x-role') }
}

// ---------------------------------------------------------------------------------------------------------------
// What the member may see, computed from the seed.
// ---------------------------------------------------------------------------------------------------------------

const article = (id: number): ArticleRow => seed.articles.find((row) => row.id === id)!
const authorName = (id: number): string => seed.authors.find((row) => row.id === id)!.name
const ownArticles = seed.articles.filter((row) => row.author === USER)
const ownIds = ownArticles.map((row) => row.id)
const isOwn = (id: number): boolean => ownIds.includes(id)
const visibleAuthor = (id: number | null): boolean => id !== null && id <= LAST_VISIBLE_AUTHOR
const visibleAuthorIds = seed.authors.filter((row) => visibleAuthor(row.id)).map((row) => row.id)
const visibleComment = (row: CommentRow): boolean => row.votes < VOTE_LIMIT
const visibleComments = seed.comments.filter(visibleComment)
const commentView = ({ id, article: articleId, author, votes }: CommentRow): Row => ({ id, article: articleId, author, votes })
const commentIdsOf = (articleId: number): number[] => visibleComments.filter((row) => row.article === articleId).map((row) => row.id)
const topicIdsOf = (articleId: number): number[] => seed.article_topics.filter((row) => row.article === articleId).map((row) => row.id)

/** An own article as `fields=*` shows it to the member: no rating, only readable comments. */
function articleView(id: number): Row {
  const { rating: _rating, ...rest } = article(id)
  return { ...rest, comments: commentIdsOf(id), topics: topicIdsOf(id) }
}
/** An author as `fields=*` shows them: the name, and only the member's own articles. */
const authorView = (id: number): Row => ({ id, name: authorName(id), articles: id === USER ? ownIds : [] })

/** A hidden article (author 16) whose comments the member can all read; it also gets a version below. */
const HIDDEN_ARTICLE = 138
/** Another hidden article, never versioned. */
const OTHER_HIDDEN_ARTICLE = 136
/** Hidden authors: Grace Lee (11) wrote comments the member can read. */
const HIDDEN_AUTHOR = 11
/** A comment with too many votes, on another author's article: outside every scope of the member. */
const HIDDEN_COMMENT = 245
/** An own article with readable comments (107, 306, 380) and a hidden one (105). */
const MIXED_ARTICLE = 25
const MISSING = 999999

/** A title word of hidden articles that none of the member's own titles contains. */
const HIDDEN_TERM = 'Hollow'

if (
  isOwn(HIDDEN_ARTICLE) ||
  isOwn(OTHER_HIDDEN_ARTICLE) ||
  visibleComment(seed.comments.find((row) => row.id === HIDDEN_COMMENT)!) ||
  isOwn(seed.comments.find((row) => row.id === HIDDEN_COMMENT)!.article) ||
  !visibleComments.some((row) => row.author === HIDDEN_AUTHOR) ||
  ownArticles.some((row) => row.title.toLowerCase().includes(HIDDEN_TERM.toLowerCase())) ||
  !seed.articles.some((row) => row.title.includes(HIDDEN_TERM)) ||
  commentIdsOf(MIXED_ARTICLE).length === 0 ||
  seed.comments.filter((row) => row.article === MIXED_ARTICLE).every(visibleComment)
) {
  throw new Error('The seed no longer has the rows this suite probes with; pick new constants')
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing answers.
// ---------------------------------------------------------------------------------------------------------------

/** Replaces `from` by `to` in every string (object keys included) of `value` and wherever a value equals it. */
function swap(value: unknown, from: string | number, to: string | number): unknown {
  if (typeof value === 'string') return value.split(String(from)).join(String(to))
  if (value === from) return to
  if (Array.isArray(value)) return value.map((item) => swap(item, from, to))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [swap(key, from, to), swap(item, from, to)]))
  }
  return value
}

/**
 * The probe answers exactly what the control does once the probed names read like the control's; the control
 * itself answers `status` with `code` (an error) or a body `{ data }`.
 */
function expectAlike(
  probe: Response,
  control: Response,
  status: number,
  code: ErrorCode | null,
  swaps: ReadonlyArray<[string | number, string | number]> = [],
): void {
  if (code === null) expect(control.status).toBe(status)
  else expectError(control, status, code)
  const normalized = swaps.reduce<unknown>((body, [from, to]) => swap(body, from, to), probe.body)
  expect({ status: probe.status, body: normalized }).toEqual({ status: control.status, body: control.body })
}

const ids = (response: Response): unknown[] => (response.body.data as Row[]).map((row) => row.id)
const encode = (value: unknown): string => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))

forEachDialect((ctx: DialectContext) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex, { collections: ACCESS_COLLECTIONS, context: callerContext })
  })

  async function call(method: Method, path: string, body?: unknown, who: Who = 'member'): Promise<Response> {
    const pending = request(app)[method](`/api${path}`).set(HEADERS[who])
    return body === undefined ? await pending : await pending.send(body as object)
  }
  const get = (path: string, who: Who = 'member'): Promise<Response> => call('get', path, undefined, who)

  /** GET both URLs as the member; the probe must fail exactly like the control's unknown field. */
  async function expectUnknownLike(probe: string, control: string, hidden: string, unknown: string): Promise<void> {
    expectAlike(await get(probe), await get(control), 400, 'INVALID_QUERY', [[hidden, unknown]])
  }

  /** Both lists are 200 and identical, and equal `expected`. */
  async function expectListLike(probe: string, control: string, expected: unknown): Promise<void> {
    const [answer, absent] = [await get(probe), await get(control)]
    expectAlike(answer, absent, 200, null)
    expect(answer.body.data).toEqual(expected)
  }

  /** Every row of the table, straight from the database. */
  const snapshot = (table: string): Promise<Row[]> => ctx.knex(table).select('*').orderBy('id')

  // -------------------------------------------------------------------------------------------------------------
  describe('fields', () => {
    it.each([
      ['articles', 'rating', 'rating'],
      ['articles', '*,rating', 'rating'],
      ['authors', 'id,email', 'email'],
      ['authors', 'password_hash', 'password_hash'],
      ['articles', 'author.email', 'email'],
      ['articles', 'comments.body', 'body'],
    ])('%s?fields=%s fails like an unknown field', async (collection, fields, hidden) => {
      await expectUnknownLike(
        `/items/${collection}?fields=${fields}`,
        `/items/${collection}?fields=${fields.split(hidden).join('nope')}`,
        hidden,
        'nope',
      )
    })

    it('alias[x]=<hidden field> fails like an alias of an unknown field', async () => {
      for (const [collection, hidden] of [
        ['articles', 'rating'],
        ['authors', 'email'],
        ['comments', 'body'],
      ] as const) {
        await expectUnknownLike(
          `/items/${collection}?alias[x]=${hidden}&fields=x`,
          `/items/${collection}?alias[x]=nope&fields=x`,
          hidden,
          'nope',
        )
      }
    })

    it('articles?fields=* narrows to the readable fields of the own articles', async () => {
      const response = await get('/items/articles?fields=*&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: ownIds.map(articleView) })
    })

    it('authors?fields=* answers only name and the readable articles of the readable authors', async () => {
      const response = await get('/items/authors?fields=*&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: visibleAuthorIds.map(authorView) })
    })

    it('articles?fields=id,author.*,comments.* expands related rows through their own rules', async () => {
      const response = await get('/items/articles?fields=id,author.*,comments.*&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(
        ownIds.map((id) => ({
          id,
          author: authorView(USER),
          comments: visibleComments.filter((row) => row.article === id).map(commentView),
        })),
      )
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('filter', () => {
    it.each([
      ['authors', 'filter[email][_null]=true', 'email'],
      ['authors', `filter[bio][_contains]=${encode('café')}`, 'bio'],
      ['articles', `filter=${encode({ rating: { _eq: 5 } })}`, 'rating'],
      ['articles', 'filter[_and][0][title][_nnull]=true&filter[_and][1][rating][_eq]=5', 'rating'],
      ['articles', `filter=${encode({ _or: [{ id: { _eq: MIXED_ARTICLE } }, { rating: { _null: true } }] })}`, 'rating'],
    ])('%s?%s fails like an unknown field', async (collection, query, hidden) => {
      await expectUnknownLike(`/items/${collection}?${query}`, `/items/${collection}?${query.split(hidden).join('nope')}`, hidden, 'nope')
    })

    it.each([
      ['authors', `filter[name][_eq]=${encode(authorName(HIDDEN_AUTHOR))}`, `filter[name][_eq]=${encode('Nobody Here')}`],
      ['articles', `filter[id][_in]=${HIDDEN_ARTICLE},${OTHER_HIDDEN_ARTICLE}`, `filter[id][_in]=${MISSING},${MISSING - 1}`],
      ['comments', `filter[votes][_gte]=${VOTE_LIMIT}`, 'filter[votes][_gt]=1000'],
    ])('%s?%s matches hidden rows no more than missing ones', async (collection, probe, control) => {
      await expectListLike(`/items/${collection}?fields=id&${probe}`, `/items/${collection}?fields=id&${control}`, [])
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('filter through many-to-one paths', () => {
    it.each([
      ['articles', 'filter[author][email][_contains]=@', 'email'],
      ['comments', 'filter[author][password_hash][_nnull]=true', 'password_hash'],
      ['comments', 'filter[article][_or][0][rating][_eq]=5&filter[article][_or][1][id][_eq]=1', 'rating'],
    ])('%s?%s fails like an unknown related field', async (collection, query, hidden) => {
      await expectUnknownLike(`/items/${collection}?${query}`, `/items/${collection}?${query.split(hidden).join('nope')}`, hidden, 'nope')
    })

    it.each([
      ['comments', `filter[author][name][_eq]=${encode(authorName(HIDDEN_AUTHOR))}`, `filter[author][name][_eq]=${encode('Nobody Here')}`],
      [
        'comments',
        `filter[article][title][_eq]=${encode(article(HIDDEN_ARTICLE).title)}`,
        `filter[article][title][_eq]=${encode('No such title')}`,
      ],
      [
        'comments',
        `filter[article][author][name][_eq]=${encode(authorName(article(HIDDEN_ARTICLE).author!))}`,
        `filter[article][author][name][_eq]=${encode('Nobody Here')}`,
      ],
      // An open collection relating to a restricted one, one and two hops away.
      ['article_topics', `filter[article][id][_eq]=${HIDDEN_ARTICLE}`, `filter[article][id][_eq]=${MISSING}`],
      [
        'topics',
        `filter[articles][article][title][_eq]=${encode(article(HIDDEN_ARTICLE).title)}`,
        `filter[articles][article][title][_eq]=${encode('No such title')}`,
      ],
    ])('%s?%s: hidden related rows match like missing ones', async (collection, probe, control) => {
      await expectListLike(`/items/${collection}?fields=id&limit=-1&${probe}`, `/items/${collection}?fields=id&limit=-1&${control}`, [])
    })

    it('a relational filter through readable rows still matches (the probes above could have matched)', async () => {
      const response = await get(`/items/comments?fields=id&limit=-1&filter[article][author][name][_eq]=${encode(authorName(USER))}`)
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(visibleComments.filter((row) => isOwn(row.article)).map((row) => row.id))
      // The comments' own foreign key is a readable field: the value is there, the related row is not.
      const own = await get(`/items/comments?fields=id&limit=-1&filter[author][_eq]=${HIDDEN_AUTHOR}`)
      expect(ids(own)).toEqual(visibleComments.filter((row) => row.author === HIDDEN_AUTHOR).map((row) => row.id))
      // The open collections reach the member's own articles.
      const links = await get(`/items/article_topics?fields=id&limit=-1&filter[article][author][_eq]=${USER}`)
      expect(ids(links)).toEqual(seed.article_topics.filter((row) => isOwn(row.article)).map((row) => row.id))
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('filter through one-to-many paths (_some, _none)', () => {
    const withComments = ownIds.filter((id) => commentIdsOf(id).length > 0)

    it.each([
      ['implicit some', `filter[comments][votes][_gte]=${VOTE_LIMIT}`, 'filter[comments][votes][_gt]=1000', []],
      ['_some by id', `filter[comments][_some][id][_in]=105,557,445,204,272`, `filter[comments][_some][id][_in]=${MISSING}`, []],
      ['_none', `filter[comments][_none][votes][_gte]=${VOTE_LIMIT}`, 'filter[comments][_none][votes][_gt]=1000', ownIds],
      [
        '_none of any',
        'filter[comments][_none][id][_nnull]=true',
        `filter[comments][_none][id][_gt]=0`,
        ownIds.filter((id) => !withComments.includes(id)),
      ],
      // Readable comments of article 25 by Grace Lee: the comment is there, its author is not.
      [
        'o2m then m2o',
        `filter[comments][author][name][_eq]=${encode(authorName(HIDDEN_AUTHOR))}`,
        `filter[comments][author][name][_eq]=${encode('Nobody Here')}`,
        [],
      ],
    ])('articles %s: hidden rows neither match nor block (%s)', async (_label, probe, control, expected) => {
      await expectListLike(
        `/items/articles?fields=id&limit=-1&${probe}`,
        `/items/articles?fields=id&limit=-1&${control}`,
        (expected as number[]).map((id) => ({ id })),
      )
    })

    it.each([['_some', 'filter[articles][_some][id][_nnull]=true', [USER]]])(
      "authors %s: only the member's own articles count (%s)",
      async (_label, query, expected) => {
        const response = await get(`/items/authors?fields=id&limit=-1&${query}`)
        expect(response.status).toBe(200)
        expect(ids(response)).toEqual(expected)
      },
    )

    it.each([
      ['articles', 'filter[comments][_none][body][_null]=true', 'body'],
      ['authors', 'filter[articles][_some][rating][_eq]=5', 'rating'],
    ])('%s?%s fails like an unknown related field', async (collection, query, hidden) => {
      await expectUnknownLike(`/items/${collection}?${query}`, `/items/${collection}?${query.split(hidden).join('nope')}`, hidden, 'nope')
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('sort', () => {
    it.each([
      ['articles', '-rating'],
      ['articles', 'author.email'],
      ['comments', 'article.rating'],
    ])('%s?sort=%s fails like an unknown field', async (collection, sort) => {
      const hidden = sort.replace(/^-/, '').split('.').pop()!
      await expectUnknownLike(
        `/items/${collection}?sort=${sort}`,
        `/items/${collection}?sort=${sort.split(hidden).join('nope')}`,
        hidden,
        'nope',
      )
    })

    /** Visible comments ordered by `key`, NULLs first ascending and last descending (every dialect), then by id. */
    function orderBy(key: (row: CommentRow) => string | null, direction: 'asc' | 'desc'): number[] {
      const sign = direction === 'asc' ? 1 : -1
      return [...visibleComments]
        .sort((a, b) => {
          const [x, y] = [key(a), key(b)]
          if (x === y) return a.id - b.id
          if (x === null) return -sign
          if (y === null) return sign
          return (x < y ? -1 : 1) * sign
        })
        .map((row) => row.id)
    }

    it.each(['asc', 'desc'] as const)('comments?sort=author.name (%s) orders hidden authors as NULL', async (direction) => {
      const response = await get(`/items/comments?fields=id&limit=-1&sort=${direction === 'asc' ? '' : '-'}author.name`)
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(orderBy((row) => (visibleAuthor(row.author) ? authorName(row.author!) : null), direction))
    })

    it('comments?sort=article.author.name orders comments on hidden articles as NULL', async () => {
      const response = await get('/items/comments?fields=id&limit=-1&sort=article.author.name')
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(orderBy((row) => (isOwn(row.article) ? authorName(USER) : null), 'asc'))
    })

    it('articles?sort=-parent.title orders hidden parents like no parent', async () => {
      const response = await get('/items/articles?fields=id,parent&limit=-1&sort=-parent.title')
      expect(response.status).toBe(200)
      // 26 and 65 have hidden parents: with every parent NULL, the key alone orders.
      expect(response.body.data).toEqual(ownArticles.map(({ id, parent }) => ({ id, parent })))
      expect(ownArticles.filter((row) => row.parent !== null)).toHaveLength(2)
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('search', () => {
    it.each([
      ['authors', 'example.com', 'email'],
      ['authors', authorName(HIDDEN_AUTHOR), 'a hidden row'],
      ['articles', HIDDEN_TERM, 'hidden rows'],
      ['comments', 'Great read', 'body'],
    ])('%s?search=%s (only in %s) matches like an absent term', async (collection, term) => {
      await expectListLike(
        `/items/${collection}?fields=id&limit=-1&search=${encode(term)}`,
        `/items/${collection}?fields=id&limit=-1&search=zqxjkv`,
        [],
      )
    })

    it('articles?search=5 looks in readable fields only, not in rating', async () => {
      const expected = ownArticles
        .filter((row) => row.title.includes('5') || row.status.includes('5') || [row.id, row.author, row.parent].includes(5))
        .map((row) => row.id)
      // Rated-5 own articles exist that only rating would match.
      expect(ownArticles.some((row) => row.rating === 5 && !expected.includes(row.id))).toBe(true)
      const response = await get('/items/articles?fields=id&limit=-1&search=5')
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(expected)
    })

    it('comments?search=72 matches readable comments only', async () => {
      const expected = visibleComments.filter((row) => [row.id, row.article, row.author, row.votes].includes(72)).map((row) => row.id)
      expect(seed.comments.some((row) => !visibleComment(row) && row.votes === 72)).toBe(true)
      const response = await get('/items/comments?fields=id&limit=-1&search=72')
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(expected)
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('meta', () => {
    it.each([
      [
        'articles',
        'meta=*&filter[status][_eq]=published',
        { total_count: ownIds.length, filter_count: ownArticles.filter((row) => row.status === 'published').length },
      ],
      ['articles', `meta=*&search=${HIDDEN_TERM}`, { total_count: ownIds.length, filter_count: 0 }],
      [
        'comments',
        `meta=*&filter[article][_eq]=${MIXED_ARTICLE}`,
        { total_count: visibleComments.length, filter_count: commentIdsOf(MIXED_ARTICLE).length },
      ],
      ['authors', 'meta=*&filter[id][_gt]=5', { total_count: visibleAuthorIds.length, filter_count: visibleAuthorIds.length - 5 }],
    ])('%s?%s counts readable rows only', async (collection, query, meta) => {
      const response = await get(`/items/${collection}?limit=0&${query}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [], meta })
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('aggregate and groupBy', () => {
    it.each([
      ['articles', 'aggregate[avg]=rating', 'rating'],
      ['articles', 'groupBy=rating&aggregate[count]=*', 'rating'],
      ['authors', 'aggregate[countDistinct]=email', 'email'],
    ])('%s?%s fails like an unknown field', async (collection, query, hidden) => {
      await expectUnknownLike(`/items/${collection}?${query}`, `/items/${collection}?${query.split(hidden).join('nope')}`, hidden, 'nope')
    })

    const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0)

    it.each([
      [
        'articles',
        'groupBy=status&aggregate[count]=*',
        ['archived', 'draft', 'published'].map((status) => ({ status, count: ownArticles.filter((row) => row.status === status).length })),
      ],
      [
        'comments',
        'aggregate[count]=*&aggregate[sum]=votes&aggregate[max]=votes',
        [
          {
            count: visibleComments.length,
            sum: { votes: sum(visibleComments.map((row) => row.votes)) },
            max: { votes: Math.max(...visibleComments.map((row) => row.votes)) },
          },
        ],
      ],
      [
        'comments',
        `groupBy=article&aggregate[count]=*&aggregate[sum]=votes&filter[article][_in]=${ownIds.join(',')}`,
        ownIds
          .filter((id) => commentIdsOf(id).length > 0)
          .map((id) => {
            const rows = visibleComments.filter((row) => row.article === id)
            return { article: id, count: rows.length, sum: { votes: sum(rows.map((row) => row.votes)) } }
          }),
      ],
    ])('%s?%s summarizes readable rows only', async (collection, query, expected) => {
      const response = await get(`/items/${collection}?${query}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
    })

    it('count(comments) counts readable comments only', async () => {
      const response = await get('/items/articles?fields=id,count(comments)&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(ownIds.map((id) => ({ id, comments_count: commentIdsOf(id).length })))
      expect(ownIds.some((id) => seed.comments.filter((row) => row.article === id).length !== commentIdsOf(id).length)).toBe(true)
    })

    it("count(articles) on authors counts the member's own articles only", async () => {
      const response = await get('/items/authors?fields=id,count(articles)&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(visibleAuthorIds.map((id) => ({ id, articles_count: id === USER ? ownIds.length : 0 })))
    })

    it('filter and sort by count(comments) see readable comments only', async () => {
      const count = commentIdsOf(MIXED_ARTICLE).length
      const response = await get(`/items/articles?fields=id&limit=-1&filter[count(comments)][_eq]=${count}&sort=-count(comments)`)
      expect(response.status).toBe(200)
      expect(ids(response)).toEqual(ownIds.filter((id) => commentIdsOf(id).length === count))
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('deep', () => {
    it.each([
      ['articles', 'fields=id,comments.id&deep[comments][_filter][body][_contains]=a', 'body'],
      ['authors', 'fields=id,articles.id&deep[articles][_filter][rating][_eq]=5', 'rating'],
    ])('%s?%s fails like an unknown field', async (collection, query, hidden) => {
      await expectUnknownLike(`/items/${collection}?${query}`, `/items/${collection}?${query.split(hidden).join('nope')}`, hidden, 'nope')
    })

    const emptyLists = (output: string): Row[] => ownIds.map((id) => ({ id, [output]: [] }))

    it.each([
      [
        'on hidden rows',
        'fields=id,comments.votes',
        `deep[comments][_filter][votes][_gte]=${VOTE_LIMIT}`,
        'deep[comments][_filter][votes][_gt]=1000',
        'comments',
      ],
      [
        'on hidden related rows',
        'fields=id,comments.votes',
        `deep[comments][_filter][author][name][_eq]=${encode(authorName(HIDDEN_AUTHOR))}`,
        `deep[comments][_filter][author][name][_eq]=${encode('Nobody Here')}`,
        'comments',
      ],
      [
        'through an alias',
        'fields=id,x.votes&alias[x]=comments',
        `deep[x][_filter][votes][_gte]=${VOTE_LIMIT}`,
        'deep[x][_filter][votes][_gt]=1000',
        'x',
      ],
      [
        'by a term only in the hidden body',
        'fields=id,comments.votes',
        `deep[comments][_search]=${encode('Great read')}`,
        'deep[comments][_search]=zqxjkv',
        'comments',
      ],
    ])('deep filter %s leaves every list empty, like a filter nothing matches', async (_label, fields, probe, control, output) => {
      await expectListLike(
        `/items/articles?limit=-1&${fields}&${probe}`,
        `/items/articles?limit=-1&${fields}&${control}`,
        emptyLists(output),
      )
    })

    it('deep[comments][_limit]=1 takes the first readable comment, never a hidden one', async () => {
      const response = await get('/items/articles?fields=id,comments.id&limit=-1&deep[comments][_limit]=1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(
        ownIds.map((id) => ({
          id,
          comments: commentIdsOf(id)
            .slice(0, 1)
            .map((comment) => ({ id: comment })),
        })),
      )
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('nested relations in output', () => {
    it('comments?fields=author.* answers null for an unreadable author, like no author', async () => {
      const response = await get('/items/comments?fields=id,author.*&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(
        visibleComments.map((row) => ({ id: row.id, author: visibleAuthor(row.author) ? authorView(row.author!) : null })),
      )
    })

    it('comments?fields=article.id,article.title answers null for an unreadable article', async () => {
      const response = await get('/items/comments?fields=id,article.id,article.title&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(
        visibleComments.map((row) => ({
          id: row.id,
          article: isOwn(row.article) ? { id: row.article, title: article(row.article).title } : null,
        })),
      )
    })

    it('articles?fields=parent.* answers null for an unreadable parent', async () => {
      const response = await get('/items/articles?fields=id,parent.*&limit=-1')
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(
        ownArticles.map((row) => ({ id: row.id, parent: row.parent !== null && isOwn(row.parent) ? articleView(row.parent) : null })),
      )
    })

    it('o2m key lists and expanded lists leave unreadable rows out', async () => {
      const keys = await get('/items/articles?fields=id,comments,topics&limit=-1')
      expect(keys.body.data).toEqual(ownIds.map((id) => ({ id, comments: commentIdsOf(id), topics: topicIdsOf(id) })))
      const expanded = await get('/items/articles?fields=id,comments.*&limit=-1')
      expect(expanded.body.data).toEqual(
        ownIds.map((id) => ({ id, comments: visibleComments.filter((row) => row.article === id).map(commentView) })),
      )
    })

    it('two levels deep: comments → article → comments, count and author stay within the rules', async () => {
      const response = await get(
        `/items/comments?fields=id,article.comments,article.count(comments),article.author.name&filter[article][_in]=${MIXED_ARTICLE},${HIDDEN_ARTICLE}&limit=-1`,
      )
      expect(response.status).toBe(200)
      const readable = commentIdsOf(MIXED_ARTICLE)
      const expected: Array<{ id: number; article: Row | null }> = [
        ...readable.map((id) => ({
          id,
          article: { comments: readable, comments_count: readable.length, author: { name: authorName(USER) } },
        })),
        ...commentIdsOf(HIDDEN_ARTICLE).map((id) => ({ id, article: null })),
      ]
      expect(response.body.data).toEqual(expected.sort((a, b) => a.id - b.id))
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('GET /items/:collection/:id', () => {
    it.each([
      ['articles', HIDDEN_ARTICLE, ''],
      ['articles', 5, '?fields=id,title,comments.*'],
      ['authors', HIDDEN_AUTHOR, ''],
      ['comments', 105, ''],
      ['comments', HIDDEN_COMMENT, '?fields=id,votes'],
    ])('%s/%s%s answers the 404 of a missing id', async (collection, id, query) => {
      const [probe, control] = [await get(`/items/${collection}/${id}${query}`), await get(`/items/${collection}/${MISSING}${query}`)]
      expectAlike(probe, control, 404, 'NOT_FOUND', [[id, MISSING]])
      // The row is there: the admin reads it.
      expect((await get(`/items/${collection}/${id}`, 'admin')).status).toBe(200)
    })

    describe('with ?version=', () => {
      beforeAll(async () => {
        await ctx.reset()
        for (const [item, delta] of [
          [HIDDEN_ARTICLE, { title: 'Draft title', rating: 1 }],
          [MIXED_ARTICLE, { title: 'Draft title', rating: 1, parent: HIDDEN_ARTICLE }],
        ] as const) {
          const created = await call('post', '/versions', { key: 'draft', collection: 'articles', item }, 'admin')
          expect(created.status).toBe(200)
          expect((await call('post', `/versions/${created.body.data.id}/save`, delta, 'admin')).status).toBe(200)
        }
        // The version exists: the admin reads it.
        const admin = await get(`/items/articles/${HIDDEN_ARTICLE}?version=draft&fields=id,title,rating`, 'admin')
        expect(admin.body).toEqual({
          data: { id: HIDDEN_ARTICLE, title: 'Draft title', rating: 1, $meta: { version_id: expect.any(Number) } },
        })
      })

      it.each([
        [`${OTHER_HIDDEN_ARTICLE}?version=draft`, 'a hidden article without versions'],
        [`${MISSING}?version=draft`, 'a missing article'],
        [`${OTHER_HIDDEN_ARTICLE}?version=nope`, 'a hidden article and a missing key'],
      ])("a hidden article's version answers like %s (%s)", async (control) => {
        const probe = await get(`/items/articles/${HIDDEN_ARTICLE}?version=draft`)
        const other = await get(`/items/articles/${control}`)
        expectAlike(probe, other, 404, 'NOT_FOUND', [
          [HIDDEN_ARTICLE, control.split('?')[0]!],
          ['draft', control.split('=')[1]!],
        ])
      })

      it('?version=main of a hidden article is the same 404', async () => {
        expectAlike(
          await get(`/items/articles/${HIDDEN_ARTICLE}?version=main`),
          await get(`/items/articles/${MISSING}?version=main`),
          404,
          'NOT_FOUND',
          [[HIDDEN_ARTICLE, MISSING]],
        )
      })

      it("an own article's version shows the draft without the hidden rating or the hidden parent row", async () => {
        const response = await get(`/items/articles/${MIXED_ARTICLE}?version=draft&fields=*,parent.id,parent.title`)
        expect(response.status).toBe(200)
        expect(response.body).toEqual({
          data: { ...articleView(MIXED_ARTICLE), title: 'Draft title', parent: null, $meta: { version_id: expect.any(Number) } },
        })
        await expectUnknownLike(
          `/items/articles/${MIXED_ARTICLE}?version=draft&fields=rating`,
          `/items/articles/${MIXED_ARTICLE}?version=draft&fields=nope`,
          'rating',
          'nope',
        )
      })
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('by-query and by-key PATCH and DELETE', () => {
    beforeAll(() => ctx.reset())

    /** Sends the request and asserts it changed none of `tables`. */
    async function unchanged(tables: readonly string[], send: () => Promise<Response>): Promise<Response> {
      const before = await Promise.all(tables.map(snapshot))
      const response = await send()
      expect(await Promise.all(tables.map(snapshot))).toEqual(before)
      return response
    }

    it.each([
      ['patch', { query: { filter: { rating: { _eq: 5 } } }, data: { title: 'x' } }, 'rating'],
      ['patch', { query: { filter: { author: { email: { _nnull: true } } } }, data: { title: 'x' } }, 'email'],
      ['delete', { query: { filter: { _or: [{ id: { _eq: MIXED_ARTICLE } }, { rating: { _gt: 0 } }] } } }, 'rating'],
    ] as const)('%s articles by query naming a hidden field fails like an unknown one (%j)', async (method, body, hidden) => {
      const probe = await unchanged(['articles'], () => call(method, '/items/articles', body))
      const control = await call(method, '/items/articles', swap(body, hidden, 'nope'))
      expectAlike(probe, control, 400, 'INVALID_QUERY', [[hidden, 'nope']])
    })

    it.each([
      ['patch', 'articles', { query: { filter: { id: { _in: [HIDDEN_ARTICLE, OTHER_HIDDEN_ARTICLE] } } }, data: { title: 'Stolen' } }],
      ['patch', 'articles', { query: { search: HIDDEN_TERM }, data: { title: 'Stolen' } }],
      ['delete', 'comments', { query: { filter: { votes: { _gte: VOTE_LIMIT } } } }],
      ['delete', 'comments', { query: { filter: { article: { _eq: HIDDEN_ARTICLE } } } }],
    ] as const)('%s %s by query never touches hidden rows (%j)', async (method, collection, body) => {
      const response = await unchanged([collection], () => call(method, `/items/${collection}`, body))
      if (method === 'patch') expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { data: [] } })
      else expect(response.status).toBe(204)
    })

    it('PATCH comments by query changes the readable ones of the scope only', async () => {
      const all = seed.comments.filter((row) => row.article === MIXED_ARTICLE)
      const response = await call('patch', '/items/comments', {
        query: { filter: { article: { _eq: MIXED_ARTICLE } } },
        data: { votes: 3 },
      })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(all.filter(visibleComment).map((row) => ({ ...commentView(row), votes: 3 })))
      const stored = await ctx.knex('comments').where({ article: MIXED_ARTICLE }).orderBy('id').select('id', 'votes')
      expect(stored).toEqual(all.map((row) => ({ id: row.id, votes: visibleComment(row) ? 3 : row.votes })))
    })

    it('PATCH articles by query changes own rows only', async () => {
      const published = ownArticles.filter((row) => row.status === 'published').map((row) => row.id)
      const response = await call('patch', '/items/articles?fields=id,title', {
        query: { filter: { status: { _eq: 'published' } } },
        data: { title: 'Bulk' },
      })
      expect(response.status).toBe(200)
      expect(response.body.data).toEqual(published.map((id) => ({ id, title: 'Bulk' })))
      const stored = await ctx.knex('articles').where({ title: 'Bulk' }).orderBy('id').pluck('id')
      expect(stored.map(Number)).toEqual(published)
    })

    it.each([
      ['patch', 'articles', { title: 'Stolen' }],
      ['delete', 'articles', undefined],
      ['patch', 'comments', { votes: 1 }],
      ['delete', 'comments', undefined],
    ] as const)('%s %s/<hidden id> answers the 404 of a missing key', async (method, collection, body) => {
      const id = collection === 'articles' ? HIDDEN_ARTICLE : HIDDEN_COMMENT
      const probe = await unchanged([collection], () => call(method, `/items/${collection}/${id}`, body))
      expectAlike(probe, await call(method, `/items/${collection}/${MISSING}`, body), 404, 'NOT_FOUND', [[id, MISSING]])
    })

    it.each([
      ['patch', { keys: [224, HIDDEN_ARTICLE], data: { title: 'Stolen' } }, { keys: [224, MISSING], data: { title: 'Stolen' } }],
      [
        'patch',
        [
          { id: 224, title: 'Stolen' },
          { id: HIDDEN_ARTICLE, title: 'Stolen' },
        ],
        [
          { id: 224, title: 'Stolen' },
          { id: MISSING, title: 'Stolen' },
        ],
      ],
      ['delete', [201, HIDDEN_ARTICLE], [201, MISSING]],
    ] as const)('%s articles by keys with a hidden key answers like a missing one (%j)', async (method, body, controlBody) => {
      const probe = await unchanged(['articles'], () => call(method, '/items/articles', body))
      const control = await call(method, '/items/articles', controlBody)
      expectAlike(probe, control, 404, 'NOT_FOUND', [
        [HIDDEN_ARTICLE, MISSING],
        [OTHER_HIDDEN_ARTICLE, MISSING - 1],
      ])
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('read-back after a write', () => {
    beforeAll(() => ctx.reset())

    it('PATCH ?fields=*,author.* answers no hidden field and no hidden related row', async () => {
      const response = await call('patch', `/items/articles/${MIXED_ARTICLE}?fields=*,author.*`, { title: 'Renamed' })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { ...articleView(MIXED_ARTICLE), title: 'Renamed', author: authorView(USER) } })
    })

    it('PATCH ?fields=id,comments.*,parent.* leaves hidden comments out and a hidden parent null', async () => {
      const response = await call('patch', '/items/articles/26?fields=id,comments.*,parent.*', { status: 'archived' })
      expect(article(26).parent).not.toBeNull()
      expect(response.body).toEqual({ data: { id: 26, comments: [], parent: null } })
      const mixed = await call('patch', '/items/articles/252?fields=id,comments.*', { status: 'archived' })
      expect(mixed.body).toEqual({ data: { id: 252, comments: visibleComments.filter((row) => row.article === 252).map(commentView) } })
      expect(seed.comments.filter((row) => row.article === 252).length).toBeGreaterThan(commentIdsOf(252).length)
    })

    it('a write asking for a hidden field in ?fields fails like an unknown one, before writing', async () => {
      for (const [method, path, body] of [
        ['patch', '/items/articles/224', { title: 'Never' }],
        ['post', '/items/articles', { title: 'Never' }],
      ] as const) {
        const before = await snapshot('articles')
        const probe = await call(method, `${path}?fields=id,author.email`, body)
        expect(await snapshot('articles')).toEqual(before)
        expectAlike(probe, await call(method, `${path}?fields=id,author.nope`, body), 400, 'INVALID_QUERY', [['email', 'nope']])
      }
    })

    it('POST ?fields=*,author.*,parent.* answers the created article as the member may read it', async () => {
      const response = await call('post', '/items/articles?fields=*,author.*,parent.*', { title: 'Created', parent: 33 })
      expect(response.status).toBe(200)
      const id = response.body.data.id as number
      expect(response.body).toEqual({
        data: {
          id,
          title: 'Created',
          status: 'draft',
          published_at: null,
          tags: null,
          author: { ...authorView(USER), articles: [...ownIds, id] },
          parent: articleView(33),
          comments: [],
          topics: [],
        },
      })
    })

    it('POST of an article the member cannot read answers 204, and the row is written', async () => {
      const response = await call('post', '/items/articles', { title: 'Ghost', author: 5 })
      expect({ status: response.status, body: response.body }).toEqual({ status: 204, body: {} })
      expect(
        await ctx
          .knex('articles')
          .where({ title: 'Ghost', author: 5 })
          .count({ n: '*' })
          .then(([row]) => Number(row!.n)),
      ).toBe(1)
    })

    it('POST of a comment the member cannot read answers 204; an array answers the readable ones only', async () => {
      const single = await call('post', '/items/comments', { article: 201, votes: 80, body: 'Hidden body' })
      expect({ status: single.status, body: single.body }).toEqual({ status: 204, body: {} })
      const batch = await call('post', '/items/comments', [
        { article: 201, votes: 1, body: 'Seen' },
        { article: 201, votes: 90 },
      ])
      expect(batch.status).toBe(200)
      expect(batch.body).toEqual({ data: [{ id: expect.any(Number), article: 201, author: null, votes: 1 }] })
      const stored = await ctx.knex('comments').where({ article: 201 }).orderBy('id').select('votes', 'body')
      expect(stored).toEqual([
        { votes: 80, body: 'Hidden body' },
        { votes: 1, body: 'Seen' },
        { votes: 90, body: null },
      ])
    })

    it('PATCH of a comment in the update scope but not the read scope answers 204', async () => {
      const response = await call('patch', '/items/comments/557', { votes: 77 })
      expect({ status: response.status, body: response.body }).toEqual({ status: 204, body: {} })
      expect(await ctx.knex('comments').where({ id: 557 }).first('votes')).toEqual({ votes: 77 })
    })

    it('PATCH by keys answers the readable items only, without their hidden body', async () => {
      const response = await call('patch', '/items/comments', { keys: [306, 445], data: { body: 'edited' } })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: [commentView(seed.comments.find((row) => row.id === 306)!)] })
      expect(await ctx.knex('comments').whereIn('id', [306, 445]).orderBy('id').pluck('body')).toEqual(['edited', 'edited'])
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('many-to-one writes naming a hidden row', () => {
    it.each([
      ['post', '/items/articles', { title: 'Child', parent: HIDDEN_ARTICLE }, 'parent'],
      ['post', '/items/articles', { title: 'Guest', author: HIDDEN_AUTHOR }, 'author'],
      ['patch', `/items/articles/${MIXED_ARTICLE}`, { parent: HIDDEN_ARTICLE }, 'parent'],
      ['post', '/items/comments', { article: HIDDEN_ARTICLE, votes: 1 }, 'article'],
      ['patch', '/items/comments/107', { author: 15 }, 'author'],
    ] as const)('%s %s %j answers the INVALID_FOREIGN_KEY of a missing key', async (method, path, body, field) => {
      const table = path.split('/')[2]!
      const hidden = (body as Record<string, number>)[field]!
      const before = await snapshot(table)
      const probe = await call(method, path, body)
      expect(await snapshot(table)).toEqual(before)
      const control = await call(method, path, { ...body, [field]: MISSING })
      expectAlike(probe, control, 400, 'INVALID_FOREIGN_KEY', [[hidden, MISSING]])
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('singletons', () => {
    const URLS = ['/items/settings', '/items/settings/singleton', '/items/settings?fields=site_name,tagline', '/items/settings?meta=*']
    const DRAFT = '/items/settings?version=draft'
    /** The member's answers while the row exists but is hidden, and while there is no row at all. */
    const hidden = new Map<string, Response>()
    const absent = new Map<string, Response>()
    let stored: Row[]

    beforeAll(async () => {
      await ctx.reset({ settings: true })
      const created = await call('post', '/versions', { key: 'draft', collection: 'settings', item: 1 }, 'admin')
      expect(created.status).toBe(200)
      expect((await call('post', `/versions/${created.body.data.id}/save`, { tagline: 'Draft' }, 'admin')).status).toBe(200)
      hidden.set('admin', await get(DRAFT, 'admin'))
      for (const url of [...URLS, DRAFT, '/items/settings?version=nope']) hidden.set(url, await get(url))
      hidden.set('PATCH', await call('patch', '/items/settings', { tagline: 'Mine' }))
      stored = await snapshot('settings')
      await ctx.reset()
      for (const url of [...URLS, DRAFT]) absent.set(url, await get(url))
      absent.set('PATCH', await call('patch', '/items/settings', { tagline: 'Mine' }))
    })

    it('the row and its version exist for the admin; the member reads the defaults only', () => {
      expect(hidden.get('admin')!.body).toEqual({
        data: { id: 1, site_name: 'Demo', tagline: 'Draft', items_per_page: 25, $meta: { version_id: expect.any(Number) } },
      })
      expect(hidden.get('/items/settings')!.body).toEqual({ data: { id: null, tagline: 'Just another site', items_per_page: 10 } })
      expect(hidden.get('/items/settings?meta=*')!.body.meta).toEqual({ total_count: 0, filter_count: 0 })
    })

    it.each(URLS)('%s answers a hidden row like no row yet', (url) => {
      expectAlike(hidden.get(url)!, absent.get(url)!, 200, null)
    })

    it('?version=draft of the hidden row answers like a missing version, and like no row', () => {
      expectAlike(hidden.get(DRAFT)!, hidden.get('/items/settings?version=nope')!, 404, 'NOT_FOUND', [['draft', 'nope']])
      expectAlike(hidden.get(DRAFT)!, absent.get(DRAFT)!, 404, 'NOT_FOUND')
    })

    // The member may neither read nor update the row, nor create one: with no row the answer is 403, so a hidden
    // row must answer the same, not a 404 that names its key.
    it('PATCH (create denied) answers a hidden row like no row yet, and changes nothing', () => {
      expect(stored).toEqual([{ id: 1, site_name: 'Demo', tagline: 'Hello', items_per_page: 25 }])
      expectAlike(hidden.get('PATCH')!, absent.get('PATCH')!, 403, 'FORBIDDEN')
    })
  })

  // -------------------------------------------------------------------------------------------------------------
  describe('/versions', () => {
    let emptyList: Response
    const versionIds: number[] = []

    beforeAll(async () => {
      await ctx.reset({ settings: true })
      emptyList = await get('/versions?meta=*')
      for (const [collection, item] of [
        ['articles', HIDDEN_ARTICLE],
        ['articles', MIXED_ARTICLE],
        ['settings', 1],
      ] as const) {
        const created = await call('post', '/versions', { key: 'draft', collection, item }, 'admin')
        expect(created.status).toBe(200)
        versionIds.push(created.body.data.id as number)
      }
    })

    it('GET /versions lists none of them, like when there are none; filtered or aggregated too', async () => {
      expect((await get('/versions?meta=*', 'admin')).body.data).toHaveLength(3)
      expect(emptyList.body).toEqual({ data: [], meta: { total_count: 0, filter_count: 0 } })
      expectAlike(await get('/versions?meta=*'), emptyList, 200, null)
      expect((await get(`/versions?filter[item][_eq]=${HIDDEN_ARTICLE}`)).body).toEqual({ data: [] })
      expect((await get('/versions?aggregate[count]=*')).body).toEqual({ data: [{ count: 0 }] })
    })

    type VersionCall = readonly [Method, string, object | undefined]
    it.each<[string, VersionCall[]]>([
      [
        'GET /versions/:id, GET /versions/:id/compare',
        [
          ['get', '', undefined],
          ['get', '/compare', undefined],
        ],
      ],
      ['PATCH /versions/:id', [['patch', '', { name: 'Renamed' }]]],
      ['DELETE /versions/:id', [['delete', '', undefined]]],
      [
        'POST /versions/:id/save, POST /versions/:id/promote',
        [
          ['post', '/save', { title: 'Saved' }],
          ['post', '/promote', { mainHash: 'x' }],
        ],
      ],
    ])('%s answer the 404 of a missing id and change nothing', async (_label, calls) => {
      const before = await snapshot('items_versions')
      for (const [method, suffix, body] of calls) {
        const control = await call(method, `/versions/${MISSING}${suffix}`, body)
        for (const id of versionIds) expectAlike(await call(method, `/versions/${id}${suffix}`, body), control, 404, 'NOT_FOUND')
      }
      expect(await snapshot('items_versions')).toEqual(before)
    })

    it('an editor with full access to settings only sees the settings version alone', async () => {
      const list = await get('/versions', 'editor')
      expect(list.status).toBe(200)
      expect(list.body.data.map((version: Row) => [version.id, version.collection])).toEqual([[versionIds[2], 'settings']])
      expect((await get(`/versions/${versionIds[2]}`, 'editor')).status).toBe(200)
      const control = await get(`/versions/${MISSING}`, 'editor')
      for (const id of versionIds.slice(0, 2)) expectAlike(await get(`/versions/${id}`, 'editor'), control, 404, 'NOT_FOUND')
    })

    it('POST /versions for a hidden item answers like for an own or a missing one', async () => {
      const probe = await call('post', '/versions', { key: 'mine', collection: 'articles', item: HIDDEN_ARTICLE })
      for (const item of [MIXED_ARTICLE, MISSING]) {
        expectAlike(probe, await call('post', '/versions', { key: 'mine', collection: 'articles', item }), 403, 'FORBIDDEN')
      }
    })
  })
})
