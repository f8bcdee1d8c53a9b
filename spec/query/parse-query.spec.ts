// The shared parameter parser turns raw query strings into exact typed Query parts, or an InvalidQueryError naming why.
import { InvalidPayloadError, InvalidQueryError } from '../../lib/errors'
import { parseFields } from '../../lib/query/parse-fields'
import { parseList, parseSingle } from '../../lib/query/parse-list'
import { parsePagination } from '../../lib/query/parse-pagination'
import { parseQuery, parseSelection } from '../../lib/query/parse-query'
import { parseSort } from '../../lib/query/parse-sort'
import type { FieldNode, SortNode } from '../../lib/query/query'
import { QUERY_PARAMETER_NAMES, type QueryParameterName } from '../../lib/query/query-parameters'
import { readQueryString, type QueryStringLimits } from '../../lib/query/read-query-string'
import type { Collection, Field, O2MRelation } from '../../lib/schema/collection'
import { collection, DEFAULT_LIMITS, fixtureSchema, openSchema, PARSER_LIMITS } from '../support/schema'

const parserOptions = { schema: openSchema, ...PARSER_LIMITS }
/** Limits with a cap, for the maxLimit cases. */
const CAPPED_LIMITS = { ...DEFAULT_LIMITS, defaultLimit: 10, maxLimit: 50 }
const LARGEST = 2_147_483_647

const articles = collection('articles')
const authors = collection('authors')

function field(of: Collection, name: string): Field {
  const member = of.members.get(name)
  if (member?.kind !== 'field') throw new Error(`${of.name}.${name} is not a field`)
  return member
}

function relation(of: Collection, name: string): O2MRelation {
  const member = of.members.get(name)
  if (member?.kind !== 'o2m') throw new Error(`${of.name}.${name} is not an o2m`)
  return member
}

/** The FieldNode the parser must produce for a member name (schema objects, never request strings). */
function node(of: Collection, name: string): FieldNode {
  const member = of.members.get(name)
  if (!member) throw new Error(`${of.name}.${name} missing`)
  if (member.kind === 'field') return { kind: 'field', output: name, field: member }
  const related = member.related
  // Unexpanded o2m: the keys, with the related collection's default list shape.
  const selection = {
    filter: null,
    search: null,
    sort: [{ field: related.primaryKey, direction: 'asc' as const, path: [] }],
    limit: 100,
    offset: 0,
  }
  return { kind: 'o2m', output: name, relation: member, related, children: null, selection }
}

const nodes = (of: Collection, names: string[]): FieldNode[] => names.map((name) => node(of, name))

function sortNodes(of: Collection, entries: Array<[string, 'asc' | 'desc']>): SortNode[] {
  return entries.map(([name, direction]) => ({ field: field(of, name), direction, path: [] }))
}

/** Runs `fn`, which must throw an InvalidQueryError, and answers its reason. */
function reasonOf(fn: () => unknown): string {
  let thrown: unknown
  try {
    fn()
  } catch (error) {
    thrown = error
  }
  expect(thrown).toBeInstanceOf(InvalidQueryError)
  const error = thrown as InvalidQueryError
  expect(error.code).toBe('INVALID_QUERY')
  expect(error.status).toBe(400)
  expect(error.message).toBe(`Invalid query. ${error.reason}.`)
  return error.reason
}

const ARTICLE_MEMBERS = ['id', 'title', 'status', 'rating', 'published_at', 'tags', 'author', 'parent', 'comments', 'topics']
const AUTHOR_VISIBLE = ['id', 'name', 'email', 'bio', 'articles']

describe('parseList / parseSingle', () => {
  it.each<[string, unknown, string[]]>([
    ['absent', undefined, []],
    ['empty text', '', []],
    ['one name', 'id', ['id']],
    ['comma list', 'id,title', ['id', 'title']],
    ['whitespace and empty entries dropped', ' id , ,title ,', ['id', 'title']],
    ['array form', ['id', 'title'], ['id', 'title']],
    ['array entries may hold commas', ['id,title', 'rating'], ['id', 'title', 'rating']],
    ['empty array', [], []],
    ['JSON array string', '["id","title"]', ['id', 'title']],
    ['JSON array entries may hold commas', '[" id,title", "rating"]', ['id', 'title', 'rating']],
  ])('parseList: %s', (_label, raw, expected) => {
    expect(parseList(raw, 'fields')).toEqual(expected)
  })

  it.each<[string, unknown]>([
    ['an object', { a: 'b' }],
    ['a nested array', [['id']]],
    ['a number inside an array', [1]],
  ])('parseList rejects %s', (_label, raw) => {
    expect(reasonOf(() => parseList(raw, 'fields'))).toBe('"fields" must be a comma-separated list')
  })

  it.each<[string, unknown, string]>([
    ['malformed JSON', '["id"', 'Invalid JSON for fields array'],
    ['JSON that is no array', '[1]x', 'Invalid JSON for fields array'],
    ['a number in a JSON array', '[1]', '"fields" must be a comma-separated list'],
  ])('parseList rejects %s', (_label, raw, reason) => {
    expect(reasonOf(() => parseList(raw, 'fields'))).toBe(reason)
  })

  it.each<[unknown, string | undefined]>([
    [undefined, undefined],
    ['', ''],
    ['x,y', 'x,y'],
  ])('parseSingle(%p) = %p', (raw, expected) => {
    expect(parseSingle(raw, 'search')).toBe(expected)
  })

  it.each<[string, unknown]>([
    ['an array (parameter repeated)', ['a', 'b']],
    ['an object (brackets)', { a: 'b' }],
  ])('parseSingle rejects %s', (_label, raw) => {
    expect(reasonOf(() => parseSingle(raw, 'search'))).toBe('"search" must be given once, as plain text')
  })
})

