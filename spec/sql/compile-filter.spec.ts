// compileFilter emits the pinned SQL and bindings per dialect: values bound, wildcards escaped, case rules per database.
import knexFactory, { type Knex } from 'knex'
import { parseFilter } from '../../lib/query/parse-filter'
import { compileFilter } from '../../lib/sql/compile-filter'
import { OWN_VALUES } from '../../lib/sql/value-slots'
import { dialectOf, type DialectName } from '../../lib/dialects'
import { collection as fixtureCollection, openSchema, PARSER_LIMITS } from '../support/schema'

interface Sql {
  sql: string
  bindings: unknown[]
}
/** Every dialect must be listed: a missing one fails to compile. */
type Expected = Record<DialectName, Sql>

const LIMITS = { schema: openSchema, ...PARSER_LIMITS }
/** A fixed clock, so `$NOW` compiles to a known binding. */
/** SQLite's case-insensitive match of an ASCII term: lower() natively, items_fold() only for the rows that need it. */
const ASCII_FOLD =
  "(lower(`title`) LIKE lower(?) ESCAPE '\\' OR ((instr(`title`, '\u0130') OR instr(`title`, '\u212a') OR instr(`title`, '\u0307')) AND items_fold(`title`) LIKE items_fold(?) ESCAPE '\\'))"

const NOW = new Date('2024-05-02T10:00:00.000Z')

// No connection: toSQL() only needs the client's compiler, and nothing here must reach a server.
const KNEX: Record<DialectName, Knex> = {
  sqlite: knexFactory({ client: 'better-sqlite3', useNullAsDefault: true }),
  postgres: knexFactory({ client: 'pg' }),
  mysql: knexFactory({ client: 'mysql2' }),
}

afterAll(() => Promise.all(Object.values(KNEX).map((knex) => knex.destroy())))

function compileAll(collectionName: 'articles' | 'samples', filter: unknown): Expected {
  const collection = fixtureCollection(collectionName)
  const node = parseFilter(filter, collection, LIMITS, NOW)
  if (node === null) throw new Error('the filter parsed to nothing')
  const compile = (name: DialectName): Sql => {
    const knex = KNEX[name]
    const qb = knex(collection.table)
    compileFilter(qb, node, dialectOf(knex), collection.table, OWN_VALUES)
    const { sql, bindings } = qb.toSQL()
    return { sql, bindings: [...bindings] }
  }
  return { sqlite: compile('sqlite'), postgres: compile('postgres'), mysql: compile('mysql') }
}

