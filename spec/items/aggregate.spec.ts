// aggregate and groupBy answer Directus's shapes with values computed from the seed, in one statement, identically on every database; bad ones are 400s before any SQL.
import type { Express } from 'express'
import { isDeepStrictEqual } from 'node:util'
import request from 'supertest'
import { seed, type ArticleRow, type SampleRow } from '../../fixtures/seed'
import type { DialectName } from '../../lib/dialects'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectInvalidQuery } from '../support/expect-error'

type Scalar = string | number | boolean | null
type Item = Record<string, unknown>
type CollectionName = 'articles' | 'authors' | 'samples' | 'comments'
/** [label, collection, query string, expected data] */
type Case = [label: string, collection: CollectionName, query: string, expected: Item[]]
interface Answer {
  status: number
  body: { data?: Item[]; meta?: Record<string, number>; errors?: Array<{ message: string; extensions: Record<string, unknown> }> }
}

const ARTICLES = seed.articles
const SAMPLES = seed.samples

// ---------------------------------------------------------------------------------------------------------------
// Seed arithmetic: every expected value is computed here from the seed rows.

const present = <T>(values: ReadonlyArray<T | null>): T[] => values.filter((value): value is T => value !== null)
const distinct = <T>(values: readonly T[]): T[] => [...new Set(values)]
const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0)
/** What every database computes for an average: the double sum divided by the count. */
const avg = (values: readonly number[]): number | null => (values.length === 0 ? null : sum(values) / values.length)
const bigSum = (values: readonly string[]): string => values.reduce((total, value) => total + BigInt(value), 0n).toString()
/** Exact sum of scale-2 decimal strings, in cents. */
function decimalSum(values: readonly string[]): string {
  const cents = values.reduce((total, value) => total + BigInt(value.replace('.', '')), 0n)
  const negative = cents < 0n
  const digits = (negative ? -cents : cents).toString().padStart(3, '0')
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`
}

/** Text by code point, as the library promises for every database (not by a locale's rules). */
function compareText(a: string, b: string): number {
  const x = [...a].map((char) => char.codePointAt(0)!)
  const y = [...b].map((char) => char.codePointAt(0)!)
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!
  return x.length - y.length
}
const compareBig = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0)

/** Ascending with NULL first, the order every database uses for groups. */
function compareScalar(a: Scalar, b: Scalar, order?: (a: string, b: string) => number): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  if (typeof a === 'string' && typeof b === 'string') return (order ?? compareText)(a, b)
  return Number(a) - Number(b)
}
const minText = (values: readonly string[]): string => [...values].sort(compareText)[0]!
const maxText = (values: readonly string[]): string => [...values].sort(compareText).at(-1)!
/** Timestamps compare as instants. */
const minInstant = (values: readonly string[]): string => [...values].sort((a, b) => Date.parse(a) - Date.parse(b))[0]!
const maxInstant = (values: readonly string[]): string => [...values].sort((a, b) => Date.parse(a) - Date.parse(b)).at(-1)!

interface KeySpec<R> {
  name: string
  of: (row: R) => Scalar
  order?: (a: string, b: string) => number
}
interface Group<R> {
  key: Item
  rows: R[]
}

/** The groups of `rows` by `keys`, ordered by the keys ascending (NULL first): the library's default order. */
function groupRows<R>(rows: readonly R[], keys: ReadonlyArray<KeySpec<R>>): Array<Group<R>> {
  const groups = new Map<string, Group<R>>()
  for (const row of rows) {
    const key: Item = Object.fromEntries(keys.map((spec) => [spec.name, spec.of(row)]))
    const id = JSON.stringify(keys.map((spec) => key[spec.name]))
    const group = groups.get(id) ?? { key, rows: [] }
    group.rows.push(row)
    groups.set(id, group)
  }
  return [...groups.values()].sort((a, b) => {
    for (const spec of keys) {
      const order = compareScalar(a.key[spec.name] as Scalar, b.key[spec.name] as Scalar, spec.order)
      if (order !== 0) return order
    }
    return 0
  })
}

/** Re-sorts groups (already in key order) by an aggregate; Array#sort is stable, so ties keep the key order. */
const byAggregate = <R>(groups: Array<Group<R>>, value: (group: Group<R>) => number, direction: 'asc' | 'desc'): Array<Group<R>> =>
  [...groups].sort((a, b) => (direction === 'asc' ? value(a) - value(b) : value(b) - value(a)))

const withCount = <R>(groups: ReadonlyArray<Group<R>>): Item[] => groups.map((group) => ({ ...group.key, count: group.rows.length }))

const STATUS: KeySpec<ArticleRow> = { name: 'status', of: (row) => row.status }
const AUTHOR: KeySpec<ArticleRow> = { name: 'author', of: (row) => row.author }
const RATING: KeySpec<ArticleRow> = { name: 'rating', of: (row) => row.rating }
const yearOf = (text: string | null): number | null => (text === null ? null : Number(text.slice(0, 4)))
const monthOf = (text: string | null): number | null => (text === null ? null : Number(text.slice(5, 7)))
const PUBLISHED_YEAR: KeySpec<ArticleRow> = { name: 'published_at_year', of: (row) => yearOf(row.published_at) }

const ratings = (rows: readonly ArticleRow[]): number[] => present(rows.map((row) => row.rating))
const where = (keep: (row: ArticleRow) => boolean): ArticleRow[] => ARTICLES.filter(keep)

const authorName = (id: number | null): string | undefined => seed.authors.find((author) => author.id === id)?.name
const ALICE = 'Alice Martin'
const ZOE = 'Zoë Ångström'
const commentsOf = (articleId: number): number => seed.comments.filter((comment) => comment.article === articleId).length

// ---------------------------------------------------------------------------------------------------------------
// Cases

const RATINGS = ratings(ARTICLES)
const PUBLISHED = present(ARTICLES.map((row) => row.published_at))

const SHAPE_CASES: Case[] = [
  ['count=* is a bare number', 'articles', 'aggregate[count]=*', [{ count: ARTICLES.length }]],
  ['count=id nests the field', 'articles', 'aggregate[count]=id', [{ count: { id: ARTICLES.length } }]],
  ['count=rating counts non-null values', 'articles', 'aggregate[count]=rating', [{ count: { rating: RATINGS.length } }]],
  [
    'count of a json field counts non-null values',
    'articles',
    'aggregate[count]=tags',
    [{ count: { tags: ARTICLES.filter((row) => row.tags !== null).length } }],
  ],
  [
    'several functions and fields make one object',
    'articles',
    'aggregate[count]=id,rating&aggregate[avg]=rating',
    [{ count: { id: ARTICLES.length, rating: RATINGS.length }, avg: { rating: avg(RATINGS) } }],
  ],
  [
    'the array form of a field list',
    'articles',
    'aggregate[count][]=id&aggregate[count][]=rating&aggregate[max][]=rating',
    [{ count: { id: ARTICLES.length, rating: RATINGS.length }, max: { rating: Math.max(...RATINGS) } }],
  ],
  ['groupBy[]=status with count=*', 'articles', 'groupBy[]=status&aggregate[count]=*', withCount(groupRows(ARTICLES, [STATUS]))],
  ['groupBy=status (plain form)', 'articles', 'groupBy=status&aggregate[count]=*', withCount(groupRows(ARTICLES, [STATUS]))],
  [
    'groupBy=year(published_at): null dates group first',
    'articles',
    'groupBy=year(published_at)&aggregate[count]=*',
    withCount(groupRows(ARTICLES, [PUBLISHED_YEAR])),
  ],
  [
    'groupBy=month(published_at)',
    'articles',
    'groupBy=month(published_at)&aggregate[count]=*',
    withCount(groupRows(ARTICLES, [{ name: 'published_at_month', of: (row) => monthOf(row.published_at) }])),
  ],
  [
    'groupBy=status,author gives two keys',
    'articles',
    'groupBy=status,author&aggregate[count]=*&limit=-1',
    withCount(groupRows(ARTICLES, [STATUS, AUTHOR])),
  ],
  [
    'groupBy a field and a date function',
    'articles',
    'groupBy[]=year(published_at)&groupBy[]=status&aggregate[count]=id&limit=-1',
    groupRows(ARTICLES, [PUBLISHED_YEAR, STATUS]).map((group) => ({ ...group.key, count: { id: group.rows.length } })),
  ],
  ['groupBy without aggregate: the distinct groups', 'articles', 'groupBy=status', groupRows(ARTICLES, [STATUS]).map((group) => group.key)],
  [
    'groupBy author without aggregate: NULL first, then by key',
    'articles',
    'groupBy=author',
    groupRows(ARTICLES, [AUTHOR]).map((group) => group.key),
  ],
  [
    'groupBy with several functions per group',
    'articles',
    'groupBy=status&aggregate[count]=*&aggregate[countDistinct]=rating&aggregate[sum]=rating&aggregate[min]=published_at',
    groupRows(ARTICLES, [STATUS]).map((group) => ({
      status: group.key.status,
      count: group.rows.length,
      countDistinct: { rating: distinct(ratings(group.rows)).length },
      sum: { rating: sum(ratings(group.rows)) },
      min: { published_at: minText(present(group.rows.map((row) => row.published_at))) },
    })),
  ],
  ['groupBy rating: NULL is a group of its own', 'articles', 'groupBy=rating&aggregate[count]=*', withCount(groupRows(ARTICLES, [RATING]))],
  [
    'groupBy a unicode string orders by code point',
    'authors',
    'groupBy=name&aggregate[count]=*&limit=-1',
    withCount(groupRows(seed.authors, [{ name: 'name', of: (row) => row.name }])),
  ],
]

/** Every function over every type family it accepts, values from the seed. */
const PRICES = present(SAMPLES.map((row) => row.price))
const BIGS = present(SAMPLES.map((row) => row.big))
const COUNTS = present(SAMPLES.map((row) => row.count))
const RATIOS = present(SAMPLES.map((row) => row.ratio))
const sampleValues = <K extends keyof SampleRow>(field: K): Array<NonNullable<SampleRow[K]>> =>
  present(SAMPLES.map((row) => row[field])) as Array<NonNullable<SampleRow[K]>>

const FUNCTION_CASES: Case[] = [
  // integer
  ['count rating', 'articles', 'aggregate[count]=rating', [{ count: { rating: RATINGS.length } }]],
  ['countDistinct rating', 'articles', 'aggregate[countDistinct]=rating', [{ countDistinct: { rating: distinct(RATINGS).length } }]],
  ['sum rating', 'articles', 'aggregate[sum]=rating', [{ sum: { rating: sum(RATINGS) } }]],
  ['sumDistinct rating', 'articles', 'aggregate[sumDistinct]=rating', [{ sumDistinct: { rating: sum(distinct(RATINGS)) } }]],
  ['avg rating (fractional)', 'articles', 'aggregate[avg]=rating', [{ avg: { rating: avg(RATINGS) } }]],
  ['avgDistinct rating', 'articles', 'aggregate[avgDistinct]=rating', [{ avgDistinct: { rating: avg(distinct(RATINGS)) } }]],
  ['min rating', 'articles', 'aggregate[min]=rating', [{ min: { rating: Math.min(...RATINGS) } }]],
  ['max rating', 'articles', 'aggregate[max]=rating', [{ max: { rating: Math.max(...RATINGS) } }]],
  ['avg votes (comments)', 'comments', 'aggregate[avg]=votes', [{ avg: { votes: avg(seed.comments.map((row) => row.votes)) } }]],
  ['sum votes (comments)', 'comments', 'aggregate[sum]=votes', [{ sum: { votes: sum(seed.comments.map((row) => row.votes)) } }]],
  // integer at the 32-bit edges: the sum leaves the column's range
  ['sum count (int32 edges)', 'samples', 'aggregate[sum]=count', [{ sum: { count: sum(COUNTS) } }]],
  ['sumDistinct count', 'samples', 'aggregate[sumDistinct]=count', [{ sumDistinct: { count: sum(distinct(COUNTS)) } }]],
  ['avg count', 'samples', 'aggregate[avg]=count', [{ avg: { count: avg(COUNTS) } }]],
  ['avgDistinct count', 'samples', 'aggregate[avgDistinct]=count', [{ avgDistinct: { count: avg(distinct(COUNTS)) } }]],
  [
    'min and max count',
    'samples',
    'aggregate[min]=count&aggregate[max]=count',
    [{ min: { count: Math.min(...COUNTS) }, max: { count: Math.max(...COUNTS) } }],
  ],
  [
    'sum of int32 extremes only',
    'samples',
    'aggregate[sum]=count&filter[count][_in]=2147483647,-2147483648,42',
    [{ sum: { count: 2147483647 - 2147483648 + 42 } }],
  ],
  // bigInteger: exact strings for sums and extremes, beyond 2^53
  ['sum big (exact string)', 'samples', 'aggregate[sum]=big', [{ sum: { big: bigSum(BIGS) } }]],
  ['sumDistinct big', 'samples', 'aggregate[sumDistinct]=big', [{ sumDistinct: { big: bigSum(distinct(BIGS)) } }]],
  [
    'sum big beyond 2^53 stays exact (odd result)',
    'samples',
    'aggregate[sum]=big&filter[count][_gt]=10',
    [{ sum: { big: bigSum(present(SAMPLES.filter((row) => row.count !== null && row.count > 10).map((row) => row.big))) } }],
  ],
  [
    'min and max big (strings)',
    'samples',
    'aggregate[min]=big&aggregate[max]=big',
    [{ min: { big: [...BIGS].sort(compareBig)[0] }, max: { big: [...BIGS].sort(compareBig).at(-1) } }],
  ],
  // The exact average is 43 / 5; doubles summed in a different order would drift by a unit or two.
  ['avg big', 'samples', 'aggregate[avg]=big', [{ avg: { big: Number(BigInt(bigSum(BIGS))) / BIGS.length } }]],
  [
    'count and countDistinct big',
    'samples',
    'aggregate[count]=big&aggregate[countDistinct]=big',
    [{ count: { big: BIGS.length }, countDistinct: { big: distinct(BIGS).length } }],
  ],
  // decimal: exact strings with the field's scale
  ['sum price (decimal string with scale)', 'samples', 'aggregate[sum]=price', [{ sum: { price: decimalSum(PRICES) } }]],
  ['sumDistinct price', 'samples', 'aggregate[sumDistinct]=price', [{ sumDistinct: { price: decimalSum(distinct(PRICES)) } }]],
  ['sum price of one row keeps the scale', 'samples', 'aggregate[sum]=price&filter[price][_eq]=12.5', [{ sum: { price: '12.50' } }]],
  [
    'sum price of negatives',
    'samples',
    'aggregate[sum]=price&filter[price][_lt]=1',
    [{ sum: { price: decimalSum(PRICES.filter((price) => Number(price) < 1)) } }],
  ],
  ['avg price (a number)', 'samples', 'aggregate[avg]=price', [{ avg: { price: avg(PRICES.map(Number)) } }]],
  ['min and max price', 'samples', 'aggregate[min]=price&aggregate[max]=price', [{ min: { price: '-3.00' }, max: { price: '99999.99' } }]],
  // float
  ['sum ratio', 'samples', 'aggregate[sum]=ratio', [{ sum: { ratio: sum(RATIOS) } }]],
  ['avg ratio', 'samples', 'aggregate[avg]=ratio', [{ avg: { ratio: avg(RATIOS) } }]],
  [
    'min and max ratio',
    'samples',
    'aggregate[min]=ratio&aggregate[max]=ratio',
    [{ min: { ratio: Math.min(...RATIOS) }, max: { ratio: Math.max(...RATIOS) } }],
  ],
  // temporal: min and max in the field's JSON form
  [
    'min and max published_at (dateTime)',
    'articles',
    'aggregate[min]=published_at&aggregate[max]=published_at',
    [{ min: { published_at: minText(PUBLISHED) }, max: { published_at: maxText(PUBLISHED) } }],
  ],
  [
    'min and max starts_at (dateTime)',
    'samples',
    'aggregate[min]=starts_at&aggregate[max]=starts_at',
    [{ min: { starts_at: minText(sampleValues('starts_at')) }, max: { starts_at: maxText(sampleValues('starts_at')) } }],
  ],
  [
    'min and max day (date)',
    'samples',
    'aggregate[min]=day&aggregate[max]=day',
    [{ min: { day: minText(sampleValues('day')) }, max: { day: maxText(sampleValues('day')) } }],
  ],
  [
    'min and max logged_at (timestamp, ISO Z)',
    'samples',
    'aggregate[min]=logged_at&aggregate[max]=logged_at',
    [{ min: { logged_at: minInstant(sampleValues('logged_at')) }, max: { logged_at: maxInstant(sampleValues('logged_at')) } }],
  ],
  [
    'min and max alarm (time)',
    'samples',
    'aggregate[min]=alarm&aggregate[max]=alarm',
    [{ min: { alarm: minText(sampleValues('alarm')) }, max: { alarm: maxText(sampleValues('alarm')) } }],
  ],
  [
    'countDistinct published_at',
    'articles',
    'aggregate[countDistinct]=published_at',
    [{ countDistinct: { published_at: distinct(PUBLISHED).length } }],
  ],
  // other families
  [
    'count and countDistinct status (string)',
    'articles',
    'aggregate[count]=status&aggregate[countDistinct]=status',
    [{ count: { status: ARTICLES.length }, countDistinct: { status: distinct(ARTICLES.map((row) => row.status)).length } }],
  ],
  [
    'countDistinct author (m2o key)',
    'articles',
    'aggregate[countDistinct]=author',
    [{ countDistinct: { author: distinct(present(ARTICLES.map((row) => row.author))).length } }],
  ],
  [
    'count and countDistinct active (boolean)',
    'samples',
    'aggregate[count]=active&aggregate[countDistinct]=active',
    [{ count: { active: sampleValues('active').length }, countDistinct: { active: distinct(sampleValues('active')).length } }],
  ],
  [
    'count and countDistinct ref (uuid)',
    'samples',
    'aggregate[count]=ref&aggregate[countDistinct]=ref',
    [{ count: { ref: sampleValues('ref').length }, countDistinct: { ref: distinct(sampleValues('ref')).length } }],
  ],
  [
    'count payload (json)',
    'samples',
    'aggregate[count]=payload',
    [{ count: { payload: SAMPLES.filter((row) => row.payload !== null).length } }],
  ],
  [
    'countDistinct label',
    'samples',
    'aggregate[countDistinct]=label',
    [{ countDistinct: { label: distinct(sampleValues('label')).length } }],
  ],
  // nothing matches: counts are 0, everything else null
  [
    'every function over no rows',
    'articles',
    'filter[rating][_eq]=99&aggregate[count]=rating&aggregate[countDistinct]=rating&aggregate[sum]=rating&aggregate[sumDistinct]=rating&aggregate[avg]=rating&aggregate[avgDistinct]=rating&aggregate[min]=rating,published_at&aggregate[max]=rating',
    [
      {
        count: { rating: 0 },
        countDistinct: { rating: 0 },
        sum: { rating: null },
        sumDistinct: { rating: null },
        avg: { rating: null },
        avgDistinct: { rating: null },
        min: { rating: null, published_at: null },
        max: { rating: null },
      },
    ],
  ],
  ['count=* over no rows is one row with 0', 'articles', 'filter[rating][_eq]=99&aggregate[count]=*', [{ count: 0 }]],
  ['groupBy over no rows gives no groups', 'articles', 'filter[rating][_eq]=99&groupBy=status&aggregate[count]=*', []],
]

/** Typed groupings: each key in its field's JSON form, ordered by the column's own order. */
const sampleGroups = (spec: KeySpec<SampleRow>): Item[] => withCount(groupRows(SAMPLES, [spec]))
const GROUP_TYPE_CASES: Case[] = [
  [
    'groupBy big: strings in numeric order',
    'samples',
    'groupBy=big&aggregate[count]=*',
    sampleGroups({ name: 'big', of: (row) => row.big, order: compareBig }),
  ],
  [
    'groupBy price: decimal strings in numeric order',
    'samples',
    'groupBy=price&aggregate[count]=*',
    sampleGroups({ name: 'price', of: (row) => row.price, order: (a, b) => Number(a) - Number(b) }),
  ],
  ['groupBy ratio', 'samples', 'groupBy=ratio&aggregate[count]=*', sampleGroups({ name: 'ratio', of: (row) => row.ratio })],
  ['groupBy active: booleans', 'samples', 'groupBy=active&aggregate[count]=*', sampleGroups({ name: 'active', of: (row) => row.active })],
  ['groupBy day: dates', 'samples', 'groupBy=day&aggregate[count]=*', sampleGroups({ name: 'day', of: (row) => row.day })],
  [
    'groupBy starts_at: dateTimes',
    'samples',
    'groupBy=starts_at&aggregate[count]=*',
    sampleGroups({ name: 'starts_at', of: (row) => row.starts_at }),
  ],
  [
    'groupBy logged_at: timestamps in ISO Z',
    'samples',
    'groupBy=logged_at&aggregate[count]=*',
    sampleGroups({ name: 'logged_at', of: (row) => row.logged_at, order: (a, b) => Date.parse(a) - Date.parse(b) }),
  ],
  ['groupBy alarm: times', 'samples', 'groupBy=alarm&aggregate[count]=*', sampleGroups({ name: 'alarm', of: (row) => row.alarm })],
  ['groupBy ref: uuids', 'samples', 'groupBy=ref&aggregate[count]=*', sampleGroups({ name: 'ref', of: (row) => row.ref })],
  // 2024-12-31T23:30:00.123Z is 2025 east of UTC: the year is taken in UTC.
  [
    'groupBy year(logged_at): in UTC',
    'samples',
    'groupBy=year(logged_at)&aggregate[count]=*',
    sampleGroups({ name: 'logged_at_year', of: (row) => yearOf(row.logged_at) }),
  ],
  [
    'groupBy year(day)',
    'samples',
    'groupBy=year(day)&aggregate[count]=*',
    sampleGroups({ name: 'day_year', of: (row) => yearOf(row.day) }),
  ],
  [
    'groupBy label: unicode in code-point order',
    'samples',
    'groupBy=label&aggregate[count]=*',
    sampleGroups({ name: 'label', of: (row) => row.label }),
  ],
]

const byStatus = groupRows(ARTICLES, [STATUS])
const byAuthor = groupRows(ARTICLES, [AUTHOR])
const avgRating = (group: Group<ArticleRow>): number => avg(ratings(group.rows)) ?? Number.NEGATIVE_INFINITY
const countOf = (group: Group<ArticleRow>): number => group.rows.length
const ratedCount = (group: Group<ArticleRow>): number => ratings(group.rows).length

const SORT_CASES: Case[] = [
  [
    'sort=-status: by the group, descending',
    'articles',
    'groupBy=status&aggregate[count]=*&sort=-status',
    withCount([...byStatus].reverse()),
  ],
  ['sort=status: by the group, ascending', 'articles', 'groupBy=status&aggregate[count]=*&sort=status', withCount(byStatus)],
  [
    'sort=-count (count=*)',
    'articles',
    'groupBy=author&aggregate[count]=*&sort=-count&limit=-1',
    withCount(byAggregate(byAuthor, countOf, 'desc')),
  ],
  [
    'sort=count ties broken by the group key ascending',
    'articles',
    'groupBy=author&aggregate[count]=*&sort=count&limit=-1',
    withCount(byAggregate(byAuthor, countOf, 'asc')),
  ],
  [
    'sort=-count.id',
    'articles',
    'groupBy=author&aggregate[count]=id&sort=-count.id&limit=-1',
    byAggregate(byAuthor, countOf, 'desc').map((group) => ({ author: group.key.author, count: { id: group.rows.length } })),
  ],
  [
    'sort=count.rating (non-null counts, ties by key)',
    'articles',
    'groupBy=author&aggregate[count]=rating&sort=count.rating&limit=-1',
    byAggregate(byAuthor, ratedCount, 'asc').map((group) => ({ author: group.key.author, count: { rating: ratedCount(group) } })),
  ],
  [
    'sort=-avg.rating, then by author',
    'articles',
    'groupBy=author&aggregate[avg]=rating&sort=-avg.rating&limit=-1',
    byAggregate(byAuthor, avgRating, 'desc').map((group) => ({ author: group.key.author, avg: { rating: avg(ratings(group.rows)) } })),
  ],
  [
    'sort=-author with two groups: the other key stays ascending',
    'articles',
    'groupBy=status,author&aggregate[count]=*&sort=-author&limit=-1',
    withCount(
      groupRows(ARTICLES, [STATUS, AUTHOR]).sort(
        (a, b) =>
          compareScalar(b.key.author as Scalar, a.key.author as Scalar) || compareScalar(a.key.status as Scalar, b.key.status as Scalar),
      ),
    ),
  ],
  [
    'sort=-year(published_at): NULL last descending',
    'articles',
    'groupBy=year(published_at)&aggregate[count]=*&sort=-year(published_at)',
    withCount([...groupRows(ARTICLES, [PUBLISHED_YEAR])].reverse()),
  ],
  [
    'sort=-count,-status: the aggregate first, then the requested group order',
    'articles',
    'groupBy=status,rating&aggregate[count]=*&sort=-count,-status&limit=-1',
    withCount(
      groupRows(ARTICLES, [STATUS, RATING]).sort(
        (a, b) =>
          b.rows.length - a.rows.length ||
          compareScalar(b.key.status as Scalar, a.key.status as Scalar) ||
          compareScalar(a.key.rating as Scalar, b.key.rating as Scalar),
      ),
    ),
  ],
  ['sort by an aggregate without groupBy', 'articles', 'aggregate[count]=*&sort=-count', [{ count: ARTICLES.length }]],
  [
    'sort=-author with groupBy and no aggregate: NULL last',
    'articles',
    'groupBy=author&sort=-author',
    [...byAuthor].reverse().map((group) => group.key),
  ],
]

const authorsByCount = byAggregate(byAuthor, countOf, 'desc')
const titleGroups = groupRows(ARTICLES, [{ name: 'title', of: (row: ArticleRow) => row.title }]).map((group) => group.key)
const PAGE_CASES: Case[] = [
  [
    'limit and offset over groups',
    'articles',
    'groupBy=author&aggregate[count]=*&sort=-count&limit=5&offset=3',
    withCount(authorsByCount.slice(3, 8)),
  ],
  ['page over groups', 'articles', 'groupBy=author&aggregate[count]=*&sort=-count&limit=4&page=3', withCount(authorsByCount.slice(8, 12))],
  ['offset past the last group', 'articles', 'groupBy=status&aggregate[count]=*&offset=3', []],
  ['limit=0 gives no groups', 'articles', 'groupBy=status&aggregate[count]=*&limit=0', []],
  ['limit=0 without groupBy gives no row either', 'articles', 'aggregate[count]=*&limit=0', []],
  ['the default limit (100) applies to groups', 'articles', 'groupBy=title', titleGroups.slice(0, 100)],
  ['limit=-1 returns every group', 'articles', 'groupBy=title&limit=-1', titleGroups],
]

const fold = (text: string): string => text.toLowerCase()
const FILTER_CASES: Case[] = [
  [
    'filter narrows the rows before grouping',
    'articles',
    'filter[rating][_gte]=4&groupBy=status&aggregate[count]=*&aggregate[avg]=rating',
    groupRows(
      where((row) => row.rating !== null && row.rating >= 4),
      [STATUS],
    ).map((group) => ({ status: group.key.status, count: group.rows.length, avg: { rating: avg(ratings(group.rows)) } })),
  ],
  [
    'JSON filter with _or',
    'articles',
    `filter=${encodeURIComponent(JSON.stringify({ _or: [{ status: { _eq: 'draft' } }, { rating: { _null: true } }] }))}&aggregate[count]=*`,
    [{ count: where((row) => row.status === 'draft' || row.rating === null).length }],
  ],
  [
    'search (text) narrows the rows',
    'articles',
    'search=river&groupBy=status&aggregate[count]=*',
    withCount(
      groupRows(
        where((row) => fold(row.title).includes('river') || fold(row.status).includes('river')),
        [STATUS],
      ),
    ),
  ],
  [
    'search (a number) matches numeric fields too',
    'articles',
    'search=7&aggregate[count]=*',
    [
      {
        count: where(
          (row) => row.title.includes('7') || row.status.includes('7') || [row.id, row.rating, row.author, row.parent].includes(7),
        ).length,
      },
    ],
  ],
  [
    'filter and search together',
    'articles',
    'search=river&filter[status][_eq]=published&aggregate[count]=*&aggregate[max]=published_at',
    (() => {
      const rows = where((row) => fold(row.title).includes('river') && row.status === 'published')
      return [{ count: rows.length, max: { published_at: maxText(present(rows.map((row) => row.published_at))) } }]
    })(),
  ],
  [
    'm2o filter with count=*',
    'articles',
    `filter[author][name][_eq]=${encodeURIComponent(ALICE)}&aggregate[count]=*`,
    [{ count: where((row) => authorName(row.author) === ALICE).length }],
  ],
  [
    'm2o filter with groupBy',
    'articles',
    `filter[author][name][_eq]=${encodeURIComponent(ZOE)}&groupBy=status&aggregate[count]=*&aggregate[sum]=rating`,
    groupRows(
      where((row) => authorName(row.author) === ZOE),
      [STATUS],
    ).map((group) => ({ status: group.key.status, count: group.rows.length, sum: { rating: sum(ratings(group.rows)) } })),
  ],
  [
    'o2m filter counts each parent once',
    'articles',
    'filter[comments][votes][_gt]=98&aggregate[count]=*',
    [{ count: where((row) => seed.comments.some((comment) => comment.article === row.id && comment.votes > 98)).length }],
  ],
  [
    'o2m _none filter with groupBy',
    'articles',
    'filter[comments][_none][votes][_gt]=20&groupBy=status&aggregate[count]=*',
    withCount(
      groupRows(
        where((row) => !seed.comments.some((comment) => comment.article === row.id && comment.votes > 20)),
        [STATUS],
      ),
    ),
  ],
  [
    'two-level relational filter on comments',
    'comments',
    `filter[article][author][name][_eq]=${encodeURIComponent(ALICE)}&aggregate[count]=*&aggregate[sum]=votes`,
    (() => {
      const rows = seed.comments.filter((comment) => authorName(ARTICLES.find((row) => row.id === comment.article)!.author) === ALICE)
      return [{ count: rows.length, sum: { votes: sum(rows.map((row) => row.votes)) } }]
    })(),
  ],
  [
    'a filter through count(comments) combined with groupBy',
    'articles',
    'filter[count(comments)][_gte]=5&groupBy=status&aggregate[count]=*',
    withCount(
      groupRows(
        where((row) => commentsOf(row.id) >= 5),
        [STATUS],
      ),
    ),
  ],
]

const NO_SUCH_FIELD = 'no_such_field'
/** [label, collection, query, text the reason must contain] */
const ERROR_CASES: Array<[label: string, collection: CollectionName, query: string, mentions: string[]]> = [
  ['unknown function', 'articles', 'aggregate[median]=rating', ['median']],
  ['* with sum', 'articles', 'aggregate[sum]=*', ['aggregate[sum]', '*']],
  ['* with avg', 'articles', 'aggregate[avg]=*', ['aggregate[avg]', '*']],
  ['sum of a string field', 'articles', 'aggregate[sum]=title', ['aggregate[sum]', 'title']],
  ['avg of a dateTime field', 'articles', 'aggregate[avg]=published_at', ['aggregate[avg]', 'published_at']],
  ['min of a boolean field', 'samples', 'aggregate[min]=active', ['aggregate[min]', 'active']],
  ['max of a string field', 'articles', 'aggregate[max]=title', ['aggregate[max]', 'title']],
  ['countDistinct of a json field', 'articles', 'aggregate[countDistinct]=tags', ['aggregate[countDistinct]', 'tags']],
  ['sum of a uuid field', 'samples', 'aggregate[sum]=ref', ['aggregate[sum]', 'ref']],
  ['count of an o2m alias', 'articles', 'aggregate[count]=comments', ['comments']],
  ['a relational path', 'articles', 'aggregate[count]=author.name', ['author.name']],
  ['unknown field', 'articles', `aggregate[count]=${NO_SUCH_FIELD}`, [NO_SUCH_FIELD]],
  ['one unknown field among known ones', 'articles', `aggregate[count]=id,${NO_SUCH_FIELD}`, [NO_SUCH_FIELD]],
  ['an empty field list', 'articles', 'aggregate[count]=', ['aggregate[count]']],
  ['aggregate as a plain string', 'articles', 'aggregate=count', ['aggregate']],
  ['aggregate as an array', 'articles', 'aggregate[]=count', ['aggregate']],
  ['groupBy an unknown field', 'articles', `groupBy=${NO_SUCH_FIELD}`, [NO_SUCH_FIELD]],
  ['groupBy a json field', 'articles', 'groupBy=tags&aggregate[count]=*', ['tags']],
  ['groupBy an o2m alias', 'articles', 'groupBy=comments&aggregate[count]=*', ['comments']],
  ['groupBy count(comments)', 'articles', 'groupBy=count(comments)&aggregate[count]=*', ['count(comments)']],
  ['groupBy year() of a string', 'articles', 'groupBy=year(title)&aggregate[count]=*', ['year(title)']],
  ['groupBy an unknown function', 'articles', 'groupBy=decade(published_at)&aggregate[count]=*', ['decade(published_at)']],
  ['groupBy a relational path', 'articles', 'groupBy=author.name&aggregate[count]=*', ['author.name']],
  ['sort by a field neither grouped nor aggregated', 'articles', 'groupBy=status&aggregate[count]=*&sort=title', ['title']],
  ['sort by the primary key when grouping', 'articles', 'groupBy=status&aggregate[count]=*&sort=id', ['id']],
  ['sort by an aggregate not requested', 'articles', 'groupBy=status&aggregate[count]=*&sort=-count.id', ['count.id']],
  ['sort by count when only count.id is requested', 'articles', 'groupBy=status&aggregate[count]=id&sort=count', ['count']],
  [
    'sort by a grouped field under another function',
    'articles',
    'groupBy=status&aggregate[count]=*&sort=year(published_at)',
    ['year(published_at)'],
  ],
  ['both aggregate and groupBy empty', 'articles', 'groupBy=', ['groupBy']],
  ['meta with a bad value', 'articles', 'aggregate[count]=*&meta=groups', ['meta']],
  ['filter on an unknown field', 'articles', `aggregate[count]=*&filter[${NO_SUCH_FIELD}][_eq]=1`, [NO_SUCH_FIELD]],
]

/** Rows whose labels are equal under a case- or accent-insensitive collation but not byte for byte. */
const LOOKALIKE_LABELS = ['abc', 'ABC', 'äbc', 'abc ', 'Straße', 'STRASSE', 'strasse']
/** A `count` no seeded sample has, to pick out the rows created for this. */
const LOOKALIKE_MARK = 777
const LOOKALIKE_ROWS = LOOKALIKE_LABELS.map((label, index) => ({
  id: `c0ffee00-0000-4000-8000-00000000010${index}`,
  label,
  count: LOOKALIKE_MARK,
  price: (index + 1) * 1.25,
}))

/** Sums with more digits than a double holds: 100 × the largest decimal(14,2) plus a cent, and two int64 maxima. */
const WIDE_MARK = 778
const HUGE_PRICE = '999999999999.99'
const WIDE_PRICE_ROWS = [...Array.from({ length: 100 }, () => HUGE_PRICE), '0.01'].map((price) => ({ count: WIDE_MARK, price }))
const INT64_MAX = '9223372036854775807'
const WIDE_BIG_ROWS = [INT64_MAX, INT64_MAX].map((big) => ({ count: WIDE_MARK + 1, big }))

// ---------------------------------------------------------------------------------------------------------------

/** Where two JSON values first differ, as `path: a ≠ b`; null when they are equal. */
function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (isDeepStrictEqual(a, b)) return null
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    for (const key of keys) {
      const difference = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${path}.${key}`)
      if (difference !== null) return difference
    }
  }
  return `${path || '.'}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`
}