const fieldsOf = (raw: unknown, of: Collection): FieldNode[] => parseFields({ fields: raw, backlink: true }, of, parserOptions)

describe('parseFields', () => {
  it.each<[string, unknown, string[]]>([
    ['absent: every visible member in definition order', undefined, ARTICLE_MEMBERS],
    ['empty text acts like absent', '', ARTICLE_MEMBERS],
    ['*', '*', ARTICLE_MEMBERS],
    ['comma list in request order', 'title,id', ['title', 'id']],
    ['array form in request order', ['rating', 'id', 'title'], ['rating', 'id', 'title']],
    ['duplicates collapse onto the first position', 'title,id,title', ['title', 'id']],
    ['a name before * keeps its place, * adds the rest once', 'rating,*', ['rating', ...ARTICLE_MEMBERS.filter((n) => n !== 'rating')]],
    ['o2m aliases are nodes of kind o2m', 'comments,id', ['comments', 'id']],
    ['surrounding whitespace is ignored', ' id , title ', ['id', 'title']],
  ])('%s', (_label, raw, expected) => {
    expect(fieldsOf(raw, articles)).toEqual(nodes(articles, expected))
  })

  it('holds the schema objects themselves, not copies', () => {
    const [id, comments] = fieldsOf('id,comments', articles)
    expect(id).toEqual({ kind: 'field', output: 'id', field: articles.primaryKey })
    expect(id!.kind === 'field' && id!.field).toBe(articles.primaryKey)
    expect(comments!.kind === 'o2m' && comments!.relation).toBe(relation(articles, 'comments'))
    const comment = collection('comments')
    expect(relation(articles, 'comments').related).toBe(comment)
    expect(relation(articles, 'comments').foreignKey).toBe(comment.members.get('article'))
  })

  it('* never includes a hidden field', () => {
    expect(fieldsOf('*', authors)).toEqual(nodes(authors, AUTHOR_VISIBLE))
    expect(fieldsOf(undefined, authors).map((n) => n.output)).not.toContain('password_hash')
  })

  it.each<[string, Collection, unknown, string]>([
    ['unknown field', articles, 'id,nope', 'Field "nope" does not exist in collection "articles"'],
    ['unknown field in array form', articles, ['id', 'Title'], 'Field "Title" does not exist in collection "articles"'],
    ['hidden field, exactly like an unknown one', authors, 'password_hash', 'Field "password_hash" does not exist in collection "authors"'],
    ['hidden field after *', authors, '*,password_hash', 'Field "password_hash" does not exist in collection "authors"'],
    ['unknown segment of a path', articles, 'author.nope', 'Field "nope" does not exist in collection "authors"'],
    ['hidden field behind a relation', articles, 'author.password_hash', 'Field "password_hash" does not exist in collection "authors"'],
    [
      'path through a field that is not a relation',
      articles,
      'title.x',
      'Field "title" of collection "articles" is not a relation, so "title.x" cannot go through it',
    ],
    ['empty segment', articles, 'author..name', '"fields" has an empty segment in "author..name"'],
    [
      'more than 10 relations',
      articles,
      'parent.'.repeat(11) + 'id',
      `"fields" path "${'parent.'.repeat(11)}id" crosses more than 10 relations`,
    ],
    ['bracket object', articles, { a: 'id' }, '"fields" must be a comma-separated list'],
  ])('%s → InvalidQueryError', (_label, of, raw, reason) => {
    expect(reasonOf(() => fieldsOf(raw, of))).toBe(reason)
  })
})

