// Relational reads (dot paths, wildcards, backlink, alias, deep) answer the seed's relations on every database, in one
// statement per relation node; over a network, the page's own many-to-one items come with the page's statement.
import type { Express } from 'express'
import knexFactory from 'knex'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { dialectOf } from '../../lib/dialects'
import type { CollectionDefinition } from '../../lib/types'
import { createApp } from '../support/app'
import { knexConfig } from '../support/databases'
import { foldsKeyLists, forEachDialect, type DialectContext } from '../support/dialects'
import { expectError } from '../support/expect-error'

type Row = Record<string, unknown> & { id: number }
type Body = { data?: unknown; meta?: unknown; errors?: Array<{ message: string; extensions: Record<string, unknown> }> }
type Member =
  | { name: string; kind: 'scalar' }
  | { name: string; kind: 'm2o'; target: string }
  | { name: string; kind: 'o2m'; target: string; foreignKey: string }

const DEFINITIONS: Record<string, CollectionDefinition> = collections
const ROWS: Record<string, readonly Row[]> = {
  authors: seed.authors as unknown as Row[],
  articles: seed.articles as unknown as Row[],
  comments: seed.comments as unknown as Row[],
  topics: seed.topics as unknown as Row[],
  article_topics: seed.article_topics as unknown as Row[],
}
/** The related collection's default page size, which is also the default per-parent list length. */
const DEFAULT_LIMIT = 100

/** The visible members of a collection in schema order: what `*` answers. */
function membersOf(collection: string): Member[] {
  return Object.entries(DEFINITIONS[collection]!.fields).flatMap(([name, field]): Member[] => {
    if (field.type === 'o2m') return [{ name, kind: 'o2m', target: field.collection, foreignKey: field.foreignKey }]
    if (field.hidden) return []
    return [field.references ? { name, kind: 'm2o', target: field.references } : { name, kind: 'scalar' }]
  })
}

function rowOf(collection: string, id: unknown): Row | undefined {
  return ROWS[collection]!.find((row) => row.id === id)
}

const byId = (a: Row, b: Row): number => a.id - b.id

/** The children of an o2m for one parent, in child primary-key order, cut to the default per-parent limit. */
function childrenOf(member: Extract<Member, { kind: 'o2m' }>, parentId: number): Row[] {
  return ROWS[member.target]!.filter((row) => row[member.foreignKey] === parentId)
    .sort(byId)
    .slice(0, DEFAULT_LIMIT)
}

/** The member of `target` that leads back through an m2o `member` of `collection` (the o2m mirroring it). */
function backOfM2o(collection: string, member: string, target: string): string | undefined {
  return membersOf(target).find((m) => m.kind === 'o2m' && m.target === collection && m.foreignKey === member)?.name
}

/**
 * What `fields=*` followed by `levels` more `.*` answers for one row: each extra level expands every relation,
 * except (with backlink=false) the one leading back to the parent.
 */
function wildcard(collection: string, row: Row, levels: number, backlink = true, back?: string): Record<string, unknown> {
  const item: Record<string, unknown> = {}
  for (const member of membersOf(collection)) {
    const expand = levels > 0 && member.kind !== 'scalar' && !(member.name === back && !backlink)
    if (member.kind === 'scalar') {
      item[member.name] = row[member.name]
    } else if (member.kind === 'm2o') {
      const key = row[member.name]
      if (!expand || key === null) {
        item[member.name] = key
        continue
      }
      const related = rowOf(member.target, key)
      item[member.name] = related
        ? wildcard(member.target, related, levels - 1, backlink, backOfM2o(collection, member.name, member.target))
        : null
    } else {
      const children = childrenOf(member, row.id)
      item[member.name] = expand
        ? children.map((child) => wildcard(member.target, child, levels - 1, backlink, member.foreignKey))
        : children.map((child) => child.id)
    }
  }
  return item
}

/** Relation nodes of `*` plus `levels` more `.*`: an expanded m2o or any o2m (its keys) is one node. */
function wildcardNodes(collection: string, levels: number, backlink = true, back?: string): number {
  let nodes = 0
  for (const member of membersOf(collection)) {
    if (member.kind === 'scalar') continue
    const expand = levels > 0 && !(member.name === back && !backlink)
    if (member.kind === 'm2o' && !expand) continue
    nodes += 1
    if (!expand) continue
    const next = member.kind === 'o2m' ? member.foreignKey : backOfM2o(collection, member.name, member.target)
    nodes += wildcardNodes(member.target, levels - 1, backlink, next)
  }
  return nodes
}

/**
 * Statements a wildcard read costs after the page: one per relation node that has at least one key to look up
 * (a node whose parents are all null or absent has nothing to ask the database). With `joined`, the page's own
 * many-to-one items come with the page (Dialect.joinsManyToOne); the nodes below them still cost theirs.
 */
function wildcardStatements(
  collection: string,
  rows: readonly Row[],
  levels: number,
  backlink = true,
  back?: string,
  joined = false,
): number {
  let statements = 0
  for (const member of membersOf(collection)) {
    if (member.kind === 'scalar') continue
    const expand = levels > 0 && !(member.name === back && !backlink)
    if (member.kind === 'm2o') {
      if (!expand) continue
      const keys = new Set(rows.map((row) => row[member.name]).filter((key) => key !== null))
      if (keys.size === 0) continue
      const related = [...keys].map((key) => rowOf(member.target, key)).filter((row): row is Row => row !== undefined)
      const own = joined ? 0 : 1
      statements +=
        own + wildcardStatements(member.target, related, levels - 1, backlink, backOfM2o(collection, member.name, member.target))
    } else {
      if (rows.length === 0) continue
      const children = rows.flatMap((row) => childrenOf(member, row.id))
      statements += 1 + (expand ? wildcardStatements(member.target, children, levels - 1, backlink, member.foreignKey) : 0)
    }
  }
  return statements
}

const article = (id: unknown): Row => rowOf('articles', id)!
const author = (id: unknown): Row => rowOf('authors', id)!
const topic = (id: unknown): Row => rowOf('topics', id)!
const commentsOf = (articleId: number): Row[] => ROWS.comments!.filter((row) => row.article === articleId).sort(byId)
const firstArticles = (count: number): Row[] => ROWS.articles!.slice(0, count)

/** Comments of one article by votes descending, ties by id ascending. */
const byVotes = (articleId: number): Row[] => commentsOf(articleId).sort((a, b) => (b.votes as number) - (a.votes as number) || a.id - b.id)