/** Every answer, by request and dialect, so later dialects can be compared with earlier ones. */
const answers = new Map<string, Partial<Record<DialectName, Answer>>>()

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  /** GETs while counting statements, and records the answer (headers aside) for the comparison at the end. */
  async function get(
    collection: CollectionName,
    query: string,
  ): Promise<Answer & { headers: Record<string, string>; statements: number; text: string }> {
    const url = `/api/items/${collection}?${query}`
    const { result, count } = await ctx.countQueries(() =>
      request(app)
        .get(url)
        .then((response) => response),
    )
    const answer: Answer = { status: result.status, body: result.body as Answer['body'] }
    answers.set(url, { ...answers.get(url), [ctx.name]: answer })
    return { ...answer, headers: result.headers, statements: count, text: result.text }
  }

  describe('Directus shapes', () => {
    it.each(SHAPE_CASES)('%s', async (_label, collection, query, expected) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
    })

    it('puts the group keys before the aggregates, in request order', async () => {
      const response = await get('articles', 'groupBy=year(published_at),status&aggregate[max]=rating&aggregate[count]=*')
      expect(Object.keys(response.body.data![0]!)).toEqual(['published_at_year', 'status', 'max', 'count'])
    })

    it('ignores fields while aggregating', async () => {
      const response = await get('articles', 'fields=title,id&aggregate[count]=*')
      expect(response.body).toEqual({ data: [{ count: ARTICLES.length }] })
    })
  })

  describe('every function, every type', () => {
    it.each(FUNCTION_CASES)('%s', async (_label, collection, query, expected) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
    })

    it('answers counts, averages and integer sums as JSON numbers, exact types as strings', async () => {
      const response = await get(
        'samples',
        'aggregate[count]=*&aggregate[countDistinct]=big&aggregate[avg]=count&aggregate[sum]=count,big,price&aggregate[min]=big,price',
      )
      const [item] = response.body.data!
      expect(typeof item!.count).toBe('number')
      expect(typeof (item!.countDistinct as Item).big).toBe('number')
      expect(item!.sum).toEqual({ count: expect.any(Number), big: expect.any(String), price: expect.any(String) })
      expect(item!.min).toEqual({ big: expect.any(String), price: expect.any(String) })
      expect(typeof (item!.avg as Item).count).toBe('number')
      // The raw text, so a number that JSON.parse would round cannot pass for the exact string.
      expect(response.text).toContain(`"big":"${[...BIGS].sort(compareBig)[0]}"`)
    })

    it('keeps a fractional average to the last bit (not rounded to a few decimals)', async () => {
      const response = await get('articles', 'groupBy=author&aggregate[avg]=rating&limit=-1')
      const expected = byAuthor.map((group) => ({ author: group.key.author, avg: { rating: avg(ratings(group.rows)) } }))
      expect(expected.some((item) => !Number.isInteger(item.avg.rating) && String(item.avg.rating).length > 10)).toBe(true)
      expect(response.body).toEqual({ data: expected })
    })
  })

  describe('groups of every field type', () => {
    it.each(GROUP_TYPE_CASES)('%s', async (_label, collection, query, expected) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
    })
  })

  describe('sort', () => {
    it('has ties to break in the seed', () => {
      const counts = byAuthor.map(countOf)
      expect(new Set(counts).size).toBeLessThan(counts.length)
    })

    it.each(SORT_CASES)('%s', async (_label, collection, query, expected) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
    })
  })

  describe('limit, offset and page over groups', () => {
    it.each(PAGE_CASES)('%s', async (_label, collection, query, expected) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
    })
  })

  describe('router limits apply to groups', () => {
    it('defaultLimit', async () => {
      const response = await request(createApp(ctx.knex, { defaultLimit: 2 })).get('/api/items/articles?groupBy=status&aggregate[count]=*')
      expect(response.body).toEqual({ data: withCount(byStatus.slice(0, 2)) })
    })

    it('maxLimit caps limit=-1 and rejects a larger limit', async () => {
      const capped = createApp(ctx.knex, { defaultLimit: 1, maxLimit: 2 })
      expect((await request(capped).get('/api/items/articles?groupBy=status&aggregate[count]=*&limit=-1')).body).toEqual({
        data: withCount(byStatus.slice(0, 2)),
      })
      const response = await request(capped).get('/api/items/articles?groupBy=status&aggregate[count]=*&limit=3')
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions.code).toBe('INVALID_QUERY')
    })
  })

  describe('filter, search and relational filters', () => {
    it.each(FILTER_CASES)('%s', async (_label, collection, query, expected) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: expected })
      // Relational conditions are subqueries: still one statement.
      expect(response.statements).toBe(1)
    })
  })

  describe('meta', () => {
    const rated5 = where((row) => row.rating === 5)

    it('counts rows, not groups', async () => {
      const response = await get('articles', 'filter[rating][_eq]=5&groupBy=status&aggregate[count]=*&meta=*')
      expect(response.body).toEqual({
        data: withCount(groupRows(rated5, [STATUS])),
        meta: { total_count: ARTICLES.length, filter_count: rated5.length },
      })
      expect(response.statements).toBe(3)
    })

    it('filter_count alone, with search', async () => {
      const rows = where((row) => fold(row.title).includes('river'))
      const response = await get('articles', 'search=river&aggregate[count]=*&meta=filter_count')
      expect(response.body).toEqual({ data: [{ count: rows.length }], meta: { filter_count: rows.length } })
      expect(response.statements).toBe(2)
    })

    it('total_count alone', async () => {
      const response = await get('articles', 'filter[rating][_eq]=5&aggregate[count]=*&meta=total_count')
      expect(response.body).toEqual({ data: [{ count: rated5.length }], meta: { total_count: ARTICLES.length } })
      expect(response.statements).toBe(2)
    })

    it('is still counted when limit=0', async () => {
      const response = await get('articles', 'filter[rating][_eq]=5&groupBy=status&aggregate[count]=*&limit=0&meta=*')
      expect(response.body).toEqual({ data: [], meta: { total_count: ARTICLES.length, filter_count: rated5.length } })
      // No statement for a page that cannot hold a group.
      expect(response.statements).toBe(2)
    })
  })

  describe('statements', () => {
    it.each([
      ['count=*', 'articles', 'aggregate[count]=*'],
      [
        'every function at once',
        'articles',
        'aggregate[count]=rating&aggregate[countDistinct]=status&aggregate[sum]=rating&aggregate[sumDistinct]=rating&aggregate[avg]=rating&aggregate[avgDistinct]=rating&aggregate[min]=published_at&aggregate[max]=rating',
      ],
      ['two groups and a sort by an aggregate', 'articles', 'groupBy=status,year(published_at)&aggregate[count]=id&sort=-count.id'],
      ['groupBy without aggregate', 'articles', 'groupBy=author'],
      ['relational filter', 'articles', `filter[author][name][_eq]=${encodeURIComponent(ALICE)}&groupBy=status&aggregate[count]=*`],
    ] as Array<[string, CollectionName, string]>)('%s is one statement', async (_label, collection, query) => {
      const response = await get(collection, query)
      expect(response.status).toBe(200)
      expect(response.statements).toBe(1)
    })
  })

  describe('errors', () => {
    // Bad aggregates are rejected while parsing, before any SQL.
    it.each(ERROR_CASES)('%s → 400 INVALID_QUERY', async (_label, collection, query, mentions) => {
      const response = await get(collection, query)
      expectInvalidQuery(response, response.statements, mentions)
    })

    it.each([
      ['aggregate[count]', 'aggregate[count]={field}'],
      ['aggregate[sum]', 'aggregate[sum]={field}'],
      ['groupBy', 'groupBy={field}&aggregate[count]=*'],
    ])('a hidden field in %s answers exactly like a missing one', async (_label, template) => {
      const unknown = await get('authors', template.replace('{field}', NO_SUCH_FIELD))
      const hidden = await get('authors', template.replace('{field}', 'password_hash'))
      const reason = expectInvalidQuery(unknown, unknown.statements, [NO_SUCH_FIELD])
      expect(expectInvalidQuery(hidden, hidden.statements, ['password_hash'])).toBe(reason.replace(NO_SUCH_FIELD, 'password_hash'))
    })

    // `count: 300` and `count: { rating: 270 }` cannot share one key; a 400 beats a 500 (or silently dropping one).
    it.each(['aggregate[count]=*,rating', 'aggregate[count]=rating,*', 'groupBy=status&aggregate[count]=*,id'])(
      'count=* together with count of a field (%s) → 400 INVALID_QUERY, not a 500',
      async (query) => {
        const response = await get('articles', query)
        expectInvalidQuery(response, response.statements, ['count'])
      },
    )

    it('names the accepted functions for an unknown one', async () => {
      const response = await get('articles', 'aggregate[median]=rating')
      const reason = expectInvalidQuery(response, response.statements, ['median'])
      for (const fn of ['count', 'countDistinct', 'sum', 'sumDistinct', 'avg', 'avgDistinct', 'min', 'max']) expect(reason).toContain(fn)
    })
  })

  describe('with rows added for the purpose', () => {
    beforeAll(async () => {
      await ctx.reset()
      for (const rows of [LOOKALIKE_ROWS, WIDE_PRICE_ROWS, WIDE_BIG_ROWS]) {
        const response = await request(app).post('/api/items/samples?fields=id').send(rows)
        expect(response.status).toBe(200)
      }
    })
    afterAll(() => ctx.reset())

    it("sums decimals exactly beyond a double's 15 digits", async () => {
      const response = await get('samples', `filter[count][_eq]=${WIDE_MARK}&aggregate[sum]=price&aggregate[count]=*`)
      expect(response.body).toEqual({
        data: [{ sum: { price: decimalSum(WIDE_PRICE_ROWS.map((row) => row.price)) }, count: WIDE_PRICE_ROWS.length }],
      })
    })

    it('sums bigIntegers exactly beyond the 64-bit range', async () => {
      const response = await get('samples', `filter[count][_eq]=${WIDE_MARK + 1}&aggregate[sum]=big`)
      expect(response.body).toEqual({ data: [{ sum: { big: bigSum(WIDE_BIG_ROWS.map((row) => row.big)) } }] })
    })

    // Groups compare exactly, not by a collation.
    it('keeps labels differing in case, accents or trailing spaces apart', async () => {
      const response = await get('samples', `filter[count][_eq]=${LOOKALIKE_MARK}&groupBy=label&aggregate[count]=*&aggregate[sum]=price`)
      const expected = [...LOOKALIKE_ROWS]
        .sort((a, b) => compareText(a.label, b.label))
        .map((row) => ({ label: row.label, count: 1, sum: { price: row.price.toFixed(2) } }))
      expect(response.body).toEqual({ data: expected })
    })

    it('counts them as distinct values', async () => {
      const response = await get('samples', `filter[count][_eq]=${LOOKALIKE_MARK}&aggregate[countDistinct]=label`)
      expect(response.body).toEqual({ data: [{ countDistinct: { label: LOOKALIKE_LABELS.length } }] })
    })
  })

  // Last, so that it sees every request this dialect answered above.
  it('answers every request above with the same JSON as the other databases', () => {
    // One line per differing request and database, so the diff says where and how they part.
    const mismatches: Record<string, string> = {}
    for (const [url, byDialect] of answers) {
      const mine = byDialect[ctx.name]
      if (!mine) continue
      for (const [other, answer] of Object.entries(byDialect)) {
        const difference = other === ctx.name ? null : firstDifference(answer, mine)
        if (difference !== null) mismatches[`${url} (${other} vs ${ctx.name})`] = difference
      }
    }
    expect(mismatches).toEqual({})
  })
})