describe('parseSort', () => {
  it.each<[string, unknown, Array<[string, 'asc' | 'desc']>]>([
    ['absent: primary key ascending', undefined, [['id', 'asc']]],
    ['empty text: primary key ascending', '', [['id', 'asc']]],
    [
      'comma list, then the primary key tiebreaker',
      '-rating,title',
      [
        ['rating', 'desc'],
        ['title', 'asc'],
        ['id', 'asc'],
      ],
    ],
    [
      'array form',
      ['-published_at', 'status'],
      [
        ['published_at', 'desc'],
        ['status', 'asc'],
        ['id', 'asc'],
      ],
    ],
    [
      'explicit primary key is not appended twice',
      ['-rating', 'id'],
      [
        ['rating', 'desc'],
        ['id', 'asc'],
      ],
    ],
    ['descending primary key alone', '-id', [['id', 'desc']]],
    [
      'primary key in the middle keeps its place',
      'id,title',
      [
        ['id', 'asc'],
        ['title', 'asc'],
      ],
    ],
    [
      '+ prefix means ascending',
      '+title',
      [
        ['title', 'asc'],
        ['id', 'asc'],
      ],
    ],
    [
      'a repeated field keeps its first direction',
      '-title,title',
      [
        ['title', 'desc'],
        ['id', 'asc'],
      ],
    ],
    [
      'm2o key columns sort by the key',
      'author',
      [
        ['author', 'asc'],
        ['id', 'asc'],
      ],
    ],
  ])('%s', (_label, raw, expected) => {
    expect(parseSort(raw, articles, openSchema)).toEqual(sortNodes(articles, expected))
  })

  it('resolves a many-to-one path into hops over schema objects', () => {
    const [byAuthor] = parseSort('-author.name', articles, openSchema)
    expect(byAuthor).toEqual({
      field: field(authors, 'name'),
      direction: 'desc',
      path: [{ field: field(articles, 'author'), related: authors, scope: null }],
    })
  })

  it('uses the schema field objects', () => {
    const [rating] = parseSort('-rating', articles, openSchema)
    expect(rating!.field).toBe(field(articles, 'rating'))
  })

  it.each<[string, Collection, unknown, string]>([
    ['unknown field', articles, 'nope', 'Cannot sort by "nope": no field "nope" in collection "articles"'],
    ['unknown descending field', articles, '-nope', 'Cannot sort by "nope": no field "nope" in collection "articles"'],
    [
      'hidden field, like an unknown one',
      authors,
      'password_hash',
      'Cannot sort by "password_hash": no field "password_hash" in collection "authors"',
    ],
    [
      'hidden field behind a relation',
      articles,
      'author.password_hash',
      'Cannot sort by "author.password_hash": no field "password_hash" in collection "authors"',
    ],
    [
      'a path through a field that is not a many-to-one',
      articles,
      'title.x',
      'Cannot sort by "title.x": "title" is not a many-to-one relation',
    ],
    [
      'a path through a one-to-many',
      articles,
      'comments.votes',
      'Cannot sort by "comments.votes": "comments" is not a many-to-one relation',
    ],
    ['json field', articles, 'tags', 'Cannot sort by "tags": only scalar fields can be sorted'],
    ['o2m alias', articles, '-comments', 'Cannot sort by "comments": only scalar fields can be sorted'],
    ['bracket object', articles, { a: 'id' }, '"sort" must be a comma-separated list'],
  ])('%s → InvalidQueryError', (_label, of, raw, reason) => {
    expect(reasonOf(() => parseSort(raw, of, openSchema))).toBe(reason)
  })
})