/** An article with no comments at all, and an author with no articles. */
const LONELY_ARTICLE = ROWS.articles!.find((row) => commentsOf(row.id).length === 0)!.id
const LONELY_AUTHOR = ROWS.authors!.find((row) => !ROWS.articles!.some((a) => a.author === row.id))!.id
/** An article whose parent has a parent: the only two-level self-reference chain in the seed. */
const GRANDCHILD = ROWS.articles!.find((row) => row.parent !== null && article(row.parent as number).parent !== null)!.id

async function ok(app: Express, url: string): Promise<unknown> {
  const response = await request(app).get(`/api${url}`)
  if (response.status !== 200) throw new Error(`GET ${url} → ${response.status} ${JSON.stringify(response.body)}`)
  return (response.body as Body).data
}

/** GETs `url`, which must answer one 400 INVALID_QUERY; answers its message and reason. */
async function invalid(app: Express, url: string): Promise<{ message: string; reason: unknown }> {
  const error = expectError(await request(app).get(`/api${url}`), 400, 'INVALID_QUERY')
  return { message: error.message, reason: error.extensions.reason }
}

async function statements(ctx: DialectContext, app: Express, url: string): Promise<number> {
  const { result, count } = await ctx.countQueries(() =>
    request(app)
      .get(`/api${url}`)
      .then((response) => response),
  )
  if (result.status !== 200) throw new Error(`GET ${url} → ${result.status} ${JSON.stringify(result.body)}`)
  return count
}

/** Inserts rows with foreign-key checks off on this very connection, so that a key can point at nothing. */
async function insertDangling(ctx: DialectContext, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  const knex = ctx.knex
  switch (ctx.name) {
    case 'sqlite':
      // The pool has a single connection, and the pragma is ignored inside a transaction.
      await knex.raw('PRAGMA foreign_keys = OFF')
      try {
        await knex(table).insert(rows)
      } finally {
        await knex.raw('PRAGMA foreign_keys = ON')
      }
      break
    case 'postgres':
      await knex.transaction(async (trx) => {
        await trx.raw('SET LOCAL session_replication_role = replica')
        await trx(table).insert(rows)
      })
      break
    case 'mysql':
      await knex.transaction(async (trx) => {
        await trx.raw('SET FOREIGN_KEY_CHECKS = 0')
        try {
          await trx(table).insert(rows)
        } finally {
          await trx.raw('SET FOREIGN_KEY_CHECKS = 1')
        }
      })
      break
  }
}