/** Most filters compile alike but for identifier quotes; `where` is written with double quotes. */
function same(where: string, bindings: unknown[], table = 'articles'): Expected {
  const backticks = where.replace(/"/g, '`')
  return {
    sqlite: { sql: `select * from \`${table}\` where ${backticks}`, bindings },
    postgres: { sql: `select * from "${table}" where ${where}`, bindings },
    mysql: { sql: `select * from \`${table}\` where ${backticks}`, bindings },
  }
}

/** Where the databases match text differently, each dialect is spelled out. */
function each(sqlite: [string, unknown[]], postgres: [string, unknown[]], mysql: [string, unknown[]], table = 'articles'): Expected {
  return {
    sqlite: { sql: `select * from \`${table}\` where ${sqlite[0]}`, bindings: sqlite[1] },
    postgres: { sql: `select * from "${table}" where ${postgres[0]}`, bindings: postgres[1] },
    mysql: { sql: `select * from \`${table}\` where ${mysql[0]}`, bindings: mysql[1] },
  }
}

describe('compileFilter', () => {
  it('picks the three dialects from the knex clients', () => {
    expect({ sqlite: dialectOf(KNEX.sqlite).name, postgres: dialectOf(KNEX.postgres).name, mysql: dialectOf(KNEX.mysql).name }).toEqual({
      sqlite: 'sqlite',
      postgres: 'postgres',
      mysql: 'mysql',
    })
  })

  describe('comparisons', () => {
    it.each<[string, 'articles' | 'samples', unknown, Expected]>([
      ['_eq binds the coerced number', 'articles', { rating: { _eq: '3' } }, same('"rating" = ?', [3])],
      ['_eq null is IS NULL', 'articles', { rating: { _eq: 'null' } }, same('"rating" is null', [])],
      ['_neq null is IS NOT NULL', 'articles', { rating: { _neq: null } }, same('"rating" is not null', [])],
      ['_null', 'articles', { rating: { _null: true } }, same('"rating" is null', [])],
      ['_null=false is _nnull', 'articles', { rating: { _null: 'false' } }, same('"rating" is not null', [])],
      ['_gte and _lte on one field', 'articles', { rating: { _gte: 2, _lte: '4' } }, same('("rating" >= ? and "rating" <= ?)', [2, 4])],
      ['_in from a comma string', 'articles', { rating: { _in: '1,5' } }, same('"rating" in (?, ?)', [1, 5])],
      ['_nin', 'articles', { rating: { _nin: [1, 5] } }, same('"rating" not in (?, ?)', [1, 5])],
      ['_between', 'articles', { rating: { _between: '2,3' } }, same('"rating" between ? and ?', [2, 3])],
      ['_nbetween', 'articles', { rating: { _nbetween: [2, 3] } }, same('"rating" not between ? and ?', [2, 3])],
      [
        'dateTime binds the wall clock with a space',
        'articles',
        { published_at: { _gt: '2024-01-01' } },
        same('"published_at" > ?', ['2024-01-01 00:00:00']),
      ],
      [
        '$NOW(-1 day) binds the clock minus a day',
        'articles',
        { published_at: { _lte: '$NOW(-1 day)' } },
        same('"published_at" <= ?', ['2024-05-01 10:00:00']),
      ],
      ['json _nnull', 'articles', { tags: { _nnull: true } }, same('"tags" is not null', [])],
      ['boolean binds true', 'samples', { active: { _eq: 'true' } }, same('"active" = ?', [true], 'samples')],
      [
        'uuid binds lower case',
        'samples',
        { ref: { _in: ['7D444840-9DC0-11D1-B245-5FFDCE74FAD2'] } },
        same('"ref" = ?', ['7d444840-9dc0-11d1-b245-5ffdce74fad2'], 'samples'),
      ],
      ['bigInteger binds exact text', 'samples', { big: { _eq: '9007199254740993' } }, same('"big" = ?', ['9007199254740993'], 'samples')],
      [
        'decimal binds canonical text',
        'samples',
        { price: { _between: [0, '12.50'] } },
        same('"price" between ? and ?', ['0', '12.5'], 'samples'),
      ],
    ])('%s', (_label, collection, filter, expected) => {
      expect(compileAll(collection, filter)).toEqual(expected)
    })

    it('binds a timestamp as UTC, without the Z on MySQL', () => {
      expect(compileAll('samples', { logged_at: { _gte: '2024-05-01T12:00:00+02:00' } })).toEqual(
        each(
          ['`logged_at` >= ?', ['2024-05-01T10:00:00.000Z']],
          ['"logged_at" >= ?', ['2024-05-01T10:00:00.000Z']],
          ['`logged_at` >= ?', ['2024-05-01 10:00:00.000']],
          'samples',
        ),
      )
    })
  })

  describe('text equality', () => {
    // MySQL's default collations ignore case, accents and trailing spaces, so equality there is also checked in bytes.
    it('_eq', () => {
      expect(compileAll('articles', { status: 'draft' })).toEqual(
        each(
          ['`status` = ?', ['draft']],
          ['"status" = ?', ['draft']],
          ['`status` = ? and `status` = CAST(? AS BINARY)', ['draft', 'draft']],
        ),
      )
    })

    it('_neq', () => {
      expect(compileAll('articles', { status: { _neq: 'draft' } })).toEqual(
        each(['`status` <> ?', ['draft']], ['"status" <> ?', ['draft']], ['`status` <> CAST(? AS BINARY)', ['draft']]),
      )
    })

    it('_in', () => {
      expect(compileAll('articles', { status: { _in: ['draft', 'archived'] } })).toEqual(
        each(
          ['`status` in (?, ?)', ['draft', 'archived']],
          ['"status" in (?, ?)', ['draft', 'archived']],
          ['`status` in (?, ?) and `status` IN (CAST(? AS BINARY), CAST(? AS BINARY))', ['draft', 'archived', 'draft', 'archived']],
        ),
      )
    })

    it('_nin', () => {
      expect(compileAll('articles', { status: { _nin: 'draft,archived' } })).toEqual(
        each(
          ['`status` not in (?, ?)', ['draft', 'archived']],
          ['"status" not in (?, ?)', ['draft', 'archived']],
          ['`status` NOT IN (CAST(? AS BINARY), CAST(? AS BINARY))', ['draft', 'archived']],
        ),
      )
    })

    it('a list of one is = and <>, the exact comparison included', () => {
      expect(compileAll('articles', { status: { _in: ['draft'] } })).toEqual(
        each(
          ['`status` = ?', ['draft']],
          ['"status" = ?', ['draft']],
          ['`status` = ? and `status` = CAST(? AS BINARY)', ['draft', 'draft']],
        ),
      )
      expect(compileAll('articles', { status: { _nin: 'draft' } })).toEqual(
        each(['`status` <> ?', ['draft']], ['"status" <> ?', ['draft']], ['`status` <> CAST(? AS BINARY)', ['draft']]),
      )
    })

    it('an empty _in matches nothing', () => {
      expect(compileAll('articles', { rating: { _in: '' } })).toEqual(same('1 = ?', [0]))
      expect(compileAll('articles', { status: { _in: [] } })).toEqual(same('1 = ?', [0]))
    })

    it('an empty _nin excludes nothing', () => {
      expect(compileAll('articles', { rating: { _nin: [] } })).toEqual(same('1 = ?', [1]))
    })
  })

  describe('patterns', () => {
    it('_contains is GLOB on SQLite and a binary LIKE on MySQL', () => {
      expect(compileAll('articles', { title: { _contains: 'Über' } })).toEqual(
        each(['`title` GLOB ?', ['*Über*']], ['"title" LIKE ?', ['%Über%']], ['`title` LIKE CAST(? AS BINARY)', ['%Über%']]),
      )
    })

    it('_icontains folds both sides', () => {
      expect(compileAll('articles', { title: { _icontains: 'Über' } })).toEqual(
        each(
          ["items_fold(`title`) LIKE items_fold(?) ESCAPE '\\'", ['%Über%']],
          ['"title" ILIKE ?', ['%Über%']],
          ['LOWER(`title`) LIKE CAST(LOWER(?) AS BINARY)', ['%Über%']],
        ),
      )
    })

    it('escapes % and _ for LIKE; GLOB needs no escape for them', () => {
      expect(compileAll('articles', { title: { _contains: '100%_x' } })).toEqual(
        each(['`title` GLOB ?', ['*100%_x*']], ['"title" LIKE ?', ['%100\\%\\_x%']], ['`title` LIKE CAST(? AS BINARY)', ['%100\\%\\_x%']]),
      )
    })

    it('escapes % in a case-insensitive suffix match', () => {
      expect(compileAll('articles', { title: { _iends_with: '50%' } })).toEqual(
        each(
          [ASCII_FOLD, ['%50\\%', '%50\\%']],
          ['"title" ILIKE ?', ['%50\\%']],
          ['LOWER(`title`) LIKE CAST(LOWER(?) AS BINARY)', ['%50\\%']],
        ),
      )
    })

    it('brackets GLOB wildcards and doubles the LIKE escape character', () => {
      expect(compileAll('articles', { title: { _starts_with: 'a*?[b]\\' } })).toEqual(
        each(
          ['`title` GLOB ?', ['a[*][?][[]b]\\*']],
          ['"title" LIKE ?', ['a*?[b]\\\\%']],
          ['`title` LIKE CAST(? AS BINARY)', ['a*?[b]\\\\%']],
        ),
      )
    })

    it('folds a non-ASCII term with items_fold() on SQLite', () => {
      expect(compileAll('articles', { title: { _icontains: 'Über' } })).toEqual(
        each(
          ["items_fold(`title`) LIKE items_fold(?) ESCAPE '\\'", ['%Über%']],
          ['"title" ILIKE ?', ['%Über%']],
          ['LOWER(`title`) LIKE CAST(LOWER(?) AS BINARY)', ['%Über%']],
        ),
      )
    })

    it('negates a case-insensitive prefix match', () => {
      expect(compileAll('articles', { title: { _nistarts_with: 'Quiet' } })).toEqual(
        each(
          [`NOT ${ASCII_FOLD}`, ['Quiet%', 'Quiet%']],
          ['"title" NOT ILIKE ?', ['Quiet%']],
          ['LOWER(`title`) NOT LIKE CAST(LOWER(?) AS BINARY)', ['Quiet%']],
        ),
      )
    })

    it('_ends_with anchors at the end', () => {
      expect(compileAll('articles', { title: { _nends_with: '_v2' } })).toEqual(
        each(['`title` NOT GLOB ?', ['*_v2']], ['"title" NOT LIKE ?', ['%\\_v2']], ['`title` NOT LIKE CAST(? AS BINARY)', ['%\\_v2']]),
      )
    })
  })

  describe('groups', () => {
    it('nests _or and the AND of one branch in parentheses', () => {
      const filter = { _or: [{ status: { _eq: 'draft' } }, { rating: { _null: true }, title: { _ncontains: 'x' } }] }
      expect(compileAll('articles', filter)).toEqual(
        each(
          ['((`status` = ?) or ((`rating` is null and `title` NOT GLOB ?)))', ['draft', '*x*']],
          ['(("status" = ?) or (("rating" is null and "title" NOT LIKE ?)))', ['draft', '%x%']],
          [
            '((`status` = ? and `status` = CAST(? AS BINARY)) or ((`rating` is null and `title` NOT LIKE CAST(? AS BINARY))))',
            ['draft', 'draft', '%x%'],
          ],
        ),
      )
    })

    it('ANDs several fields in one group', () => {
      expect(compileAll('articles', { rating: { _gte: 4 }, published_at: { _null: true } })).toEqual(
        same('("rating" >= ? and "published_at" is null)', [4]),
      )
    })

    it('flattens an _or inside an _or', () => {
      const filter = { _or: [{ rating: { _eq: 1 } }, { _or: [{ rating: { _eq: 2 } }, { rating: { _eq: 3 } }] }] }
      expect(compileAll('articles', filter)).toEqual(same('(("rating" = ?) or ("rating" = ?) or ("rating" = ?))', [1, 2, 3]))
    })

    it('compiles an empty _or to a condition that is never true', () => {
      expect(compileAll('articles', { _or: [] })).toEqual(same('1 = 0', []))
    })
  })
})