describe('parsePagination', () => {
  const limits = DEFAULT_LIMITS
  const capped = CAPPED_LIMITS
  const LIMIT_REASON = `"limit" must be -1 or a whole number up to ${LARGEST}`
  const OFFSET_REASON = `"offset" must be a whole number from 0 to ${LARGEST}`
  const PAGE_REASON = `"page" must be a whole number from 0 to ${LARGEST}`

  type Raw = { limit?: unknown; offset?: unknown; page?: unknown }

  it.each<[string, Raw, { limit: number | null; offset: number }]>([
    ['nothing: the default page size', {}, { limit: 100, offset: 0 }],
    ['limit=0', { limit: '0' }, { limit: 0, offset: 0 }],
    ['limit=25', { limit: '25' }, { limit: 25, offset: 0 }],
    ['limit=-1: every row', { limit: '-1' }, { limit: null, offset: 0 }],
    ['limit empty: the default', { limit: '' }, { limit: 100, offset: 0 }],
    ['limit as a JSON number (by-query bodies)', { limit: 5 }, { limit: 5, offset: 0 }],
    ['largest accepted limit', { limit: String(LARGEST) }, { limit: LARGEST, offset: 0 }],
    ['offset', { limit: '10', offset: '30' }, { limit: 10, offset: 30 }],
    ['offset=0', { offset: '0' }, { limit: 100, offset: 0 }],
    ['page=1', { limit: '10', page: '1' }, { limit: 10, offset: 0 }],
    ['page=3', { limit: '10', page: '3' }, { limit: 10, offset: 20 }],
    ['page=0 acts like page 1', { limit: '10', page: '0' }, { limit: 10, offset: 0 }],
    ['page with the default limit', { page: '2' }, { limit: 100, offset: 100 }],
    ['page wins over offset', { limit: '10', page: '2', offset: '5' }, { limit: 10, offset: 10 }],
    ['page=1 with limit=-1: every row', { limit: '-1', page: '1' }, { limit: null, offset: 0 }],
    ['page=2 with limit=-1: nothing left', { limit: '-1', page: '2' }, { limit: 0, offset: 0 }],
  ])('%s', (_label, raw, expected) => {
    expect(parsePagination(raw, limits)).toEqual(expected)
  })

  it.each<[string, Raw, string]>([
    ['limit=abc', { limit: 'abc' }, LIMIT_REASON],
    ['limit=2.5', { limit: '2.5' }, LIMIT_REASON],
    ['limit=-5', { limit: '-5' }, LIMIT_REASON],
    ['limit=-2', { limit: '-2' }, LIMIT_REASON],
    ['limit=1e3', { limit: '1e3' }, LIMIT_REASON],
    ['limit=0x10', { limit: '0x10' }, LIMIT_REASON],
    ['limit one past the largest', { limit: String(LARGEST + 1) }, LIMIT_REASON],
    ['huge limit', { limit: '99999999999999999999' }, LIMIT_REASON],
    ['limit repeated', { limit: ['1', '2'] }, '"limit" must be given once, as plain text'],
    ['limit as brackets', { limit: { a: '1' } }, '"limit" must be given once, as plain text'],
    ['offset=-1', { offset: '-1' }, OFFSET_REASON],
    ['offset=abc', { offset: 'abc' }, OFFSET_REASON],
    ['offset=1.5', { offset: '1.5' }, OFFSET_REASON],
    ['page=-1', { page: '-1' }, PAGE_REASON],
    ['page=x', { page: 'x' }, PAGE_REASON],
  ])('%s → InvalidQueryError', (_label, raw, reason) => {
    expect(reasonOf(() => parsePagination(raw, limits))).toBe(reason)
  })

  it.each<[string, Raw, { limit: number | null; offset: number }]>([
    ['default page size under a cap', {}, { limit: 10, offset: 0 }],
    ['limit equal to the cap', { limit: '50' }, { limit: 50, offset: 0 }],
    ['limit=-1 is capped', { limit: '-1' }, { limit: 50, offset: 0 }],
    ['page=2 with limit=-1 under a cap', { limit: '-1', page: '2' }, { limit: 50, offset: 50 }],
  ])('maxLimit: %s', (_label, raw, expected) => {
    expect(parsePagination(raw, capped)).toEqual(expected)
  })

  it('maxLimit: a larger limit is refused', () => {
    expect(reasonOf(() => parsePagination({ limit: '51' }, capped))).toBe('"limit" may be at most 50 (maxLimit); -1 asks for that many')
  })

  it.each<[string, Raw, { limit: number | null; offset: number }]>([
    ['no limit: every matching row', {}, { limit: null, offset: 0 }],
    ['limit=-1: every matching row, no cap', { limit: -1 }, { limit: null, offset: 0 }],
    ['maxLimit does not apply to writes', { limit: 500 }, { limit: 500, offset: 0 }],
  ])('write purpose: %s', (_label, raw, expected) => {
    expect(parsePagination(raw, capped, 'write')).toEqual(expected)
  })
})