forEachDialect((ctx) => {
  let app: Express
  beforeAll(async () => {
    app = createApp(ctx.knex)
    // The first request may warm caches; statement counts are taken afterwards.
    await ok(app, '/items/articles?limit=1&fields=id,author.id,comments.id')
  })

  describe('seed assumptions', () => {
    it('has the shapes these specs rely on', () => {
      expect(Math.max(...ROWS.articles!.map((row) => commentsOf(row.id).length))).toBeLessThan(DEFAULT_LIMIT)
      expect(firstArticles(20).some((row) => row.author === null)).toBe(true)
      expect(firstArticles(30).some((row) => row.parent !== null)).toBe(true)
      expect(ROWS.comments!.some((row) => row.author === null)).toBe(true)
      expect(article(GRANDCHILD).parent).not.toBeNull()
      // Ties on votes at the top-2 boundary, inside the first 20 articles, so the id tiebreak is exercised.
      expect(firstArticles(20).some((row) => byVotes(row.id).length > 2 && byVotes(row.id)[1]!.votes === byVotes(row.id)[2]!.votes)).toBe(
        true,
      )
    })
  })

  describe('dot paths', () => {
    it('m2o: author.name, null where the article has no author', async () => {
      const expected = firstArticles(20).map((row) => ({
        id: row.id,
        title: row.title,
        author: row.author === null ? null : { name: author(row.author as number).name },
      }))
      expect(await ok(app, '/items/articles?limit=20&fields=id,title,author.name')).toEqual(expected)
    })

    it('o2m: comments.body per article in comment id order, [] for an article without comments', async () => {
      const ids = [1, 2, LONELY_ARTICLE]
      const expected = ids.map((id) => ({ id, comments: commentsOf(id).map((comment) => ({ body: comment.body })) }))
      expect(await ok(app, `/items/articles?fields=id,comments.body&filter[id][_in]=${ids.join(',')}`)).toEqual(expected)
      expect(expected[2]!.comments).toEqual([])
    })

    it('two levels: comments.author.name, null for comments without author', async () => {
      const expected = firstArticles(10).map((row) => ({
        comments: commentsOf(row.id).map((comment) => ({
          author: comment.author === null ? null : { name: author(comment.author).name },
        })),
      }))
      expect(await ok(app, '/items/articles?limit=10&fields=comments.author.name')).toEqual(expected)
    })

    it('author.* gives the author as `*` answers it (o2m as keys, no hidden field)', async () => {
      const data = (await ok(app, '/items/articles/1?fields=author.*')) as { author: Record<string, unknown> }
      expect(data).toEqual({ author: wildcard('authors', author(article(1).author as number), 0) })
      expect(data.author).not.toHaveProperty('password_hash')
    })

    it('a listed o2m without a path gives the child keys; an author without articles gives []', async () => {
      expect(await ok(app, `/items/authors/${LONELY_AUTHOR}?fields=id,articles,articles.id`)).toEqual({ id: LONELY_AUTHOR, articles: [] })
      expect(await ok(app, '/items/articles/1?fields=comments')).toEqual({ comments: commentsOf(1).map((row) => row.id) })
    })

    it('keys follow the requested order, relations included', async () => {
      const data = (await ok(app, '/items/articles/1?fields=comments.id,title,author.name,id')) as Record<string, unknown>
      expect(Object.keys(data)).toEqual(['comments', 'title', 'author', 'id'])
    })

    it('several paths through one relation merge into one object', async () => {
      const row = author(article(1).author as number)
      expect(await ok(app, '/items/articles/1?fields=author.name,author.email,author.articles')).toEqual({
        author: { name: row.name, email: row.email, articles: ROWS.articles!.filter((a) => a.author === row.id).map((a) => a.id) },
      })
    })
  })

  describe('many-to-many through article_topics', () => {
    it('article → topics.topic.name in junction key order', async () => {
      const links = ROWS.article_topics!.filter((row) => row.article === 1).sort(byId)
      expect(links.length).toBeGreaterThan(1)
      expect(await ok(app, '/items/articles/1?fields=topics.topic.name')).toEqual({
        topics: links.map((link) => ({ topic: { name: topic(link.topic).name } })),
      })
    })

    it('topic → articles.article.title from the other side', async () => {
      const links = ROWS.article_topics!.filter((row) => row.topic === 1).sort(byId)
      expect(await ok(app, '/items/topics/1?fields=articles.article.title')).toEqual({
        articles: links.map((link) => ({ article: { title: article(link.article as number).title } })),
      })
    })

    it('every article with its topic ids and names', async () => {
      const expected = ROWS.articles!.map((row) => ({
        id: row.id,
        topics: ROWS.article_topics!.filter((link) => link.article === row.id)
          .sort(byId)
          .map((link) => ({ topic: { id: link.topic, name: topic(link.topic).name } })),
      }))
      expect(await ok(app, '/items/articles?limit=-1&fields=id,topics.topic.id,topics.topic.name')).toEqual(expected)
    })
  })

  describe('self reference', () => {
    it('id,parent.title,parent.parent.id for every article', async () => {
      const expected = ROWS.articles!.map((row) => {
        const parent = row.parent === null ? null : article(row.parent as number)
        return {
          id: row.id,
          parent: parent === null ? null : { title: parent.title, parent: parent.parent === null ? null : { id: parent.parent } },
        }
      })
      expect(await ok(app, '/items/articles?limit=-1&fields=id,parent.title,parent.parent.id')).toEqual(expected)
      expect(expected.find((row) => row.id === GRANDCHILD)!.parent!.parent).not.toBeNull()
    })
  })

  describe('wildcards', () => {
    it('* on a page: m2o as keys, o2m as child keys', async () => {
      expect(await ok(app, '/items/articles?limit=30&fields=*')).toEqual(firstArticles(30).map((row) => wildcard('articles', row, 0)))
    })

    it.each<[string, number]>([
      ['*.*', 1],
      ['*.*.*', 2],
    ])('%s on the grandchild article expands every relation, cycles included', async (fields, levels) => {
      expect(await ok(app, `/items/articles/${GRANDCHILD}?fields=${fields}`)).toEqual(wildcard('articles', article(GRANDCHILD), levels))
    })

    it('*.* on a page of articles, null parents and authors staying null', async () => {
      expect(await ok(app, '/items/articles?limit=30&fields=*.*')).toEqual(firstArticles(30).map((row) => wildcard('articles', row, 1)))
    })

    it('*.*.* on comments goes comment → article → author and back down without looping', async () => {
      const rows = ROWS.comments!.slice(0, 10)
      expect(await ok(app, '/items/comments?limit=10&fields=*.*.*')).toEqual(rows.map((row) => wildcard('comments', row, 2)))
    })

    it('a wildcard after a relation: comments.* and topics.topic.*', async () => {
      expect(await ok(app, '/items/articles/1?fields=comments.*,topics.topic.*')).toEqual({
        comments: commentsOf(1).map((row) => wildcard('comments', row, 0)),
        topics: ROWS.article_topics!.filter((row) => row.article === 1)
          .sort(byId)
          .map((row) => ({ topic: wildcard('topics', topic(row.topic), 0) })),
      })
    })

    it('*.* never shows the hidden password_hash of an expanded author', async () => {
      const data = (await ok(app, '/items/comments?limit=50&fields=*.*')) as Array<{ author: unknown }>
      expect(JSON.stringify(data)).not.toContain('password_hash')
      expect(JSON.stringify(data)).not.toContain('$hash$')
    })
  })

  describe('backlink', () => {
    it('backlink=false keeps the back relation of comments.*.* a key while other relations expand', async () => {
      const data = await ok(app, '/items/articles?limit=10&fields=comments.*.*&backlink=false')
      const expected = firstArticles(10).map((row) => ({
        comments: commentsOf(row.id).map((comment) => ({
          ...wildcard('comments', comment, 0),
          author: comment.author === null ? null : wildcard('authors', author(comment.author), 0),
        })),
      }))
      expect(data).toEqual(expected)
      expect(data).toEqual(
        firstArticles(10).map((row) => ({
          comments: commentsOf(row.id).map((comment) => wildcard('comments', comment, 1, false, 'article')),
        })),
      )
    })

    it('by default (and with backlink=true) the back relation expands too', async () => {
      const expected = firstArticles(10).map((row) => ({
        comments: commentsOf(row.id).map((comment) => ({
          ...wildcard('comments', comment, 1),
          article: wildcard('articles', row, 0),
        })),
      }))
      expect(await ok(app, '/items/articles?limit=10&fields=comments.*.*')).toEqual(expected)
      expect(await ok(app, '/items/articles?limit=10&fields=comments.*.*&backlink=true')).toEqual(expected)
    })

    it('backlink=false through an m2o: author.*.* keeps author.articles as keys', async () => {
      const row = author(article(1).author as number)
      expect(await ok(app, '/items/articles/1?fields=author.*.*&backlink=false')).toEqual({ author: wildcard('authors', row, 0) })
      expect(await ok(app, '/items/articles/1?fields=author.*.*')).toEqual({ author: wildcard('authors', row, 1) })
    })

    it.each<[string, number]>([
      ['articles', GRANDCHILD],
      ['authors', 1],
      ['topics', 1],
    ])('*.*.* with backlink=false on %s/%s terminates with the back relations as keys', async (collection, id) => {
      const expected = wildcard(collection, rowOf(collection, id)!, 2, false)
      expect(expected).not.toEqual(wildcard(collection, rowOf(collection, id)!, 2, true))
      expect(await ok(app, `/items/${collection}/${id}?fields=*.*.*&backlink=false`)).toEqual(expected)
    })

    it('backlink makes no difference at depth 2', async () => {
      const expected = firstArticles(10).map((row) => wildcard('articles', row, 1))
      expect(await ok(app, '/items/articles?limit=10&fields=*.*&backlink=false')).toEqual(expected)
    })

    it('explicitly listed back paths are honoured with backlink=false', async () => {
      expect(await ok(app, '/items/articles/1?fields=comments.article.title,comments.id&backlink=false')).toEqual({
        comments: commentsOf(1).map((row) => ({ article: { title: article(1).title }, id: row.id })),
      })
      const row = author(article(1).author as number)
      expect(await ok(app, '/items/articles/1?fields=author.*,author.articles.id&backlink=false')).toEqual({
        author: { ...wildcard('authors', row, 0), articles: ROWS.articles!.filter((a) => a.author === row.id).map((a) => ({ id: a.id })) },
      })
    })

    it.each([['backlink=maybe'], ['backlink=1'], ['backlink=']])('%s → 400 INVALID_QUERY', async (query) => {
      await invalid(app, `/items/articles?fields=id&${query}`)
    })
  })

  describe('alias', () => {
    it('renames a scalar field, in the requested key order', async () => {
      const data = (await ok(app, '/items/articles?limit=5&fields=id,headline&alias[headline]=title')) as Array<Record<string, unknown>>
      expect(data).toEqual(firstArticles(5).map((row) => ({ id: row.id, headline: row.title })))
      expect(Object.keys(data[0]!)).toEqual(['id', 'headline'])
    })

    it('renames an m2o and expands it under the new name', async () => {
      expect(await ok(app, '/items/articles?limit=20&fields=id,writer.name&alias[writer]=author')).toEqual(
        firstArticles(20).map((row) => ({ id: row.id, writer: row.author === null ? null : { name: author(row.author as number).name } })),
      )
    })

    it('latest comment by votes through an aliased o2m with its own deep', async () => {
      const url = '/items/articles?limit=20&fields=id,latest.body&alias[latest]=comments&deep[latest][_sort]=-votes&deep[latest][_limit]=1'
      expect(await ok(app, url)).toEqual(
        firstArticles(20).map((row) => ({
          id: row.id,
          latest: byVotes(row.id)
            .slice(0, 1)
            .map((c) => ({ body: c.body })),
        })),
      )
    })

    it('fetches one relation twice with different deep settings', async () => {
      const url = '/items/articles?limit=20&fields=comments.id,top.id&alias[top]=comments&deep[top][_limit]=1'
      expect(await ok(app, url)).toEqual(
        firstArticles(20).map((row) => ({
          comments: commentsOf(row.id).map((c) => ({ id: c.id })),
          top: commentsOf(row.id)
            .slice(0, 1)
            .map((c) => ({ id: c.id })),
        })),
      )
    })

    it.each<[string, string]>([
      ['target not a field', 'fields=id,x&alias[x]=nope'],
      ['target hidden', 'fields=id,x&alias[x]=password_hash'],
      ['name of an existing field', 'fields=id,name&alias[name]=email'],
      ['name of an o2m field', 'fields=id,articles&alias[articles]=name'],
      ['name with a dot', 'fields=id&alias[a.b]=name'],
      ['not bracket form', 'fields=id&alias=name'],
    ])('%s → 400 INVALID_QUERY', async (_case, query) => {
      await invalid(app, `/items/authors?${query}`)
    })

    it('aliases apply at the root only', async () => {
      const { message } = await invalid(app, '/items/articles?fields=parent.headline&alias[headline]=title')
      expect(message).toContain('"headline"')
    })
  })

  describe('deep', () => {
    it('_limit with _sort gives each article its own top-2 comments by votes', async () => {
      const url = '/items/articles?limit=20&fields=id,comments.id,comments.votes&deep[comments][_limit]=2&deep[comments][_sort]=-votes'
      expect(await ok(app, url)).toEqual(
        firstArticles(20).map((row) => ({
          id: row.id,
          comments: byVotes(row.id)
            .slice(0, 2)
            .map((c) => ({ id: c.id, votes: c.votes })),
        })),
      )
    })

    it('the per-parent limit holds for every parent of the whole table, not for the batch', async () => {
      const data = (await ok(app, '/items/articles?limit=-1&fields=id,comments&deep[comments][_limit]=3')) as Array<{ comments: number[] }>
      expect(data).toEqual(
        ROWS.articles!.map((row) => ({
          id: row.id,
          comments: commentsOf(row.id)
            .slice(0, 3)
            .map((c) => c.id),
        })),
      )
    })

    it.each<[string, string, (rows: Row[]) => Row[]]>([
      ['_offset', 'deep[comments][_offset]=1&deep[comments][_limit]=2', (rows) => rows.slice(1, 3)],
      ['_offset without _limit', 'deep[comments][_offset]=3', (rows) => rows.slice(3, 3 + DEFAULT_LIMIT)],
      ['_page', 'deep[comments][_limit]=3&deep[comments][_page]=2', (rows) => rows.slice(3, 6)],
      ['_filter', 'deep[comments][_filter][votes][_gt]=50', (rows) => rows.filter((c) => (c.votes as number) > 50)],
      [
        '_filter with _sort and _limit',
        'deep[comments][_filter][votes][_gt]=50&deep[comments][_sort]=votes&deep[comments][_limit]=1',
        (rows) =>
          rows
            .filter((c) => (c.votes as number) > 50)
            .sort((a, b) => (a.votes as number) - (b.votes as number) || a.id - b.id)
            .slice(0, 1),
      ],
      [
        '_search',
        'deep[comments][_search]=AGREE',
        (rows) => rows.filter((c) => typeof c.body === 'string' && c.body.toLowerCase().includes('agree')),
      ],
      ['_limit=0', 'deep[comments][_limit]=0', () => []],
      ['_limit=-1', 'deep[comments][_limit]=-1', (rows) => rows],
      [
        'JSON string form',
        `deep=${encodeURIComponent(JSON.stringify({ comments: { _limit: 2, _sort: ['-votes'] } }))}`,
        (rows) => [...rows].sort((a, b) => (b.votes as number) - (a.votes as number) || a.id - b.id).slice(0, 2),
      ],
    ])("%s shapes each article's comments", async (_case, query, shape) => {
      const data = await ok(app, `/items/articles?limit=20&fields=id,comments.id&${query}`)
      const expected = firstArticles(20).map((row) => ({ id: row.id, comments: shape(commentsOf(row.id)).map((c) => ({ id: c.id })) }))
      expect(data).toEqual(expected)
    })

    // A one-item read has one parent, which takes a plain LIMIT / OFFSET instead of the per-parent window.
    it.each([
      'deep[comments][_offset]=1&deep[comments][_limit]=2',
      'deep[comments][_offset]=3',
      'deep[comments][_offset]=2&deep[comments][_limit]=-1',
      'deep[comments][_limit]=3&deep[comments][_page]=2',
      'deep[comments][_filter][votes][_gt]=50&deep[comments][_sort]=votes&deep[comments][_limit]=1',
      'deep[comments][_sort]=-votes&deep[comments][_limit]=2',
      'deep[comments][_limit]=0',
    ])('one item answers its comments as the list does: %s', async (query) => {
      const busiest = [...firstArticles(20)].sort((a, b) => commentsOf(b.id).length - commentsOf(a.id).length)[0]!
      expect(commentsOf(busiest.id).length).toBeGreaterThan(3)
      const list = (await ok(app, `/items/articles?limit=20&fields=id,comments.id&${query}`)) as Array<{ id: number }>
      const one = await ok(app, `/items/articles/${busiest.id}?fields=id,comments.id&${query}`)
      expect(one).toEqual(list.find((row) => row.id === busiest.id))
    })

    it('_search finds something and leaves articles without matches with []', async () => {
      const data = (await ok(app, '/items/articles?limit=20&fields=id,comments.body&deep[comments][_search]=great')) as Array<{
        comments: unknown[]
      }>
      expect(data.some((row) => row.comments.length > 0)).toBe(true)
      expect(data.some((row) => row.comments.length === 0)).toBe(true)
    })

    it('nests through an m2o: deep[author][articles][_limit]=1', async () => {
      const expected = firstArticles(20).map((row) => ({
        id: row.id,
        author:
          row.author === null
            ? null
            : {
                articles: ROWS.articles!.filter((a) => a.author === row.author)
                  .slice(0, 1)
                  .map((a) => ({ id: a.id })),
              },
      }))
      expect(await ok(app, '/items/articles?limit=20&fields=id,author.articles.id&deep[author][articles][_limit]=1')).toEqual(expected)
    })

    it("nests through an o2m: each author's last 2 articles, each with its top comment", async () => {
      const url =
        '/items/authors?limit=-1&fields=id,articles.id,articles.comments.id' +
        '&deep[articles][_sort]=-id&deep[articles][_limit]=2&deep[articles][comments][_sort]=-votes&deep[articles][comments][_limit]=1'
      expect(await ok(app, url)).toEqual(
        ROWS.authors!.map((row) => ({
          id: row.id,
          articles: ROWS.articles!.filter((a) => a.author === row.id)
            .sort((a, b) => b.id - a.id)
            .slice(0, 2)
            .map((a) => ({
              id: a.id,
              comments: byVotes(a.id)
                .slice(0, 1)
                .map((c) => ({ id: c.id })),
            })),
        })),
      )
    })

    it('deep on the m2m junction: first topic link of each article', async () => {
      expect(await ok(app, '/items/articles?limit=20&fields=id,topics.topic.name&deep[topics][_limit]=1')).toEqual(
        firstArticles(20).map((row) => ({
          id: row.id,
          topics: ROWS.article_topics!.filter((link) => link.article === row.id)
            .sort(byId)
            .slice(0, 1)
            .map((link) => ({ topic: { name: topic(link.topic).name } })),
        })),
      )
    })

    it.each<[string, string]>([
      ['unknown deep key', 'deep[comments][_foo]=1'],
      ['bad _limit', 'deep[comments][_limit]=abc'],
      ['_limit below -1', 'deep[comments][_limit]=-2'],
      ['bad _offset', 'deep[comments][_offset]=-1'],
      ['unknown _sort field', 'deep[comments][_sort]=nope'],
      ['unknown _filter field', 'deep[comments][_filter][nope][_eq]=1'],
      ['bad _filter operator', 'deep[comments][_filter][votes][_bogus]=1'],
      ['malformed JSON', 'deep={"comments":'],
      ['deep not an object', 'deep=5'],
      ['deep of a relation not an object', 'deep[comments]=5'],
    ])('%s → 400 INVALID_QUERY', async (_case, query) => {
      await invalid(app, `/items/articles?fields=id,comments.id&${query}`)
    })

    // An unknown deep key is a malformed request whatever the field tree holds.
    it.each<[string, string]>([
      ['on an m2o', 'fields=id,author.name&deep[author][_foo]=1'],
      ['on an o2m the fields do not list', 'fields=id&deep[comments][_foo]=1'],
      ['under an m2o, on an o2m the fields do not list', 'fields=id,author.name&deep[author][articles][_foo]=1'],
    ])('an unknown deep key %s → 400 INVALID_QUERY', async (_case, query) => {
      const { message } = await invalid(app, `/items/articles?${query}`)
      expect(message).toContain('_foo')
    })

    describe('with router limits', () => {
      let small: Express
      let capped: Express
      beforeAll(() => {
        small = createApp(ctx.knex, { defaultLimit: 5 })
        capped = createApp(ctx.knex, { defaultLimit: 10, maxLimit: 10 })
      })

      it("the default per-parent limit is the related collection's defaultLimit; -1 lifts it", async () => {
        expect(commentsOf(1).length).toBeGreaterThan(5)
        expect(await ok(small, '/items/articles/1?fields=comments')).toEqual({
          comments: commentsOf(1)
            .slice(0, 5)
            .map((c) => c.id),
        })
        expect(await ok(small, '/items/articles/1?fields=comments.id')).toEqual({
          comments: commentsOf(1)
            .slice(0, 5)
            .map((c) => ({ id: c.id })),
        })
        expect(await ok(small, '/items/articles/1?fields=comments&deep[comments][_limit]=-1')).toEqual({
          comments: commentsOf(1).map((c) => c.id),
        })
      })

      it('maxLimit applies to _limit, and caps _limit=-1', async () => {
        const { message } = await invalid(capped, '/items/articles/1?fields=comments&deep[comments][_limit]=11')
        expect(message).toContain('10')
        expect(await ok(capped, '/items/articles/1?fields=comments&deep[comments][_limit]=10')).toEqual({
          comments: commentsOf(1)
            .slice(0, 10)
            .map((c) => c.id),
        })
        expect(await ok(capped, '/items/articles/1?fields=comments&deep[comments][_limit]=-1')).toEqual({
          comments: commentsOf(1)
            .slice(0, 10)
            .map((c) => c.id),
        })
      })
    })
  })

  describe('invalid paths', () => {
    it.each<[string, string, string]>([
      ['articles', 'author.nope', 'nope'],
      ['articles', 'nope.name', 'nope'],
      ['articles', 'comments.author.nope', 'nope'],
      ['articles', 'topics.topic.nope', 'nope'],
      ['topics', 'articles.article.nope', 'nope'],
      ['articles', 'parent.parent.nope', 'nope'],
      ['articles', 'author.nope.*', 'nope'],
    ])('unknown segment: %s?fields=%s → 400 naming it', async (collection, fields, name) => {
      const { message, reason } = await invalid(app, `/items/${collection}?fields=${fields}`)
      expect(message).toContain(`"${name}"`)
      expect(String(reason)).toContain(`"${name}"`)
    })

    it('a hidden field behind a relation answers exactly like an unknown one', async () => {
      const hidden = await invalid(app, '/items/articles?fields=author.password_hash')
      const unknown = await invalid(app, '/items/articles?fields=author.password_hasx')
      expect(hidden.message).toContain('"password_hash"')
      expect(hidden).toEqual({
        message: unknown.message.replace('password_hasx', 'password_hash'),
        reason: String(unknown.reason).replace('password_hasx', 'password_hash'),
      })
      const deeper = await invalid(app, '/items/articles?fields=comments.author.password_hash')
      expect(deeper).toEqual(hidden)
    })

    it.each<[string, string]>([
      ['articles', 'title.x'],
      ['articles', 'id.x'],
      ['articles', 'tags.x'],
      ['articles', 'comments.body.x'],
      ['articles', 'author.name.x'],
      ['comments', 'votes.*'],
    ])('a path through a non-relational field: %s?fields=%s → 400', async (collection, fields) => {
      const { message } = await invalid(app, `/items/${collection}?fields=${fields}`)
      expect(message).toContain(`"${fields.split('.').slice(-2, -1)[0]}"`)
    })

    it.each([['author.'], ['.name'], ['author..name'], ['comments.']])('an empty segment in %s → 400', async (fields) => {
      await invalid(app, `/items/articles?fields=${fields}`)
    })
  })

  describe('depth and size limits', () => {
    const parents = (count: number): string => `${'parent.'.repeat(count)}id`

    it('10 relations in one path are allowed by default', async () => {
      // Article GRANDCHILD → parent → grandparent → null.
      const grandparent = article(article(GRANDCHILD).parent as number).parent
      expect(await ok(app, `/items/articles/${GRANDCHILD}?fields=${parents(10)}`)).toEqual({
        parent: { parent: { parent: null } },
      })
      expect(grandparent).not.toBeNull()
      expect(article(grandparent as number).parent).toBeNull()
    })

    it('11 relations in one path → 400', async () => {
      await invalid(app, `/items/articles/${GRANDCHILD}?fields=${parents(11)}`)
    })

    it('maxRelationalDepth is configurable', async () => {
      const shallow = createApp(ctx.knex, { maxRelationalDepth: 2 })
      expect(await ok(shallow, '/items/articles/1?fields=comments.author.id')).toEqual({
        comments: commentsOf(1).map((c) => ({ author: c.author === null ? null : { id: c.author } })),
      })
      await invalid(shallow, '/items/articles/1?fields=comments.author.articles.id')
      await invalid(shallow, '/items/articles/1?fields=*.*.*.*')
      expect(await ok(shallow, `/items/articles/${GRANDCHILD}?fields=*.*.*`)).toEqual(wildcard('articles', article(GRANDCHILD), 2))
    })

    it('*.*.*.* expands more than 50 relation nodes → 400 by default', async () => {
      expect(wildcardNodes('articles', 3)).toBeGreaterThan(50)
      expect(wildcardNodes('articles', 2)).toBeLessThanOrEqual(50)
      const { message } = await invalid(app, '/items/articles/1?fields=*.*.*.*')
      expect(message).toContain('50')
    })

    it('maxRelations counts every relation node, o2m key lists included', async () => {
      const four = createApp(ctx.knex, { maxRelations: 4 })
      // comments, topics (keys), author, author.articles (keys): 4 nodes.
      const row = article(1)
      expect(await ok(four, '/items/articles/1?fields=*,author.*')).toEqual({
        ...wildcard('articles', row, 0),
        author: wildcard('authors', author(row.author as number), 0),
      })
      await invalid(four, '/items/articles/1?fields=*,author.*,parent.id')
      await invalid(four, '/items/articles/1?fields=comments,topics,author.articles,parent.id,comments.author.id')
    })
  })

  describe('statement counts', () => {
    /** Whether the page's many-to-one items come with the page's statement (Dialect.joinsManyToOne). */
    let joined: boolean
    /** Whether a one-item read's key lists come with its row (ServerTraits.foldedKeys: not on SQLite's own connection). */
    let folds: boolean
    beforeAll(async () => {
      const dialect = dialectOf(ctx.knex)
      joined = dialect.joinsManyToOne
      folds = await foldsKeyLists(ctx.knex)
    })
    /** `statements`, less the page's own many-to-one items where they come with the page. */
    const withPage = (statements: number, pageManyToOne: number): number => statements - (joined ? pageManyToOne : 0)
    /** An app whose router has read no per-parent window yet (see ItemLoader's `overflowing`), warmed as `app` is. */
    const freshApp = async (): Promise<Express> => {
      const fresh = createApp(ctx.knex)
      await ok(fresh, '/items/articles?limit=1&fields=id,author.id,comments.id')
      return fresh
    }

    it.each<[string, number, number, number]>([
      // page + author + comments
      ['limit=100&fields=id,title,author.name,comments.body', 3, 1, 0],
      // page + comments + topics + author + author.articles (the author's o2m keys, since author.* includes them)
      ['limit=100&fields=*,author.*,comments.*', 5, 1, 0],
      // page + comments keys + topics keys
      ['limit=100&fields=*', 3, 0, 0],
      ['limit=100&fields=*&meta=*', 5, 0, 0],
      ['limit=100&fields=*&meta=total_count', 4, 0, 0],
      // page + comments + comment authors: a many-to-one below a one-to-many has a statement of its own
      ['limit=100&fields=comments.author.name', 3, 0, 0],
      // page + two o2m nodes over the same relation; most articles have more than one comment
      ['limit=100&fields=comments.id,top.id&alias[top]=comments&deep[top][_limit]=1', 3, 0, 1],
      // page + junction + topics
      ['limit=100&fields=id,topics.topic.name', 3, 0, 0],
      ['limit=100&fields=id,comments.id&deep[comments][_limit]=2&deep[comments][_sort]=-votes', 2, 0, 1],
      ['limit=100&fields=id,comments.id&deep[comments][_limit]=60&deep[comments][_sort]=-votes', 2, 0, 0],
      // page + author + parent: two many-to-one items of the page
      ['limit=100&fields=id,author.name,parent.title', 3, 2, 0],
      // sorted through a relation: the page's many-to-one items have a statement of their own
      ['limit=100&fields=id,author.name&sort=author.name', 2, 0, 0],
    ])(
      'GET /items/articles?%s costs %i statements, less %i where they come with the page, and %i more where a plain read falls short of the windows',
      async (query, expected, pageManyToOne, fallsShort) => {
        expect(await statements(ctx, await freshApp(), `/items/articles?${query}`)).toBe(withPage(expected, pageManyToOne) + fallsShort)
      },
    )

    it('numbers the rows in SQL at once for a list whose plain read fell short of its windows before', async () => {
      const fresh = await freshApp()
      const url = '/items/articles?limit=100&fields=id,comments.id&deep[comments][_limit]=2&deep[comments][_sort]=-votes'
      // Page, plain read of the comments, windows; then page and windows.
      const counts = [await statements(ctx, fresh, url), await statements(ctx, fresh, url)]
      expect(counts).toEqual([3, 2])
      // The same windows either way, and as another page of the same shape reads them.
      expect(await ok(fresh, url)).toEqual(await ok(await freshApp(), url))
      expect(await statements(ctx, fresh, url.replace('limit=100', 'limit=100&offset=1'))).toBe(2)
    })

    it.each<[number, number, string]>([
      [60, 0, '-votes'],
      [30, 2, 'votes'],
      [2, 0, '-votes'],
      [3, 1, 'id'],
    ])(
      "per-parent windows (_limit %i, _offset %i, _sort %s): each article's comments as a ROW_NUMBER() window keeps them",
      async (limit, offset, sort) => {
        const deep = `deep[comments][_limit]=${limit}&deep[comments][_offset]=${offset}&deep[comments][_sort]=${sort}`
        const answered = (await ok(app, `/items/articles?limit=10&fields=id,comments.id&sort=id&${deep}`)) as Array<{
          id: number
          comments: Row[]
        }>
        const order = `${sort.replace('-', '')} ${sort.startsWith('-') ? 'desc' : 'asc'}, id`
        const windowed = (await ctx
          .knex('comments')
          .select('id', 'article', ctx.knex.raw(`row_number() over (partition by article order by ${order}) as n`))
          .whereIn(
            'article',
            answered.map((article) => article.id),
          )) as Row[]
        expect(answered.map((article) => ({ id: article.id, comments: article.comments.map((comment) => comment.id) }))).toEqual(
          answered.map((article) => ({
            id: article.id,
            comments: windowed
              .filter((row) => row.article === article.id && Number(row.n) > offset && Number(row.n) <= offset + limit)
              .sort((a, b) => Number(a.n) - Number(b.n))
              .map((row) => row.id),
          })),
        )
      },
    )

    it.each<[string, string[]]>([
      ['*,author.*,comments.*', ['5', '100', '-1']],
      ['*', ['5', '100', '-1']],
      ['comments.author.name', ['5', '100', '-1']],
      // The first articles have no parent, so a smaller page would skip the parent nodes.
      ['*.*', ['30', '100', '-1']],
    ])('fields=%s costs the same for limits %j', async (fields, limits) => {
      const counts: number[] = []
      for (const limit of limits) counts.push(await statements(ctx, app, `/items/articles?limit=${limit}&fields=${fields}`))
      expect(counts).toEqual(limits.map(() => counts[0]))
    })

    it.each<[string, boolean]>([
      ['*.*', true],
      ['*.*.*', true],
      ['*.*.*', false],
    ])('fields=%s (backlink=%s) over 100 articles: one statement per relation node with keys', async (fields, backlink) => {
      const levels = fields.split('.').length - 1
      const count = await statements(ctx, app, `/items/articles?limit=100&fields=${fields}&backlink=${backlink}`)
      expect(count).toBe(1 + wildcardStatements('articles', firstArticles(100), levels, backlink, undefined, joined))
      expect(count).toBeLessThanOrEqual(1 + wildcardNodes('articles', levels, backlink))
    })

    it("a read by id costs the page's statements less its key lists where they come with its row (Dialect.keyPairs)", async () => {
      await ok(app, '/items/articles/1') // On MySQL, the router's first such read asks the server what it supports.
      /** `statements`, less the key lists folded into the item's own statement where the dialect folds them. */
      const less = (statements: number, keyLists: number): number => statements - (folds ? keyLists : 0)
      // The topic keys of `*` may come with the article; the comments (with fields) and the author's article keys do not.
      expect(await statements(ctx, app, '/items/articles/1?fields=*,author.*,comments.*')).toBe(less(withPage(5, 1), 1))
      expect(await statements(ctx, app, '/items/articles/1')).toBe(less(3, 2))
      expect(
        await statements(ctx, app, '/items/articles/1?fields=id,comments&deep[comments][_sort]=-votes&deep[comments][_offset]=1'),
      ).toBe(less(2, 1))
      // A filtered list (`deep`, or a caller's scope) keeps its own statement, as does one longer than 1,000 keys.
      expect(await statements(ctx, app, '/items/articles/1?fields=id,comments&deep[comments][_filter][votes][_gt]=1')).toBe(2)
      const roomy = createApp(ctx.knex, { maxLimit: 2000, maxLoadedRows: 5000 })
      await ok(roomy, '/items/articles/1')
      expect(await statements(ctx, roomy, '/items/articles/1?fields=id,comments&deep[comments][_limit]=1000')).toBe(less(2, 1))
      expect(await statements(ctx, roomy, '/items/articles/1?fields=id,comments&deep[comments][_limit]=1001')).toBe(2)
    })
  })

  describe("a one-item read's key lists, folded into its statement (Dialect.keyPairs)", () => {
    /** The article as the list read answers `query`: its key lists by statements of their own (ItemLoader.children). */
    const listed = async (id: number, query: string): Promise<unknown> =>
      ((await ok(app, `/items/articles?filter[id][_eq]=${id}&${query}`)) as Row[])[0]

    it.each([
      '',
      'deep[comments][_sort]=-id',
      'deep[comments][_sort]=-votes',
      'deep[comments][_sort]=votes,-id&deep[comments][_limit]=3',
      'deep[comments][_sort]=body&deep[comments][_limit]=2&deep[comments][_offset]=1',
      'deep[comments][_limit]=0&deep[topics][_sort]=-id',
      'deep[comments][_offset]=50',
    ])('answer as the list read answers them: %s', async (deep) => {
      const query = `fields=id,comments,topics&${deep}`
      for (const id of [1, 2, 7]) expect(await ok(app, `/items/articles/${id}?${query}`)).toEqual(await listed(id, query))
    })

    if (ctx.name === 'mysql') {
      it("on MariaDB, hold no more keys than group_concat_max_len leaves room for: past it the aggregate's text is cut", async () => {
        // 256 bytes leave room for 7 keys (Dialect.serverTraits); article 1's 44 comment keys take about 440.
        type Connection = { query(sql: string, done: (error: Error | null) => void): void }
        const narrow = knexFactory({
          ...knexConfig('mysql'),
          pool: {
            min: 0,
            max: 2,
            afterCreate: (connection: Connection, done: (error: Error | null, connection: Connection) => void) =>
              connection.query('set session group_concat_max_len = 256', (error) => done(error, connection)),
          },
        })
        const statements: string[] = []
        narrow.on('query', (query: { sql: string }) => statements.push(query.sql))
        try {
          const narrowApp = createApp(narrow)
          await ok(narrowApp, '/items/articles/1') // The first read by id asks the server what it supports.
          for (const limit of [7, 8, 100]) {
            const query = `fields=id,comments&deep[comments][_limit]=${limit}`
            statements.length = 0
            const answered = await ok(narrowApp, `/items/articles/1?${query}`)
            expect({ limit, statements: statements.length }).toEqual({ limit, statements: limit <= 7 ? 1 : 2 })
            expect(answered).toEqual(await listed(1, query))
          }
        } finally {
          await narrow.destroy()
        }
      })

      it('on MariaDB, read a list by its own statement when a connection cut its text shorter than the router was told', async () => {
        const single = knexFactory({ ...knexConfig('mysql'), pool: { min: 1, max: 1 } })
        try {
          const singleApp = createApp(single)
          await ok(singleApp, '/items/articles/1') // asked at the default: room for 32,767 keys
          await single.raw('set session group_concat_max_len = 256') // the pool's one connection
          const query = 'fields=id,comments&deep[comments][_limit]=100'
          const statements: string[] = []
          single.on('query', (statement: { sql: string }) => statements.push(statement.sql))
          const answered = await ok(singleApp, `/items/articles/1?${query}`)
          // The item with its cut list, then the list by a statement of its own.
          expect(statements).toHaveLength(2)
          expect(answered).toEqual(await listed(1, query))
        } finally {
          await single.destroy()
        }
      })
    }

    it('count against maxLoadedRows as the rows of their own statements would', async () => {
      const url = '/api/items/articles/1?fields=id,comments,topics'
      const answered = (await ok(app, '/items/articles/1?fields=id,comments,topics')) as { comments: unknown[]; topics: unknown[] }
      const rows = 1 + answered.comments.length + answered.topics.length
      expect(answered.comments.length).toBeGreaterThan(1)
      // The article, its comments and its topics: exactly the budget answers; one row less is a 400.
      expect((await request(createApp(ctx.knex, { maxLoadedRows: rows })).get(url)).status).toBe(200)
      const refused = await request(createApp(ctx.knex, { maxLoadedRows: rows - 1 })).get(url)
      expect(refused.status).toBe(400)
      expect(refused.body.errors[0].message).toMatch(/maxLoadedRows/)
    })
  })

  describe("many-to-one items read with the page's statement (Dialect.joinsManyToOne)", () => {
    it.each(['-rating', 'rating', 'title', '-title', '-published_at,title', 'status,-id'])(
      'sort=%s: the same page, in the same order, as without its related items',
      async (sort) => {
        const page = `limit=7&offset=5&sort=${sort}`
        const plain = (await ok(app, `/items/articles?${page}&fields=id,author,parent`)) as Row[]
        const expanded = (await ok(app, `/items/articles?${page}&fields=id,author.name,parent.title`)) as Row[]
        expect(expanded).toEqual(
          plain.map((row) => ({
            id: row.id,
            author: row.author === null ? null : { name: author(row.author).name },
            parent: row.parent === null ? null : { title: article(row.parent).title },
          })),
        )
      },
    )

    it('a cursor walks the same pages with the related items as without them', async () => {
      const expand = (row: Row): Row => ({
        id: row.id,
        author: row.author === null ? null : { name: author(row.author).name },
        parent: row.parent === null ? null : { title: article(row.parent).title },
      })
      const plain = (await ok(app, '/items/articles?sort=-rating&limit=21&fields=id,author,parent')) as Row[]
      const walked: unknown[] = []
      let cursor = ''
      for (let page = 0; page < 3; page++) {
        const response = await request(app).get(
          `/api/items/articles?sort=-rating&limit=7&fields=id,author.name,parent.title&meta=next_cursor${cursor}`,
        )
        const body = response.body as { data: unknown[]; meta: { next_cursor: string } }
        walked.push(...body.data)
        cursor = `&cursor=${body.meta.next_cursor}`
      }
      expect(walked).toEqual(plain.map(expand))
    })

    it('limits the page before joining: the join reads the page, not the table', async () => {
      const { sql } = await ctx.countQueries(() => request(app).get('/api/items/articles?limit=5&fields=id,author.name'))
      if (dialectOf(ctx.knex).joinsManyToOne) {
        expect(sql).toEqual([expect.stringMatching(/ from \(select .* limit [?$\d]+\) as [`"]__items_page[`"] left join /)])
      } else {
        expect(sql.filter((statement) => / join /.test(statement))).toEqual([])
      }
    })
  })

  describe('dangling keys', () => {
    const DANGLING = 1001
    const MISSING_AUTHOR = 999
    beforeAll(async () => {
      await insertDangling(ctx, 'articles', [{ id: DANGLING, title: 'Orphan', status: 'draft', author: MISSING_AUTHOR }])
      await insertDangling(ctx, 'comments', [{ id: DANGLING, article: DANGLING, author: MISSING_AUTHOR, body: 'Lost', votes: 1 }])
    })
    afterAll(() => ctx.reset())

    it('the stored key is still answered when the m2o is not expanded', async () => {
      expect(await ok(app, `/items/articles/${DANGLING}?fields=id,author`)).toEqual({ id: DANGLING, author: MISSING_AUTHOR })
    })

    it('an expanded m2o to a missing item answers null', async () => {
      expect(await ok(app, `/items/articles/${DANGLING}?fields=id,author.name`)).toEqual({ id: DANGLING, author: null })
      expect(await ok(app, `/items/articles?filter[id][_in]=1,${DANGLING}&fields=id,author.name`)).toEqual([
        { id: 1, author: { name: author(article(1).author as number).name } },
        { id: DANGLING, author: null },
      ])
    })

    it('*.* answers null for the dangling author and expands the rest', async () => {
      expect(await ok(app, `/items/articles/${DANGLING}?fields=*.*`)).toEqual({
        id: DANGLING,
        title: 'Orphan',
        status: 'draft',
        rating: null,
        published_at: null,
        tags: null,
        author: null,
        parent: null,
        comments: [{ id: DANGLING, article: DANGLING, author: MISSING_AUTHOR, body: 'Lost', votes: 1 }],
        topics: [],
      })
    })

    it('a dangling key below an o2m answers null too', async () => {
      expect(await ok(app, `/items/articles/${DANGLING}?fields=comments.author.name,comments.body`)).toEqual({
        comments: [{ author: null, body: 'Lost' }],
      })
    })
  })
})
