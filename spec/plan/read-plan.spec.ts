// A read's decisions are a plain value made before any SQL: which many-to-ones the page joins (over a network
// only), which key lists a one-item read folds, which columns link the page, the LIMIT under the row budget, and
// a statement key written from those decisions, the same for every request that differs only in its values.
import knexFactory, { type Knex } from 'knex'
import { dialectOf, type DialectName } from '../../lib/dialects'
import { describeReadPlan, planPageRead, type ReadPlan } from '../../lib/plan/read-plan'
import { planRelatedList } from '../../lib/plan/relation-plans'
import { parseQuery } from '../../lib/query/parse-query'
import { collection, openSchema, PARSER_LIMITS } from '../support/schema'

// No connection: a plan needs the dialect's capabilities, never a server.
const KNEX: Record<DialectName, Knex> = {
  sqlite: knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
  postgres: knexFactory({ client: 'pg' }),
  mysql: knexFactory({ client: 'mysql2' }),
}
afterAll(() => Promise.all(Object.values(KNEX).map((knex) => knex.destroy())))

const articles = collection('articles')
const options = { schema: openSchema, ...PARSER_LIMITS }

function plan(name: DialectName, raw: Record<string, unknown>, oneItem: { key: number; foldedKeys: number } | null = null): ReadPlan {
  const query = parseQuery(raw, articles, options)
  const cap = (limit: number | null): number | null => limit
  return planPageRead(articles, query.fields, query, dialectOf(KNEX[name]), {
    keyed: false,
    limit: query.limit,
    oneItem: oneItem && { ...oneItem, cap },
  })
}

describe('planPageRead', () => {
  it('joins the page’s many-to-one items over a network, not on SQLite’s own connection', () => {
    const raw = { fields: 'id,title,author.name', sort: '-rating', limit: '25' }
    expect(plan('postgres', raw).joined.map((node) => node.output)).toEqual(['author'])
    expect(plan('mysql', raw).joined.map((node) => node.output)).toEqual(['author'])
    expect(plan('sqlite', raw).joined).toEqual([])
    // A page sorted through a relation joins nothing: the join would have to order by the related row.
    expect(plan('postgres', { ...raw, sort: 'author.name' }).joined).toEqual([])
  })

  it('links the page on its own columns where it selects them, and on copies where it does not', () => {
    expect(plan('postgres', { fields: 'id,author,author.name', sort: 'id' }).links).toEqual({ joinKeys: ['author'], orderColumns: ['id'] })
    expect(plan('postgres', { fields: 'id,author.name', sort: '-rating' }).links).toEqual({
      joinKeys: ['author'],
      // The key breaks ties, and the page selects it.
      orderColumns: ['__items_order_0', 'id'],
    })
  })

  it('folds a one-item read’s key lists into its statement where the dialect can, binding the parent key and LIMIT', () => {
    const folded = plan('postgres', { fields: 'id,comments' }, { key: 3, foldedKeys: 1000 })
    expect(folded.folded.map((list) => [list.node.output, list.bound])).toEqual([['comments', [3, 100]]])
    expect(folded.bound).toEqual([3, 100])
    // No room for folded keys (a server without the aggregate): each list keeps its own statement.
    expect(plan('postgres', { fields: 'id,comments' }, { key: 3, foldedKeys: 0 }).folded).toEqual([])
    // A list read, not one item by key, never folds.
    expect(plan('postgres', { fields: 'id,comments' }).folded).toEqual([])
  })

  it('writes one key for requests that differ only in their values, another when a decision differs, none for a search', () => {
    const key = (raw: Record<string, unknown>, name: DialectName = 'postgres'): string | null => plan(name, raw).key?.key ?? null
    const base = { fields: 'id,author.name', sort: 'id', limit: '10' }
    expect(key({ ...base, filter: { rating: { _eq: 3 } } })).toBe(key({ ...base, filter: { rating: { _eq: 4 } } }))
    expect(key({ ...base, filter: { rating: { _eq: 3 } } })).not.toBe(key({ ...base, filter: { rating: { _gt: 3 } } }))
    // The join is part of the plan, so of the key: the same query with and without it differs.
    expect(key(base)).not.toBe(key({ ...base, sort: 'author.name' }))
    expect(key({ ...base, search: 'volk' })).toBeNull()
  })

  it('prints its decisions', () => {
    expect(describeReadPlan(plan('postgres', { fields: 'id,author.name', sort: 'id', limit: '10' }))).toMatch(
      /^read articles\npage: limit 10, offset 0\njoined: author\nfolded: -\nlinks: join on author; order by id\nkey: items,/,
    )
  })
})

describe('planRelatedList', () => {
  const comments = collection('comments')
  const o2m = parseQuery({ fields: 'comments.id' }, articles, options).fields.find((node) => node.kind === 'o2m')!
  if (o2m.kind !== 'o2m') throw new Error('comments is a one-to-many field')
  const foreignKey = o2m.relation.foreignKey
  const list = (limit: number | null, offset: number, parents: number[], cap: number | null = null) =>
    planRelatedList(comments, o2m.children ?? [], foreignKey, parents, { ...o2m.selection, limit, offset }, cap)

  it('reads one parent’s list with a plain LIMIT and OFFSET', () => {
    expect(list(2, 1, [1])).toMatchObject({ read: 'paged', page: { limit: 2, offset: 1 } })
  })

  it('reads many parents’ windows plainly and cuts them in the router, at most as many rows as the windows keep', () => {
    expect(list(2, 1, [1, 2, 3])).toMatchObject({ read: 'cut', most: 9, page: { limit: 10, offset: 0 }, bounds: [1, 3] })
    // Never more than one row past the row budget.
    expect(list(2, 1, [1, 2, 3], 5)).toMatchObject({ read: 'cut', most: 4, page: { limit: 5, offset: 0 } })
  })

  it('numbers the rows in SQL at once for an offset without a limit', () => {
    expect(list(null, 2, [1, 2])).toMatchObject({ read: 'windowed', bounds: [2] })
  })
})