describe('readQueryString', () => {
  const limits: QueryStringLimits = { maxParameters: 1000, maxArrayLength: 1000, maxDepth: 24 }

  it.each<[string, string, Record<string, unknown>]>([
    ['no query string', '/items/articles', {}],
    ['empty query string', '/items/articles?', {}],
    ['plain parameters', '/items/articles?limit=3&offset=1', { limit: '3', offset: '1' }],
    ['comma lists stay one string', '/items/articles?fields=id,title', { fields: 'id,title' }],
    ['array brackets', '/items/articles?fields[]=id&fields[]=title', { fields: ['id', 'title'] }],
    ['repeated parameter becomes an array', '/items/articles?sort=id&sort=title', { sort: ['id', 'title'] }],
    ['nested brackets', '/items/articles?filter[rating][_eq]=5', { filter: { rating: { _eq: '5' } } }],
    ['encoded brackets', '/items/articles?filter%5Brating%5D%5B_eq%5D=5', { filter: { rating: { _eq: '5' } } }],
    [
      'group arrays',
      '/items/articles?filter[_or][0][id][_eq]=1&filter[_or][1][id][_eq]=2',
      {
        filter: { _or: [{ id: { _eq: '1' } }, { id: { _eq: '2' } }] },
      },
    ],
    ['percent-decoding and + as space', '/items/articles?search=%C3%BCber+alles%25', { search: 'über alles%' }],
    ['a JSON filter stays text', '/items/articles?filter={"id":{"_eq":1}}', { filter: '{"id":{"_eq":1}}' }],
    ['a bare name is an empty value', '/items/articles?meta', { meta: '' }],
  ])('%s', (_label, url, expected) => {
    expect(readQueryString(url, limits)).toEqual(expected)
  })

  it('ignores prototype keys instead of polluting objects', () => {
    const parsed = readQueryString('/items/articles?__proto__[polluted]=1&constructor[prototype][x]=1&limit=2', limits)
    expect(Object.keys(parsed).sort()).toEqual(['constructor', 'limit'])
    expect(parsed.limit).toBe('2')
    // A `constructor` parameter is plain data on a prototype-less object, not Object's constructor.
    expect(Object.getPrototypeOf(parsed)).toBeNull()
    expect(parsed.constructor).toEqual({ prototype: { x: '1' } })
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(({} as Record<string, unknown>).x).toBeUndefined()
  })

  it.each<[string, QueryStringLimits, string, Record<string, unknown>]>([
    ['exactly the parameter limit', { maxParameters: 3, maxArrayLength: 10, maxDepth: 5 }, 'a=1&b=2&c=3', { a: '1', b: '2', c: '3' }],
    ['exactly the array limit', { maxParameters: 100, maxArrayLength: 3, maxDepth: 5 }, 'f[]=a&f[]=b&f[]=c', { f: ['a', 'b', 'c'] }],
    ['exactly the depth limit', { maxParameters: 100, maxArrayLength: 10, maxDepth: 2 }, 'f[a][b]=1', { f: { a: { b: '1' } } }],
  ])('accepts %s', (_label, custom, query, expected) => {
    expect(readQueryString(`/x?${query}`, custom)).toEqual(expected)
  })

  it.each<[string, QueryStringLimits, string, string]>([
    [
      'too many parameters',
      { maxParameters: 3, maxArrayLength: 10, maxDepth: 5 },
      'a=1&b=2&c=3&d=4',
      'The query string has more than 3 parameters',
    ],
    [
      'too long a bracket array',
      { maxParameters: 100, maxArrayLength: 3, maxDepth: 5 },
      'f[]=a&f[]=b&f[]=c&f[]=d',
      'A list in the query string has more than 3 values',
    ],
    [
      'too long a repeated parameter',
      { maxParameters: 100, maxArrayLength: 3, maxDepth: 5 },
      'f=a&f=b&f=c&f=d',
      'A list in the query string has more than 3 values',
    ],
    [
      'an array index past the limit',
      { maxParameters: 100, maxArrayLength: 3, maxDepth: 5 },
      'f[5]=x',
      'A list in the query string has more than 3 values',
    ],
    [
      'too long an _in list',
      { maxParameters: 100, maxArrayLength: 3, maxDepth: 5 },
      'filter[id][_in][]=1&filter[id][_in][]=2&filter[id][_in][]=3&filter[id][_in][]=4',
      'A list in the query string has more than 3 values',
    ],
    [
      'too deep brackets',
      { maxParameters: 100, maxArrayLength: 10, maxDepth: 2 },
      'f[a][b][c]=1',
      'The query string nests brackets deeper than 2 levels',
    ],
  ])('%s → InvalidQueryError naming the limit', (_label, custom, query, expected) => {
    expect(reasonOf(() => readQueryString(`/x?${query}`, custom))).toBe(expected)
  })
})

describe('parseQuery', () => {
  const parse = (raw: Record<string, unknown>, of: Collection = articles) => parseQuery(raw, of, parserOptions)

  it('fills every default from an empty query string', () => {
    expect(parse({})).toEqual({
      fields: nodes(articles, ARTICLE_MEMBERS),
      aggregate: null,
      scope: null,
      filter: null,
      search: null,
      sort: sortNodes(articles, [['id', 'asc']]),
      limit: 100,
      offset: 0,
      after: null,
      meta: { totalCount: false, filterCount: false, totalCountEstimate: false, nextCursor: false },
      backlink: true,
      version: null,
      export: null,
    })
  })

  /** A value each parameter's parser refuses; a parameter added to the table needs one here. */
  const MALFORMED: Readonly<Record<QueryParameterName, unknown>> = {
    fields: 'id..title',
    deep: '[]',
    alias: '[1]',
    backlink: 'maybe',
    limit: 'ten',
    offset: '-1',
    page: 'two',
    cursor: 'abc',
    sort: ['id', ['title']],
    meta: 'everything',
    search: ['a', 'b'],
    aggregate: '[]',
    groupBy: 'count(comments)',
    export: 'xml',
    version: '',
    filter: '[]',
  }

  it.each(QUERY_PARAMETER_NAMES)('reads %s: a malformed value is a 400 naming it', (name) => {
    expect(reasonOf(() => parse({ [name]: MALFORMED[name] }))).toContain(`"${name}"`)
  })

  it('parses a full query string end to end', () => {
    const raw = readQueryString(
      '/items/articles?fields=title,id&sort[]=-rating&limit=7&page=3&meta=total_count&search=%C3%BCber' +
        '&filter[rating][_gte]=3&backlink=false&version=main&unknown=ignored',
      { maxParameters: 1000, maxArrayLength: 1000, maxDepth: 24 },
    )
    expect(parse(raw)).toEqual({
      fields: nodes(articles, ['title', 'id']),
      aggregate: null,
      scope: null,
      filter: { kind: 'comparison', field: field(articles, 'rating'), operator: '_gte', value: 3 },
      search: { term: 'über', fields: articles.fields.filter((each) => !each.hidden) },
      sort: sortNodes(articles, [
        ['rating', 'desc'],
        ['id', 'asc'],
      ]),
      limit: 7,
      offset: 14,
      after: null,
      meta: { totalCount: true, filterCount: false, totalCountEstimate: false, nextCursor: false },
      backlink: false,
      version: 'main',
      export: null,
    })
  })

  it('drops the sort of an aggregate without groupBy: its answer is one row', () => {
    const parsed = parse({ aggregate: { countDistinct: 'id' }, sort: ['-title', 'author.name', 'countDistinct.id'] })
    expect(parsed.sort).toEqual([])
    expect(parsed.aggregate).toEqual({ aggregates: [{ fn: 'countDistinct', field: field(articles, 'id') }], groupBy: [], sort: [] })
  })

  it('parses aggregate and groupBy, with group keys ending the order', () => {
    const status = field(articles, 'status')
    const rating = field(articles, 'rating')
    const parsed = parse({ aggregate: { count: '*', avg: 'rating' }, groupBy: ['status'], sort: '-avg.rating' })
    expect(parsed.sort).toEqual([])
    expect(parsed.aggregate).toEqual({
      aggregates: [
        { fn: 'count', field: null },
        { fn: 'avg', field: rating },
      ],
      groupBy: [{ output: 'status', field: status }],
      sort: [
        { target: { kind: 'aggregate', aggregate: { fn: 'avg', field: rating } }, direction: 'desc' },
        { target: { kind: 'group', group: { output: 'status', field: status } }, direction: 'asc' },
      ],
    })
  })

  it.each<[string, Record<string, unknown>, string]>([
    [
      'unknown function',
      { aggregate: { median: 'rating' } },
      'Unknown aggregate function "median"; use count, countDistinct, sum, sumDistinct, avg, avgDistinct, min, max',
    ],
    ['* outside count', { aggregate: { sum: '*' } }, '"aggregate[sum]" needs a field; only count takes *'],
    ['sum of text', { aggregate: { sum: 'title' } }, '"aggregate[sum]" does not apply to field "title"'],
    ['unknown field', { aggregate: { count: 'nope' } }, 'Field "nope" does not exist in collection "articles"'],
    ['group by json', { groupBy: 'tags' }, '"groupBy" cannot group by "tags"'],
    ['group by count()', { groupBy: 'count(comments)' }, '"groupBy" takes fields and date functions, not "count(comments)"'],
    [
      'sort by an unknown field without groupBy',
      { aggregate: { count: '*' }, sort: 'nope' },
      'Cannot sort by "nope": no field "nope" in collection "articles"',
    ],
    [
      'sort by something not grouped',
      { groupBy: 'status', sort: 'title' },
      'Cannot sort by "title": with aggregate or groupBy, sort by a group field or an aggregate such as count.id',
    ],
  ])('aggregate: %s → InvalidQueryError', (_label, raw, reason) => {
    expect(reasonOf(() => parse(raw))).toBe(reason)
  })

  it('reads a JSON filter the same as brackets', () => {
    const json = parse({ filter: '{"rating":{"_eq":"5"}}' }).filter
    const brackets = parse({ filter: { rating: { _eq: '5' } } }).filter
    expect(json).toEqual({ kind: 'comparison', field: field(articles, 'rating'), operator: '_eq', value: 5 })
    expect(brackets).toEqual(json)
  })

  // Each pair: the bracket form qs produces and the JSON string @directus/sdk sends; they must parse alike.
  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['filter', { filter: { author: { name: { _eq: 'Ada' } } } }, { filter: '{"author":{"name":{"_eq":"Ada"}}}' }],
    [
      'deep',
      { fields: 'id,comments.id', deep: { comments: { _limit: '2', _sort: '-votes' } } },
      { fields: 'id,comments.id', deep: '{"comments":{"_limit":2,"_sort":"-votes"}}' },
    ],
    ['alias', { fields: 'id,headline', alias: { headline: 'title' } }, { fields: 'id,headline', alias: '{"headline":"title"}' }],
    ['aggregate', { aggregate: { count: '*', avg: 'rating' } }, { aggregate: '{"count":"*","avg":["rating"]}' }],
    [
      'groupBy',
      { groupBy: ['status', 'year(published_at)'], aggregate: { count: '*' } },
      { groupBy: '["status","year(published_at)"]', aggregate: '{"count":"*"}' },
    ],
    ['fields', { fields: ['id', 'author.name'] }, { fields: '["id","author.name"]' }],
    ['sort', { sort: ['-rating', 'title'] }, { sort: '["-rating","title"]' }],
  ])('%s: bracket form and JSON string parse alike', (_label, brackets, json) => {
    const now = new Date('2025-01-01T00:00:00Z')
    expect(parseQuery(json, articles, parserOptions, now)).toEqual(parseQuery(brackets, articles, parserOptions, now))
  })

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      'filter: unknown field',
      { filter: { nope: { _eq: '1' } } },
      { filter: '{"nope":{"_eq":"1"}}' },
      'Field "nope" does not exist in collection "articles"',
    ],
    [
      'deep: unknown option',
      { deep: { comments: { _nope: '1' } } },
      { deep: '{"comments":{"_nope":1}}' },
      '"deep" does not know "_nope" (under "comments")',
    ],
    ['alias: unknown target', { alias: { x: 'nope' } }, { alias: '{"x":"nope"}' }, 'Alias "x" must name a field of collection "articles"'],
    [
      'aggregate: unknown function',
      { aggregate: { median: 'rating' } },
      { aggregate: '{"median":"rating"}' },
      'Unknown aggregate function "median"; use count, countDistinct, sum, sumDistinct, avg, avgDistinct, min, max',
    ],
    [
      'aggregate: unknown field',
      { aggregate: { sum: 'nope' } },
      { aggregate: '{"sum":["nope"]}' },
      'Field "nope" does not exist in collection "articles"',
    ],
    ['groupBy: unknown field', { groupBy: ['nope'] }, { groupBy: '["nope"]' }, 'Field "nope" does not exist in collection "articles"'],
    ['fields: unknown field', { fields: ['nope'] }, { fields: '["nope"]' }, 'Field "nope" does not exist in collection "articles"'],
    ['sort: unknown field', { sort: ['nope'] }, { sort: '["nope"]' }, 'Cannot sort by "nope": no field "nope" in collection "articles"'],
  ])('%s: the same 400 in both forms', (_label, brackets, json, reason) => {
    expect(reasonOf(() => parse(brackets))).toBe(reason)
    expect(reasonOf(() => parse(json))).toBe(reason)
  })

  it.each<[string, Record<string, unknown>, string]>([
    ['filter', { filter: '{bad' }, 'Invalid JSON for filter object'],
    ['deep', { deep: '{"comments":' }, 'Invalid JSON for deep object'],
    ['alias', { alias: 'x' }, 'Invalid JSON for alias object'],
    ['aggregate', { aggregate: '{count:*}' }, 'Invalid JSON for aggregate object'],
    [
      'aggregate as a JSON array',
      { aggregate: '["count"]' },
      '"aggregate" must be an object, given as aggregate[function]=field,... or as JSON',
    ],
    ['alias as a list', { alias: ['title'] }, '"alias" must be an object, given as alias[newName]=field or as JSON'],
    ['groupBy', { groupBy: '["status"', aggregate: { count: '*' } }, 'Invalid JSON for groupBy array'],
    ['sort', { sort: '[-rating]' }, 'Invalid JSON for sort array'],
  ])('%s: a malformed value is a 400', (_label, raw, reason) => {
    expect(reasonOf(() => parse(raw))).toBe(reason)
  })

  const noMeta = { totalCount: false, filterCount: false, totalCountEstimate: false, nextCursor: false }
  it.each<[string, unknown, Partial<typeof noMeta>]>([
    ['absent', undefined, {}],
    ['empty', '', {}],
    ['total_count', 'total_count', { totalCount: true }],
    ['filter_count', 'filter_count', { filterCount: true }],
    ['*', '*', { totalCount: true, filterCount: true }],
    ['both, comma list', 'total_count,filter_count', { totalCount: true, filterCount: true }],
    ['array form', ['filter_count'], { filterCount: true }],
    ['total_count_estimate', 'total_count_estimate', { totalCountEstimate: true }],
    ['next_cursor beside a count', 'next_cursor,filter_count', { nextCursor: true, filterCount: true }],
  ])('meta %s', (_label, meta, expected) => {
    expect(parse({ meta }).meta).toEqual({ ...noMeta, ...expected })
  })

  it.each<[unknown, string]>([
    ['bogus', '"meta" accepts total_count, filter_count, total_count_estimate, next_cursor or *, not "bogus"'],
    ['total_count,TOTAL_COUNT', '"meta" accepts total_count, filter_count, total_count_estimate, next_cursor or *, not "TOTAL_COUNT"'],
    [{ a: '1' }, '"meta" must be a comma-separated list'],
  ])('meta=%p → InvalidQueryError', (meta, reason) => {
    expect(reasonOf(() => parse({ meta }))).toBe(reason)
  })

  it.each<[string, unknown, string | null]>([
    ['absent', undefined, null],
    ['empty means no search', '', null],
    ['kept verbatim', 'Über', 'Über'],
    ['wildcards are plain characters here', '%_', '%_'],
    ['1000 characters', 'x'.repeat(1000), 'x'.repeat(1000)],
  ])('search %s', (_label, search, expected) => {
    expect(parse({ search }).search?.term ?? null).toBe(expected)
  })

  it.each<[string, unknown, string]>([
    ['1001 characters', 'x'.repeat(1001), '"search" may be at most 1000 characters long'],
    ['repeated', ['a', 'b'], '"search" must be given once, as plain text'],
  ])('search %s → InvalidQueryError', (_label, search, reason) => {
    expect(reasonOf(() => parse({ search }))).toBe(reason)
  })

  it.each<[unknown, boolean]>([
    [undefined, true],
    ['true', true],
    ['false', false],
  ])('backlink=%p → %p', (backlink, expected) => {
    expect(parse({ backlink }).backlink).toBe(expected)
  })

  it.each<[unknown, string]>([
    ['maybe', '"backlink" must be true or false'],
    ['', '"backlink" must be true or false'],
    ['FALSE', '"backlink" must be true or false'],
    [['true'], '"backlink" must be given once, as plain text'],
  ])('backlink=%p → InvalidQueryError', (backlink, reason) => {
    expect(reasonOf(() => parse({ backlink }))).toBe(reason)
  })

  it.each<[unknown, string | null]>([
    [undefined, null],
    ['main', 'main'],
    ['draft', 'draft'],
    ['k'.repeat(64), 'k'.repeat(64)],
  ])('version=%p → %p', (version, expected) => {
    expect(parse({ version }).version).toBe(expected)
  })

  it.each<[unknown, string]>([
    ['', '"version" must be a key of 1 to 64 characters'],
    ['k'.repeat(65), '"version" must be a key of 1 to 64 characters'],
    [['a', 'b'], '"version" must be given once, as plain text'],
  ])('version=%p → InvalidQueryError', (version, reason) => {
    expect(reasonOf(() => parse({ version }))).toBe(reason)
  })

  it('uses the collection limits from the schema', () => {
    const capped = collection('articles', fixtureSchema(CAPPED_LIMITS))
    expect(parseQuery({}, capped, parserOptions)).toMatchObject({ limit: 10, offset: 0 })
    expect(parseQuery({ limit: '-1' }, capped, parserOptions)).toMatchObject({ limit: 50, offset: 0 })
    expect(reasonOf(() => parseQuery({ limit: '51' }, capped, parserOptions))).toBe(
      '"limit" may be at most 50 (maxLimit); -1 asks for that many',
    )
  })

  it('reports the first broken parameter, in parsing order', () => {
    expect(reasonOf(() => parse({ fields: 'nope', sort: 'nope', limit: 'x' }))).toBe('Field "nope" does not exist in collection "articles"')
  })
})

describe('parseSelection (by-query writes)', () => {
  it('selects every row, primary key order, with limit -1', () => {
    expect(parseSelection({ limit: -1 }, articles, parserOptions)).toEqual({
      filter: null,
      search: null,
      sort: sortNodes(articles, [['id', 'asc']]),
      limit: null,
      offset: 0,
    })
  })

  it('takes JSON values for filter, search, sort, limit and offset', () => {
    const selection = parseSelection(
      { filter: { status: { _eq: 'draft' } }, search: 'river', sort: ['-rating'], limit: 5, offset: 2 },
      articles,
      parserOptions,
    )
    expect(selection).toEqual({
      filter: { kind: 'comparison', field: field(articles, 'status'), operator: '_eq', value: 'draft' },
      search: { term: 'river', fields: articles.fields.filter((each) => !each.hidden) },
      sort: sortNodes(articles, [
        ['rating', 'desc'],
        ['id', 'asc'],
      ]),
      limit: 5,
      offset: 2,
    })
  })

  it('ignores maxLimit: the batch limit guards writes instead', () => {
    const capped = collection('articles', fixtureSchema(CAPPED_LIMITS))
    expect(parseSelection({ limit: 500 }, capped, parserOptions)).toMatchObject({ limit: 500 })
    expect(parseSelection({ limit: -1 }, capped, parserOptions)).toMatchObject({ limit: null })
  })

  it.each<[string, Record<string, unknown>]>([
    ['nothing', {}],
    ['an empty filter', { filter: {} }],
    ['an empty search and a sort', { search: '', sort: ['id'] }],
  ])('refuses a query that selects every row by giving %s', (_label, raw) => {
    expect(reasonOf(() => parseSelection(raw, articles, parserOptions))).toBe(
      '"query" selects every item: give a "filter" or "search", or "limit": -1 to change every item',
    )
  })

  it('refuses a key it does not know, naming it', () => {
    expect(reasonOf(() => parseSelection({ filters: { id: { _eq: 1 } } }, articles, parserOptions))).toBe(
      '"query" has no parameter "filters"; it takes filter, search, sort, limit, offset or page',
    )
  })

  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [1, 2]],
    ['a string', 'filter'],
  ])('refuses %s as the query with InvalidPayloadError', (_label, raw) => {
    expect(() => parseSelection(raw, articles, parserOptions)).toThrow(InvalidPayloadError)
    expect(() => parseSelection(raw, articles, parserOptions)).toThrow(
      'Invalid payload. "query" must be an object with filter, search, sort, limit, offset or page.',
    )
  })

  it('refuses a bad limit inside the query as an InvalidQueryError', () => {
    expect(reasonOf(() => parseSelection({ limit: 2.5 }, articles, parserOptions))).toBe(
      `"limit" must be -1 or a whole number up to ${LARGEST}`,
    )
  })
})
