// ?filter over HTTP matches exactly the seed rows a JS predicate picks, on every database, and rejects bad filters with 400s.
import type { Express } from 'express'
import qs from 'qs'
import request from 'supertest'
import { seed, type ArticleRow, type AuthorRow, type SampleRow } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { getInvalidQuery } from '../support/expect-error'
import { listIds, type Key } from '../support/list-ids'

type CollectionName = 'articles' | 'authors' | 'samples'
type Filter = Record<string, unknown>
/** [label, collection, filter object, expected primary keys in ascending key order] */
type Case = [label: string, collection: CollectionName, filter: Filter, expected: readonly Key[]]

const articleIds = (keep: (row: ArticleRow) => boolean): number[] => seed.articles.filter(keep).map((row) => row.id)
const authorIds = (keep: (row: AuthorRow) => boolean): number[] => seed.authors.filter(keep).map((row) => row.id)
const sampleIds = (keep: (row: SampleRow) => boolean): string[] => seed.samples.filter(keep).map((row) => row.id)
/** Sample keys by their last digit, for readability: sample(1) is '...000000000001'. */
const sample = (n: number): string => seed.samples[n - 1]!.id

const article = (label: string, filter: Filter, keep: (row: ArticleRow) => boolean): Case => [label, 'articles', filter, articleIds(keep)]
const author = (label: string, filter: Filter, keep: (row: AuthorRow) => boolean): Case => [label, 'authors', filter, authorIds(keep)]
const samples = (label: string, filter: Filter, keep: (row: SampleRow) => boolean): Case => [label, 'samples', filter, sampleIds(keep)]

const ALL_ARTICLES = articleIds(() => true)
const ms = (text: string | null): number => (text === null ? Number.NaN : Date.parse(text))
/** Lower-casing as the contract means it for `_i*` operators (the seed avoids letters whose folding is locale-dependent). */
const fold = (text: string): string => text.toLowerCase()

/** The bracket form a browser would send (`filter[rating][_in][0]=1`), values percent-encoded. */
const bracket = (filter: Filter): string => qs.stringify({ filter }, { encodeValuesOnly: true })
const json = (filter: Filter): string => `filter=${encodeURIComponent(JSON.stringify(filter))}`

const RATING_CASES: Case[] = [
  article('rating _eq 3', { rating: { _eq: 3 } }, (r) => r.rating === 3),
  article('rating _neq 3 (NULL rows excluded)', { rating: { _neq: 3 } }, (r) => r.rating !== null && r.rating !== 3),
  article('rating _lt 3', { rating: { _lt: 3 } }, (r) => r.rating !== null && r.rating < 3),
  article('rating _lte 3', { rating: { _lte: 3 } }, (r) => r.rating !== null && r.rating <= 3),
  article('rating _gt 3', { rating: { _gt: 3 } }, (r) => r.rating !== null && r.rating > 3),
  article('rating _gte 3', { rating: { _gte: 3 } }, (r) => r.rating !== null && r.rating >= 3),
  article('rating _in [1, 5]', { rating: { _in: [1, 5] } }, (r) => r.rating === 1 || r.rating === 5),
  article(
    'rating _nin [1, 5] (NULL rows excluded)',
    { rating: { _nin: [1, 5] } },
    (r) => r.rating !== null && r.rating !== 1 && r.rating !== 5,
  ),
  article('rating _null', { rating: { _null: true } }, (r) => r.rating === null),
  article('rating _nnull', { rating: { _nnull: true } }, (r) => r.rating !== null),
  article(
    'rating _between [2, 3] (inclusive)',
    { rating: { _between: [2, 3] } },
    (r) => r.rating !== null && r.rating >= 2 && r.rating <= 3,
  ),
  article(
    'rating _nbetween [2, 3] (NULL rows excluded)',
    { rating: { _nbetween: [2, 3] } },
    (r) => r.rating !== null && (r.rating < 2 || r.rating > 3),
  ),
]

const STRING_CASES: Case[] = [
  article('status _eq published', { status: { _eq: 'published' } }, (r) => r.status === 'published'),
  article('status _neq published', { status: { _neq: 'published' } }, (r) => r.status !== 'published'),
  article(
    'status _in [draft, archived]',
    { status: { _in: ['draft', 'archived'] } },
    (r) => r.status === 'draft' || r.status === 'archived',
  ),
  article('status _nin [draft]', { status: { _nin: ['draft'] } }, (r) => r.status !== 'draft'),
  article('title _contains river', { title: { _contains: 'river' } }, (r) => r.title.includes('river')),
  article('title _ncontains river', { title: { _ncontains: 'river' } }, (r) => !r.title.includes('river')),
  article('title _icontains RIVER', { title: { _icontains: 'RIVER' } }, (r) => fold(r.title).includes('river')),
  article('title _nicontains RIVER', { title: { _nicontains: 'RIVER' } }, (r) => !fold(r.title).includes('river')),
  article('title _starts_with Quiet', { title: { _starts_with: 'Quiet' } }, (r) => r.title.startsWith('Quiet')),
  article('title _starts_with quiet (case-sensitive: none)', { title: { _starts_with: 'quiet' } }, (r) => r.title.startsWith('quiet')),
  article('title _nstarts_with Quiet', { title: { _nstarts_with: 'Quiet' } }, (r) => !r.title.startsWith('Quiet')),
  article('title _istarts_with qUIET', { title: { _istarts_with: 'qUIET' } }, (r) => fold(r.title).startsWith('quiet')),
  article('title _nistarts_with qUIET', { title: { _nistarts_with: 'qUIET' } }, (r) => !fold(r.title).startsWith('quiet')),
  article('title _ends_with garden', { title: { _ends_with: 'garden' } }, (r) => r.title.endsWith('garden')),
  article('title _nends_with garden', { title: { _nends_with: 'garden' } }, (r) => !r.title.endsWith('garden')),
  article('title _iends_with GARDEN', { title: { _iends_with: 'GARDEN' } }, (r) => fold(r.title).endsWith('garden')),
  article('title _niends_with GARDEN', { title: { _niends_with: 'GARDEN' } }, (r) => !fold(r.title).endsWith('garden')),
  samples('body _empty (NULL or "")', { body: { _empty: true } }, (r) => r.body === null || r.body === ''),
  samples('body _nempty', { body: { _nempty: true } }, (r) => r.body !== null && r.body !== ''),
  author('bio _empty', { bio: { _empty: true } }, (r) => r.bio === null || r.bio === ''),
  author('bio _nempty', { bio: { _nempty: true } }, (r) => r.bio !== null && r.bio !== ''),
  author('email _null', { email: { _null: true } }, (r) => r.email === null),
]

// SQL three-valued logic: a negated comparison is unknown, so false, for NULL (REFERENCE.md, Filter).
const NULL_EXCLUSION_CASES: Case[] = [
  author('email _neq bob@example.com', { email: { _neq: 'bob@example.com' } }, (r) => r.email !== null && r.email !== 'bob@example.com'),
  author(
    'email _nin [bob@example.com]',
    { email: { _nin: ['bob@example.com'] } },
    (r) => r.email !== null && r.email !== 'bob@example.com',
  ),
  author('email _ncontains example', { email: { _ncontains: 'example' } }, (r) => r.email !== null && !r.email.includes('example')),
  author('email _nicontains EXAMPLE', { email: { _nicontains: 'EXAMPLE' } }, (r) => r.email !== null && !fold(r.email).includes('example')),
  author('email _nstarts_with a', { email: { _nstarts_with: 'a' } }, (r) => r.email !== null && !r.email.startsWith('a')),
  author('email _nistarts_with A', { email: { _nistarts_with: 'A' } }, (r) => r.email !== null && !fold(r.email).startsWith('a')),
  author(
    'email _nends_with example.com',
    { email: { _nends_with: 'example.com' } },
    (r) => r.email !== null && !r.email.endsWith('example.com'),
  ),
  author(
    'email _niends_with EXAMPLE.COM',
    { email: { _niends_with: 'EXAMPLE.COM' } },
    (r) => r.email !== null && !fold(r.email).endsWith('example.com'),
  ),
  samples('count _nbetween [0, 42]', { count: { _nbetween: [0, 42] } }, (r) => r.count !== null && (r.count < 0 || r.count > 42)),
]

const SOME_PUBLISHED_AT = seed.articles.find((r) => r.published_at !== null)!.published_at!
const OTHER_PUBLISHED_AT = seed.articles.filter((r) => r.published_at !== null)[7]!.published_at!
const DATETIME_CASES: Case[] = [
  article('published_at _eq a seeded value', { published_at: { _eq: SOME_PUBLISHED_AT } }, (r) => r.published_at === SOME_PUBLISHED_AT),
  article(
    'published_at _eq with a space separator',
    { published_at: { _eq: SOME_PUBLISHED_AT.replace('T', ' ') } },
    (r) => r.published_at === SOME_PUBLISHED_AT,
  ),
  article(
    'published_at _neq a seeded value',
    { published_at: { _neq: SOME_PUBLISHED_AT } },
    (r) => r.published_at !== null && r.published_at !== SOME_PUBLISHED_AT,
  ),
  article(
    'published_at _lt 2024-01-01 (midnight)',
    { published_at: { _lt: '2024-01-01' } },
    (r) => r.published_at !== null && r.published_at < '2024-01-01T00:00:00',
  ),
  article(
    'published_at _lte a seeded value',
    { published_at: { _lte: SOME_PUBLISHED_AT } },
    (r) => r.published_at !== null && r.published_at <= SOME_PUBLISHED_AT,
  ),
  article(
    'published_at _gt 2025-06-01T12:00:00',
    { published_at: { _gt: '2025-06-01T12:00:00' } },
    (r) => r.published_at !== null && r.published_at > '2025-06-01T12:00:00',
  ),
  article(
    'published_at _gte a seeded value',
    { published_at: { _gte: SOME_PUBLISHED_AT } },
    (r) => r.published_at !== null && r.published_at >= SOME_PUBLISHED_AT,
  ),
  article(
    'published_at _in two seeded values',
    { published_at: { _in: [SOME_PUBLISHED_AT, OTHER_PUBLISHED_AT] } },
    (r) => r.published_at === SOME_PUBLISHED_AT || r.published_at === OTHER_PUBLISHED_AT,
  ),
  article(
    'published_at _nin two seeded values',
    { published_at: { _nin: [SOME_PUBLISHED_AT, OTHER_PUBLISHED_AT] } },
    (r) => r.published_at !== null && r.published_at !== SOME_PUBLISHED_AT && r.published_at !== OTHER_PUBLISHED_AT,
  ),
  article('published_at _null', { published_at: { _null: true } }, (r) => r.published_at === null),
  article('published_at _nnull', { published_at: { _nnull: true } }, (r) => r.published_at !== null),
  article(
    'published_at _between [2024-01-01, 2024-03-31T23:59:59]',
    { published_at: { _between: ['2024-01-01', '2024-03-31T23:59:59'] } },
    (r) => r.published_at !== null && r.published_at >= '2024-01-01T00:00:00' && r.published_at <= '2024-03-31T23:59:59',
  ),
  article(
    'published_at _nbetween [2024-01-01, 2024-12-31T23:59:59]',
    { published_at: { _nbetween: ['2024-01-01', '2024-12-31T23:59:59'] } },
    (r) => r.published_at !== null && (r.published_at < '2024-01-01T00:00:00' || r.published_at > '2024-12-31T23:59:59'),
  ),
]

const JSON_CASES: Case[] = [
  article('tags _null', { tags: { _null: true } }, (r) => r.tags === null),
  article('tags _nnull', { tags: { _nnull: true } }, (r) => r.tags !== null),
  samples('payload _null', { payload: { _null: true } }, (r) => r.payload === null),
  samples('payload _nnull', { payload: { _nnull: true } }, (r) => r.payload !== null),
]

const SAMPLE_CASES: Case[] = [
  // timestamp: compared as instants, whatever offset the value is written in
  samples(
    'logged_at _eq with a +02:00 offset',
    { logged_at: { _eq: '2024-05-01T12:00:00+02:00' } },
    (r) => ms(r.logged_at) === Date.UTC(2024, 4, 1, 10),
  ),
  samples(
    'logged_at _eq with milliseconds',
    { logged_at: { _eq: '2024-12-31T23:30:00.123Z' } },
    (r) => r.logged_at === '2024-12-31T23:30:00.123Z',
  ),
  samples(
    'logged_at _neq',
    { logged_at: { _neq: '2024-05-01T10:00:00Z' } },
    (r) => r.logged_at !== null && ms(r.logged_at) !== ms('2024-05-01T10:00:00Z'),
  ),
  samples(
    'logged_at _gt 2024-06-01T00:00:00Z',
    { logged_at: { _gt: '2024-06-01T00:00:00Z' } },
    (r) => ms(r.logged_at) > ms('2024-06-01T00:00:00Z'),
  ),
  samples(
    'logged_at _lt one millisecond after a seeded instant',
    { logged_at: { _lt: '2024-05-01T10:00:00.001Z' } },
    (r) => ms(r.logged_at) < ms('2024-05-01T10:00:00.001Z'),
  ),
  samples(
    'logged_at _lte a seeded instant with ms',
    { logged_at: { _lte: '2024-12-31T23:30:00.123Z' } },
    (r) => ms(r.logged_at) <= ms('2024-12-31T23:30:00.123Z'),
  ),
  samples(
    'logged_at _gte in another zone',
    { logged_at: { _gte: '2025-06-15T12:00:00.500+05:30' } },
    (r) => ms(r.logged_at) >= ms('2025-06-15T06:30:00.500Z'),
  ),
  samples(
    'logged_at _between stops one ms short',
    { logged_at: { _between: ['2024-01-01T00:00:00Z', '2024-12-31T23:30:00.122Z'] } },
    (r) => ms(r.logged_at) >= ms('2024-01-01T00:00:00Z') && ms(r.logged_at) <= ms('2024-12-31T23:30:00.122Z'),
  ),
  samples('logged_at _in', { logged_at: { _in: ['1970-01-01T00:00:00Z', '2024-05-01T10:00:00Z'] } }, (r) =>
    [0, Date.UTC(2024, 4, 1, 10)].includes(ms(r.logged_at)),
  ),
  samples('logged_at _null', { logged_at: { _null: true } }, (r) => r.logged_at === null),
  // date
  samples('day _eq 2024-02-29', { day: { _eq: '2024-02-29' } }, (r) => r.day === '2024-02-29'),
  samples('day _lt 2000-01-01', { day: { _lt: '2000-01-01' } }, (r) => r.day !== null && r.day < '2000-01-01'),
  samples('day _gte 2024-01-01', { day: { _gte: '2024-01-01' } }, (r) => r.day !== null && r.day >= '2024-01-01'),
  samples(
    'day _between [2000-01-01, 2024-01-01]',
    { day: { _between: ['2000-01-01', '2024-01-01'] } },
    (r) => r.day !== null && r.day >= '2000-01-01' && r.day <= '2024-01-01',
  ),
  samples(
    'day _nbetween [2000-01-01, 2024-01-01]',
    { day: { _nbetween: ['2000-01-01', '2024-01-01'] } },
    (r) => r.day !== null && (r.day < '2000-01-01' || r.day > '2024-01-01'),
  ),
  samples('day _nin [2024-02-29]', { day: { _nin: ['2024-02-29'] } }, (r) => r.day !== null && r.day !== '2024-02-29'),
  // time
  samples('alarm _eq 12:34:56', { alarm: { _eq: '12:34:56' } }, (r) => r.alarm === '12:34:56'),
  samples('alarm _gt 12:00:00', { alarm: { _gt: '12:00:00' } }, (r) => r.alarm !== null && r.alarm > '12:00:00'),
  samples('alarm _lte 07:30 (no seconds)', { alarm: { _lte: '07:30' } }, (r) => r.alarm !== null && r.alarm <= '07:30:00'),
  samples(
    'alarm _between [07:00, 12:00]',
    { alarm: { _between: ['07:00', '12:00'] } },
    (r) => r.alarm !== null && r.alarm >= '07:00:00' && r.alarm <= '12:00:00',
  ),
  // boolean
  samples('active _eq true', { active: { _eq: true } }, (r) => r.active === true),
  samples('active _eq false', { active: { _eq: false } }, (r) => r.active === false),
  samples('active _eq "1"', { active: { _eq: '1' } }, (r) => r.active === true),
  samples('active _eq "0"', { active: { _eq: '0' } }, (r) => r.active === false),
  samples('active _neq true (NULL rows excluded)', { active: { _neq: true } }, (r) => r.active === false),
  samples('active _null', { active: { _null: true } }, (r) => r.active === null),
  samples('active _nnull', { active: { _nnull: true } }, (r) => r.active !== null),
  // uuid: compared case-insensitively because the canonical form is lower-case
  samples(
    'ref _eq in upper case',
    { ref: { _eq: '7D444840-9DC0-11D1-B245-5FFDCE74FAD2' } },
    (r) => r.ref === '7d444840-9dc0-11d1-b245-5ffdce74fad2',
  ),
  samples(
    'ref _neq (NULL rows excluded)',
    { ref: { _neq: '7d444840-9dc0-11d1-b245-5ffdce74fad2' } },
    (r) => r.ref !== null && r.ref !== '7d444840-9dc0-11d1-b245-5ffdce74fad2',
  ),
  samples(
    'ref _in',
    { ref: { _in: ['a3bb189e-8bf9-3888-9912-ace4e6543002', '6BA7B810-9DAD-11D1-80B4-00C04FD430C8'] } },
    (r) => r.ref === 'a3bb189e-8bf9-3888-9912-ace4e6543002' || r.ref === '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
  ),
  samples(
    'ref _nin',
    { ref: { _nin: ['a3bb189e-8bf9-3888-9912-ace4e6543002'] } },
    (r) => r.ref !== null && r.ref !== 'a3bb189e-8bf9-3888-9912-ace4e6543002',
  ),
  samples('ref _null', { ref: { _null: true } }, (r) => r.ref === null),
  samples('id _eq (uuid primary key)', { id: { _eq: sample(4).toUpperCase() } }, (r) => r.id === sample(4)),
  // decimal
  samples('price _eq 12.5 (scale ignored)', { price: { _eq: 12.5 } }, (r) => r.price === '12.50'),
  samples('price _eq "12.50"', { price: { _eq: '12.50' } }, (r) => r.price === '12.50'),
  samples('price _gt 10', { price: { _gt: 10 } }, (r) => r.price !== null && Number(r.price) > 10),
  samples('price _lt 0', { price: { _lt: 0 } }, (r) => r.price !== null && Number(r.price) < 0),
  samples('price _gte 99999.99', { price: { _gte: '99999.99' } }, (r) => r.price !== null && Number(r.price) >= 99999.99),
  samples(
    'price _between [0, 1]',
    { price: { _between: [0, 1] } },
    (r) => r.price !== null && Number(r.price) >= 0 && Number(r.price) <= 1,
  ),
  samples(
    'price _nbetween [0, 1]',
    { price: { _nbetween: [0, 1] } },
    (r) => r.price !== null && (Number(r.price) < 0 || Number(r.price) > 1),
  ),
  // bigInteger: 2^53 + 1 must not be rounded to 2^53 on the way
  samples('big _eq 9007199254740993', { big: { _eq: '9007199254740993' } }, (r) => r.big === '9007199254740993'),
  samples('big _eq 9007199254740992 (no rounding)', { big: { _eq: '9007199254740992' } }, (r) => r.big === '9007199254740992'),
  samples('big _gt 42', { big: { _gt: '42' } }, (r) => r.big !== null && BigInt(r.big) > 42n),
  samples('big _lt 0', { big: { _lt: 0 } }, (r) => r.big !== null && BigInt(r.big) < 0n),
  samples('big _in [0, 1]', { big: { _in: ['0', '1'] } }, (r) => r.big === '0' || r.big === '1'),
  samples(
    'big _between [-1, 42]',
    { big: { _between: ['-1', '42'] } },
    (r) => r.big !== null && BigInt(r.big) >= -1n && BigInt(r.big) <= 42n,
  ),
  // float and integer
  samples('ratio _eq 0.5', { ratio: { _eq: 0.5 } }, (r) => r.ratio === 0.5),
  samples('ratio _gt 0.1', { ratio: { _gt: 0.1 } }, (r) => r.ratio !== null && r.ratio > 0.1),
  samples('ratio _lte -1.25', { ratio: { _lte: '-1.25' } }, (r) => r.ratio !== null && r.ratio <= -1.25),
  samples('count _eq 2147483647', { count: { _eq: 2147483647 } }, (r) => r.count === 2147483647),
  samples('count _eq -2147483648', { count: { _eq: '-2147483648' } }, (r) => r.count === -2147483648),
  samples('count _lt 0', { count: { _lt: 0 } }, (r) => r.count !== null && r.count < 0),
]

// `%` and `_` are LIKE wildcards and `*`, `?`, `[` GLOB ones: each must match only itself (REFERENCE.md, "Ours").
const WILDCARD_CASES: Case[] = [
  article('title _contains %', { title: { _contains: '%' } }, (r) => r.title.includes('%')),
  article('title _contains _', { title: { _contains: '_' } }, (r) => r.title.includes('_')),
  article('title _contains e_c (not snake-case)', { title: { _contains: 'e_c' } }, (r) => r.title.includes('e_c')),
  article('title _icontains E_C', { title: { _icontains: 'E_C' } }, (r) => fold(r.title).includes('e_c')),
  article('title _starts_with 100% (not 1000 ways)', { title: { _starts_with: '100%' } }, (r) => r.title.startsWith('100%')),
  article('title _istarts_with 100% O', { title: { _istarts_with: '100% O' } }, (r) => fold(r.title).startsWith('100% o')),
  article('title _ends_with _v2', { title: { _ends_with: '_v2' } }, (r) => r.title.endsWith('_v2')),
  article('title _iends_with _V2', { title: { _iends_with: '_V2' } }, (r) => fold(r.title).endsWith('_v2')),
  article('title _ncontains %', { title: { _ncontains: '%' } }, (r) => !r.title.includes('%')),
  article('title _nicontains _', { title: { _nicontains: '_' } }, (r) => !r.title.includes('_')),
  article('title _contains \\', { title: { _contains: '\\' } }, (r) => r.title.includes('\\')),
  article('title _icontains \\%', { title: { _icontains: '\\%' } }, (r) => r.title.includes('\\%')),
  article('title _contains *', { title: { _contains: '*' } }, (r) => r.title.includes('*')),
  article('title _contains snake?case', { title: { _contains: 'snake?case' } }, (r) => r.title.includes('snake?case')),
  article('title _contains snake[_-]case', { title: { _contains: 'snake[_-]case' } }, (r) => r.title.includes('snake[_-]case')),
  article('title _starts_with [', { title: { _starts_with: '[' } }, (r) => r.title.startsWith('[')),
]

// `_contains` compares code points, `_icontains` folds case but never accents, alike on all three databases.
const CASE_CASES: Case[] = [
  article('title _contains Über', { title: { _contains: 'Über' } }, (r) => r.title.includes('Über')),
  article('title _contains über', { title: { _contains: 'über' } }, (r) => r.title.includes('über')),
  article('title _contains UBER', { title: { _contains: 'UBER' } }, (r) => r.title.includes('UBER')),
  article('title _contains uber (none)', { title: { _contains: 'uber' } }, (r) => r.title.includes('uber')),
  article('title _icontains über', { title: { _icontains: 'über' } }, (r) => fold(r.title).includes('über')),
  article('title _icontains ÜBER', { title: { _icontains: 'ÜBER' } }, (r) => fold(r.title).includes('über')),
  article('title _icontains uber (not über)', { title: { _icontains: 'uber' } }, (r) => fold(r.title).includes('uber')),
  article('title _contains Straße', { title: { _contains: 'Straße' } }, (r) => r.title.includes('Straße')),
  article('title _contains straße (none)', { title: { _contains: 'straße' } }, (r) => r.title.includes('straße')),
  article('title _icontains STRAßE (not Strasse)', { title: { _icontains: 'STRAßE' } }, (r) => fold(r.title).includes('straße')),
  article('title _icontains strasse (not Straße)', { title: { _icontains: 'strasse' } }, (r) => fold(r.title).includes('strasse')),
  article('title _icontains ÉMOJIS 🚀', { title: { _icontains: 'ÉMOJIS 🚀' } }, (r) => fold(r.title).includes('émojis 🚀')),
  article('title _istarts_with émojis', { title: { _istarts_with: 'émojis' } }, (r) => fold(r.title).startsWith('émojis')),
  article('title _iends_with ÜNÏCODE', { title: { _iends_with: 'ÜNÏCODE' } }, (r) => fold(r.title).endsWith('ünïcode')),
  article('title _nicontains ÜBER', { title: { _nicontains: 'ÜBER' } }, (r) => !fold(r.title).includes('über')),
  article('title _eq is exact (über den Wolken)', { title: { _eq: 'über den Wolken' } }, (r) => r.title === 'über den Wolken'),
  article('title _eq is exact (Über den Wolken: none)', { title: { _eq: 'Über den Wolken' } }, (r) => r.title === 'Über den Wolken'),
  article('title _in is exact (Die Strasse only)', { title: { _in: ['Die Strasse', 'die straße'] } }, (r) => r.title === 'Die Strasse'),
  author('name _icontains ümit', { name: { _icontains: 'ümit' } }, (r) => fold(r.name).includes('ümit')),
  author('name _icontains ÅDNE', { name: { _icontains: 'ÅDNE' } }, (r) => fold(r.name).includes('ådne')),
  author('name _icontains zoe (accents are letters: none)', { name: { _icontains: 'zoe' } }, (r) => fold(r.name).includes('zoe')),
  author('name _contains 李', { name: { _contains: '李' } }, (r) => r.name.includes('李')),
  samples(
    'label _icontains ÜNÏCÖDÉ 李雷',
    { label: { _icontains: 'ÜNÏCÖDÉ 李雷' } },
    (r) => r.label !== null && fold(r.label).includes('ünïcödé 李雷'),
  ),
]

const COMBINED_CASES: Case[] = [
  article('shorthand { status: value } means _eq', { status: 'published' }, (r) => r.status === 'published'),
  article(
    'two operators on one field are AND-ed',
    { rating: { _gte: 2, _lte: 4 } },
    (r) => r.rating !== null && r.rating >= 2 && r.rating <= 4,
  ),
  article('_nnull and _neq on one field', { rating: { _nnull: true, _neq: 5 } }, (r) => r.rating !== null && r.rating !== 5),
  article(
    'several fields are AND-ed',
    { status: { _eq: 'published' }, rating: { _gte: 4 }, title: { _icontains: 'E' } },
    (r) => r.status === 'published' && r.rating !== null && r.rating >= 4 && fold(r.title).includes('e'),
  ),
  article(
    '_or of two fields',
    { _or: [{ status: { _eq: 'draft' } }, { rating: { _eq: 5 } }] },
    (r) => r.status === 'draft' || r.rating === 5,
  ),
  article(
    '_and inside _or',
    { _or: [{ _and: [{ status: { _eq: 'archived' } }, { rating: { _lte: 2 } }] }, { title: { _starts_with: 'Quiet' } }] },
    (r) => (r.status === 'archived' && r.rating !== null && r.rating <= 2) || r.title.startsWith('Quiet'),
  ),
  article(
    '_or beside a field condition',
    { status: { _eq: 'published' }, _or: [{ rating: { _null: true } }, { published_at: { _null: true } }] },
    (r) => r.status === 'published' && (r.rating === null || r.published_at === null),
  ),
  article(
    '_or inside _and inside _or',
    {
      _or: [
        { _and: [{ rating: { _eq: 1 } }, { _or: [{ status: { _eq: 'draft' } }, { tags: { _null: true } }] }] },
        { title: { _contains: '%' } },
      ],
    },
    (r) => (r.rating === 1 && (r.status === 'draft' || r.tags === null)) || r.title.includes('%'),
  ),
  article(
    '_and of _or groups',
    {
      _and: [
        { _or: [{ rating: { _lt: 2 } }, { rating: { _gt: 4 } }] },
        { _or: [{ status: { _eq: 'archived' } }, { published_at: { _gte: '2025-01-01' } }] },
      ],
    },
    (r) =>
      r.rating !== null &&
      (r.rating < 2 || r.rating > 4) &&
      (r.status === 'archived' || (r.published_at !== null && r.published_at >= '2025-01-01T00:00:00')),
  ),
]

/** n `_or` groups, one inside the other, around `rating _eq 5`. */
function nestedOr(n: number): Filter {
  return n === 0 ? { rating: { _eq: 5 } } : { _or: [nestedOr(n - 1)] }
}

/** `$NOW(±n unit)` computed the way a calendar does it, independently of the library. */
function shifted(now: Date, amount: number, unit: 'day' | 'year'): Date {
  const date = new Date(now.getTime())
  if (unit === 'day') date.setTime(date.getTime() + amount * 86_400_000)
  else date.setUTCFullYear(date.getUTCFullYear() + amount)
  return date
}
const wallClock = (date: Date): string => date.toISOString().slice(0, 19)

describe('filter case tables', () => {
  it('gives every operator a case that selects some rows but not all', () => {
    // A predicate that selects nothing or everything would let a broken operator pass unnoticed.
    const cases = [...RATING_CASES, ...STRING_CASES, ...NULL_EXCLUSION_CASES, ...DATETIME_CASES, ...SAMPLE_CASES]
    const discriminating = cases.filter(([, collection, , ids]) => ids.length > 0 && ids.length < seed[collection].length)
    const operators = new Set(discriminating.flatMap(([, , filter]) => Object.values(filter).flatMap((ops) => Object.keys(ops as object))))
    expect([...operators].sort()).toEqual([
      '_between',
      '_contains',
      '_empty',
      '_ends_with',
      '_eq',
      '_gt',
      '_gte',
      '_icontains',
      '_iends_with',
      '_in',
      '_istarts_with',
      '_lt',
      '_lte',
      '_nbetween',
      '_ncontains',
      '_nempty',
      '_nends_with',
      '_neq',
      '_nicontains',
      '_niends_with',
      '_nin',
      '_nistarts_with',
      '_nnull',
      '_nstarts_with',
      '_null',
      '_starts_with',
    ])
  })
})

forEachDialect((ctx) => {
  let app: Express
  beforeAll(() => {
    app = createApp(ctx.knex)
  })

  const list = (collection: CollectionName, query: string, on: Express = app) => listIds(on, collection, query)

  /** A 400 INVALID_QUERY naming every one of `mentions`; bad filters are rejected while parsing, before any SQL. */
  const expectInvalid = (collection: CollectionName, query: string, mentions: readonly string[], on: Express = app) =>
    getInvalidQuery(ctx, on, `/api/items/${collection}?fields=id&${query}`, mentions)

  describe('operators by field type (bracket and JSON forms alike)', () => {
    it.each([...RATING_CASES, ...STRING_CASES, ...NULL_EXCLUSION_CASES, ...DATETIME_CASES, ...JSON_CASES, ...SAMPLE_CASES])(
      '%s',
      async (_label, collection, filter, expected) => {
        expect(await list(collection, bracket(filter))).toEqual({ status: 200, ids: expected })
        expect(await list(collection, json(filter))).toEqual({ status: 200, ids: expected })
      },
    )
  })

  describe('literal wildcards', () => {
    it.each(WILDCARD_CASES)('%s', async (_label, collection, filter, expected) => {
      expect(await list(collection, bracket(filter))).toEqual({ status: 200, ids: expected })
    })

    it('finds the seeded wildcard titles by id', async () => {
      expect(await list('articles', bracket({ title: { _contains: '%' } }))).toEqual({ status: 200, ids: [58, 73] })
      expect(await list('articles', bracket({ title: { _contains: '_' } }))).toEqual({ status: 200, ids: [88, 117] })
    })
  })

  describe('case and non-ASCII letters', () => {
    it.each(CASE_CASES)('%s', async (_label, collection, filter, expected) => {
      expect(await list(collection, bracket(filter))).toEqual({ status: 200, ids: expected })
    })

    it('matches the Turkish dotted İ case-insensitively with a plain i', async () => {
      // 'İstanbul doğumlu.' is author 4's bio; lower-casing İ gives i (plus a combining dot in full case mapping).
      expect(await list('authors', bracket({ bio: { _icontains: 'istanbul' } }))).toEqual({ status: 200, ids: [4] })
      expect(await list('authors', bracket({ bio: { _icontains: 'İSTANBUL' } }))).toEqual({ status: 200, ids: [4] })
    })

    it('folds Ü to ü but never to U', async () => {
      expect(await list('articles', bracket({ title: { _icontains: 'über' } }))).toEqual({ status: 200, ids: [7, 19] })
      expect(await list('articles', bracket({ title: { _icontains: 'UBER' } }))).toEqual({ status: 200, ids: [31] })
      expect(await list('articles', bracket({ title: { _contains: 'Straße' } }))).toEqual({ status: 200, ids: [44] })
    })
  })

  describe('combining conditions', () => {
    it.each(COMBINED_CASES)('%s', async (_label, collection, filter, expected) => {
      expect(await list(collection, bracket(filter))).toEqual({ status: 200, ids: expected })
      expect(await list(collection, json(filter))).toEqual({ status: 200, ids: expected })
    })

    it.each([
      ['filter[status]=published', (r: ArticleRow) => r.status === 'published'],
      ['filter[_or][0][status][_eq]=draft&filter[_or][1][rating][_eq]=5', (r: ArticleRow) => r.status === 'draft' || r.rating === 5],
      [
        'filter[_or][0][_and][0][status]=archived&filter[_or][0][_and][1][rating][_lte]=2&filter[_or][1][title][_starts_with]=Quiet',
        (r: ArticleRow) => (r.status === 'archived' && r.rating !== null && r.rating <= 2) || r.title.startsWith('Quiet'),
      ],
      ['filter[rating][_gte]=2&filter[rating][_lte]=4', (r: ArticleRow) => r.rating !== null && r.rating >= 2 && r.rating <= 4],
      ['filter[status][_eq]=published&filter[rating][_eq]=5', (r: ArticleRow) => r.status === 'published' && r.rating === 5],
    ])('hand-written %s', async (query, keep) => {
      expect(await list('articles', query)).toEqual({ status: 200, ids: articleIds(keep) })
    })

    it('treats an empty _or as matching nothing and an empty _and as no condition', async () => {
      expect(await list('articles', json({ _or: [] }))).toEqual({ status: 200, ids: [] })
      expect(await list('articles', json({ _and: [] }))).toEqual({ status: 200, ids: ALL_ARTICLES })
    })
  })

  describe('nesting limit', () => {
    let shallow: Express
    beforeAll(() => {
      shallow = createApp(ctx.knex, { maxFilterDepth: 3 })
    })
    const rated5 = articleIds((r) => r.rating === 5)

    it.each([
      ['JSON', json],
      ['bracket', bracket],
    ])('accepts exactly maxFilterDepth nested groups (%s)', async (_form, encode) => {
      expect(await list('articles', encode(nestedOr(3)), shallow)).toEqual({ status: 200, ids: rated5 })
      expect(await list('articles', encode(nestedOr(10)))).toEqual({ status: 200, ids: rated5 })
    })

    it.each([
      ['JSON', json],
      ['bracket', bracket],
    ])('rejects one group more than maxFilterDepth (%s)', async (_form, encode) => {
      await expectInvalid('articles', encode(nestedOr(4)), [], shallow)
      await expectInvalid('articles', encode(nestedOr(11)), [])
    })

    it('names the limit in the reason', async () => {
      await expectInvalid('articles', json(nestedOr(12)), ['10'])
    })
  })

  describe('value coercion from query-string text', () => {
    const ratingNull = articleIds((r) => r.rating === null)
    const ratingNotNull = articleIds((r) => r.rating !== null)

    it.each([
      ['filter[rating][_eq]=null', ratingNull],
      ['filter[rating]=null', ratingNull],
      ['filter[rating][_neq]=null', ratingNotNull],
      ['filter[rating][_null]=false', ratingNotNull],
      ['filter[rating][_nnull]=false', ratingNull],
      ['filter[rating][_null]=true', ratingNull],
      ['filter[rating][_eq]=3', articleIds((r) => r.rating === 3)],
      ['filter[rating][_lt]=12', ratingNotNull],
      ['filter[rating][_gt]=12', []],
      ['filter[title][_eq]=null', []],
      [json({ rating: { _eq: null } }), ratingNull],
      [json({ rating: null }), ratingNull],
      [json({ rating: { _neq: null } }), ratingNotNull],
      [json({ rating: { _null: false } }), ratingNotNull],
      [json({ rating: { _eq: '3' } }), articleIds((r) => r.rating === 3)],
      [json({ rating: { _lt: '12' } }), ratingNotNull],
    ])('articles %s', async (query, expected) => {
      expect(await list('articles', query)).toEqual({ status: 200, ids: expected })
    })

    it.each([
      ['filter[active][_eq]=true', sampleIds((r) => r.active === true)],
      ['filter[active][_eq]=false', sampleIds((r) => r.active === false)],
      ['filter[active]=true', sampleIds((r) => r.active === true)],
      ['filter[body][_empty]=false', sampleIds((r) => r.body !== null && r.body !== '')],
      ['filter[count][_eq]=42', sampleIds((r) => r.count === 42)],
      [json({ active: { _eq: 'true' } }), sampleIds((r) => r.active === true)],
      [json({ active: { _eq: 'false' } }), sampleIds((r) => r.active === false)],
    ])('samples %s', async (query, expected) => {
      expect(await list('samples', query)).toEqual({ status: 200, ids: expected })
    })
  })

  describe('_in lists and _between pairs', () => {
    const oneOrFive = articleIds((r) => r.rating === 1 || r.rating === 5)

    it.each([
      ['comma string', 'filter[rating][_in]=1,5'],
      ['bracket array', 'filter[rating][_in][]=1&filter[rating][_in][]=5'],
      ['indexed array', 'filter[rating][_in][0]=1&filter[rating][_in][1]=5'],
      ['JSON array', json({ rating: { _in: [1, 5] } })],
      ['JSON array of strings', json({ rating: { _in: ['1', '5'] } })],
      ['JSON comma string', json({ rating: { _in: '1,5' } })],
    ])('_in as a %s', async (_form, query) => {
      expect(await list('articles', query)).toEqual({ status: 200, ids: oneOrFive })
    })

    it('_in with one value', async () => {
      expect(await list('articles', 'filter[rating][_in]=5')).toEqual({ status: 200, ids: articleIds((r) => r.rating === 5) })
    })

    it.each([['filter[rating][_in]='], ['filter[status][_in]='], [json({ rating: { _in: [] } })], [json({ status: { _in: '' } })]])(
      'empty _in matches nothing: %s',
      async (query) => {
        expect(await list('articles', query)).toEqual({ status: 200, ids: [] })
      },
    )

    it('empty _nin excludes nothing, NULL rows included', async () => {
      expect(await list('articles', 'filter[rating][_nin]=')).toEqual({ status: 200, ids: ALL_ARTICLES })
      expect(await list('articles', json({ status: { _nin: [] } }))).toEqual({ status: 200, ids: ALL_ARTICLES })
    })

    it.each([
      ['filter[rating][_between]=2,3'],
      ['filter[rating][_between][]=2&filter[rating][_between][]=3'],
      [json({ rating: { _between: [2, 3] } })],
      [json({ rating: { _between: '2,3' } })],
    ])('_between is inclusive: %s', async (query) => {
      expect(await list('articles', query)).toEqual({ status: 200, ids: articleIds((r) => r.rating === 2 || r.rating === 3) })
    })

    it('_between with equal bounds is _eq', async () => {
      expect(await list('articles', 'filter[rating][_between]=4,4')).toEqual({ status: 200, ids: articleIds((r) => r.rating === 4) })
    })
  })

  describe('$NOW', () => {
    it.each([
      ['_lte $NOW', { _lte: '$NOW' }, (v: string, now: Date) => v <= wallClock(now)],
      ['_gt $NOW', { _gt: '$NOW' }, (v: string, now: Date) => v > wallClock(now)],
      ['_lte $NOW(-1 day)', { _lte: '$NOW(-1 day)' }, (v: string, now: Date) => v <= wallClock(shifted(now, -1, 'day'))],
      ['_gt $NOW(-1 year)', { _gt: '$NOW(-1 year)' }, (v: string, now: Date) => v > wallClock(shifted(now, -1, 'year'))],
      ['_lt $NOW(-2 years)', { _lt: '$NOW(-2 years)' }, (v: string, now: Date) => v < wallClock(shifted(now, -2, 'year'))],
      ['_gte $NOW(-100 years)', { _gte: '$NOW(-100 years)' }, (v: string, now: Date) => v >= wallClock(shifted(now, -100, 'year'))],
      ['_lt $NOW(-100 years)', { _lt: '$NOW(-100 years)' }, (v: string, now: Date) => v < wallClock(shifted(now, -100, 'year'))],
      ['_gte $NOW(+1 day)', { _gte: '$NOW(+1 day)' }, (v: string, now: Date) => v >= wallClock(shifted(now, 1, 'day'))],
      [
        '_between [$NOW(-3 years), $NOW(-1 year)]',
        { _between: ['$NOW(-3 years)', '$NOW(-1 year)'] },
        (v: string, now: Date) => v >= wallClock(shifted(now, -3, 'year')) && v <= wallClock(shifted(now, -1, 'year')),
      ],
    ])('published_at %s', async (_label, condition, keep) => {
      const now = new Date()
      const expected = articleIds((r) => r.published_at !== null && keep(r.published_at, now))
      expect(await list('articles', bracket({ published_at: condition }))).toEqual({ status: 200, ids: expected })
      expect(await list('articles', json({ published_at: condition }))).toEqual({ status: 200, ids: expected })
    })

    it('matches every dated article with _lte $NOW and none a century back', async () => {
      // The seed's dates lie in 2023-2025, so these hold whatever day the suite runs on.
      expect(await list('articles', bracket({ published_at: { _lte: '$NOW' } }))).toEqual({
        status: 200,
        ids: articleIds((r) => r.published_at !== null),
      })
      expect(await list('articles', bracket({ published_at: { _lte: '$NOW(-100 years)' } }))).toEqual({ status: 200, ids: [] })
    })

    it.each([
      [
        'logged_at _lt $NOW',
        { logged_at: { _lt: '$NOW' } },
        (r: SampleRow, now: Date) => r.logged_at !== null && ms(r.logged_at) < now.getTime(),
      ],
      [
        'logged_at _gt $NOW(-2 years)',
        { logged_at: { _gt: '$NOW(-2 years)' } },
        (r: SampleRow, now: Date) => ms(r.logged_at) > shifted(now, -2, 'year').getTime(),
      ],
      [
        'logged_at _gte $NOW(+1 day)',
        { logged_at: { _gte: '$NOW(+1 day)' } },
        (r: SampleRow, now: Date) => ms(r.logged_at) >= shifted(now, 1, 'day').getTime(),
      ],
      ['day _lte $NOW', { day: { _lte: '$NOW' } }, (r: SampleRow, now: Date) => r.day !== null && r.day <= now.toISOString().slice(0, 10)],
      [
        'day _gte $NOW(-1 year)',
        { day: { _gte: '$NOW(-1 year)' } },
        (r: SampleRow, now: Date) => r.day !== null && r.day >= shifted(now, -1, 'year').toISOString().slice(0, 10),
      ],
    ])('samples %s', async (_label, filter, keep) => {
      const now = new Date()
      expect(await list('samples', bracket(filter))).toEqual({ status: 200, ids: sampleIds((r) => keep(r, now)) })
    })
  })

  describe('errors', () => {
    it.each<[string, CollectionName, string, string[]]>([
      ['unknown field', 'articles', 'filter[nope][_eq]=1', ['nope']],
      ['unknown field in JSON', 'articles', json({ nope: { _eq: 1 } }), ['nope']],
      ['unknown field inside _or', 'articles', 'filter[_or][0][nope][_eq]=1', ['nope']],
      ['unknown operator', 'articles', 'filter[rating][_foo]=1', ['_foo', 'rating']],
      ['operator without a field', 'articles', 'filter[_eq]=1', ['_eq']],
      ['_gt on a string', 'articles', 'filter[title][_gt]=a', ['_gt', 'title']],
      ['_between on a string', 'articles', 'filter[title][_between]=a,b', ['_between', 'title']],
      ['_contains on an integer', 'articles', 'filter[rating][_contains]=1', ['_contains', 'rating']],
      ['_icontains on a dateTime', 'articles', 'filter[published_at][_icontains]=2024', ['_icontains', 'published_at']],
      ['_empty on an integer', 'articles', 'filter[rating][_empty]=true', ['_empty', 'rating']],
      ['_eq on json', 'articles', 'filter[tags][_eq]=news', ['_eq', 'tags']],
      ['_in on json', 'articles', 'filter[tags][_in]=news', ['_in', 'tags']],
      ['_contains on json', 'samples', 'filter[payload][_contains]=a', ['_contains', 'payload']],
      ['_gt on a boolean', 'samples', 'filter[active][_gt]=0', ['_gt', 'active']],
      ['_contains on a uuid', 'samples', 'filter[ref][_contains]=7d44', ['_contains', 'ref']],
      ['non-numeric value for an integer', 'articles', 'filter[rating][_eq]=abc', ['rating', 'abc']],
      ['fraction for an integer', 'articles', 'filter[rating][_gt]=2.5', ['rating']],
      ['non-numeric value in _in', 'articles', 'filter[rating][_in]=1,x', ['rating']],
      ['non-numeric value for a float', 'samples', 'filter[ratio][_lt]=half', ['ratio']],
      ['non-numeric value for a decimal', 'samples', 'filter[price][_eq]=1.2.3', ['price']],
      ['empty value for an integer', 'articles', 'filter[rating][_eq]=', ['rating']],
      ['_eq with an empty string', 'articles', 'filter[title][_eq]=', ['_eq', 'title', '_empty']],
      ['_eq with an empty string in JSON', 'articles', json({ title: { _eq: '' } }), ['_eq', 'title', '_empty']],
      ['shorthand with an empty string', 'articles', 'filter[status]=', ['status', '_empty']],
      ['malformed JSON', 'articles', 'filter={bad', ['Invalid JSON for filter object']],
      ['JSON array', 'articles', json([1, 2] as unknown as Filter), ['filter']],
      ['JSON number', 'articles', 'filter=5', ['filter']],
      ['JSON string', 'articles', `filter=${encodeURIComponent('"status"')}`, ['filter']],
      ['JSON null', 'articles', 'filter=null', ['filter']],
      ['bracket array', 'articles', 'filter[]=1', ['filter']],
      ['field with no operator', 'articles', json({ rating: {} }), ['rating']],
      ['_or that is not an array', 'articles', 'filter[_or]=x', ['_or']],
      ['_or entry that is not an object', 'articles', 'filter[_or][0]=x', ['_or']],
      ['object for a scalar operator', 'articles', 'filter[rating][_eq][x]=1', ['_eq', 'rating']],
      ['array for a scalar operator', 'articles', 'filter[rating][_gt][]=1', ['_gt', 'rating']],
      ['JSON array for a scalar operator', 'articles', json({ rating: { _eq: [1] } }), ['_eq', 'rating']],
      ['JSON object for a scalar operator', 'articles', json({ title: { _contains: { a: 1 } } }), ['_contains', 'title']],
      ['JSON object inside _in', 'articles', json({ rating: { _in: [[1]] } }), ['_in', 'rating']],
      ['null inside _in', 'articles', 'filter[rating][_in]=1,null', ['_in', 'rating']],
      ['null for an ordering operator', 'articles', 'filter[rating][_gt]=null', ['_gt', 'rating']],
      ['null for a pattern operator', 'articles', 'filter[title][_contains]=null', ['_contains', 'title']],
      ['non-flag value for _null', 'articles', 'filter[rating][_null]=maybe', ['_null', 'rating']],
      ['_between with one value', 'articles', 'filter[rating][_between]=2', ['_between', 'rating']],
      ['_between with three values', 'articles', 'filter[rating][_between]=1,2,3', ['_between', 'rating']],
      ['_nbetween with one JSON value', 'articles', json({ rating: { _nbetween: [2] } }), ['_nbetween', 'rating']],
      ['integer beyond 32 bits', 'articles', 'filter[rating][_eq]=99999999999', ['rating', '99999999999']],
      ['integer one past the 32-bit range', 'samples', 'filter[count][_gt]=2147483648', ['count']],
      ['bigInteger beyond 64 bits', 'samples', 'filter[big][_eq]=9223372036854775808', ['big']],
      // Written as text: the number would already be rounded as a JS literal.
      ['JSON number past 2^53 for a bigInteger', 'samples', `filter=${encodeURIComponent('{"big":{"_eq":9007199254740993}}')}`, ['big']],
      ['invalid uuid', 'samples', 'filter[ref][_eq]=not-a-uuid', ['ref', 'not-a-uuid']],
      ['invalid uuid in _in', 'samples', 'filter[id][_in]=0b9e6f4a-1c2d-4e5f-8a9b-000000000001,abc', ['id']],
      ['impossible date', 'samples', 'filter[day][_eq]=2024-02-30', ['day']],
      ['impossible month in a dateTime', 'articles', 'filter[published_at][_gt]=2024-13-01', ['published_at']],
      ['non-date for a timestamp', 'samples', 'filter[logged_at][_lt]=yesterday', ['logged_at']],
      ['invalid time', 'samples', 'filter[alarm][_eq]=25:00', ['alarm']],
      ['invalid boolean', 'samples', 'filter[active][_eq]=yes', ['active']],
      ['unparseable $NOW', 'articles', 'filter[published_at][_gt]=%24NOW(-1%20fortnight)', ['$NOW']],
      ['$NOW for an integer', 'articles', 'filter[rating][_gt]=%24NOW', ['rating']],
    ])('%s → 400', async (_label, collection, query, mentions) => {
      await expectInvalid(collection, query, mentions)
    })

    it('rejects the hidden password_hash exactly like a field that does not exist', async () => {
      const hidden = await expectInvalid('authors', 'filter[password_hash][_eq]=x', ['password_hash'])
      const missing = await expectInvalid('authors', 'filter[no_such_field][_eq]=x', ['no_such_field'])
      expect(hidden).toBe(missing.replace('no_such_field', 'password_hash'))
      const inJson = await expectInvalid('authors', json({ _or: [{ password_hash: { _null: false } }] }), ['password_hash'])
      expect(inJson).toBe(hidden)
    })

    describe('maxInListLength', () => {
      let capped: Express
      beforeAll(() => {
        capped = createApp(ctx.knex, { maxInListLength: 3 })
      })

      it('accepts a list of exactly maxInListLength values', async () => {
        const expected = articleIds((r) => r.rating !== null && r.rating <= 3)
        expect(await list('articles', 'filter[rating][_in]=1,2,3', capped)).toEqual({ status: 200, ids: expected })
        expect(await list('articles', json({ rating: { _in: [1, 2, 3] } }), capped)).toEqual({ status: 200, ids: expected })
      })

      it.each([
        ['comma _in', 'filter[rating][_in]=1,2,3,4', ['_in', 'rating', '3']],
        ['comma _nin', 'filter[rating][_nin]=1,2,3,4', ['_nin', 'rating', '3']],
        ['JSON _in', json({ rating: { _in: [1, 2, 3, 4] } }), ['_in', 'rating', '3']],
        ['bracket-array _in', 'filter[rating][_in][]=1&filter[rating][_in][]=2&filter[rating][_in][]=3&filter[rating][_in][]=4', ['_in']],
      ])('rejects a longer %s list', async (_label, query, mentions) => {
        await expectInvalid('articles', query, mentions, capped)
      })

      it('applies the default of 1000', async () => {
        const values = Array.from({ length: 1001 }, (_, i) => i)
        await expectInvalid('articles', `filter[rating][_in]=${values.join(',')}`, ['_in', 'rating', '1000'])
        const within = await list('articles', `filter[rating][_in]=${values.slice(0, 1000).join(',')}`)
        expect(within).toEqual({ status: 200, ids: articleIds((r) => r.rating !== null && r.rating >= 0) })
      })
    })
  })

  describe('blank and space-padded strings', () => {
    // MySQL/MariaDB PAD SPACE collations compare 'x ' = 'x' and '  ' = '': the results must not depend on that.
    const BLANK = '0b9e6f4a-1c2d-4e5f-8a9b-0000000000b1'
    const PADDED = '0b9e6f4a-1c2d-4e5f-8a9b-0000000000b2'
    beforeAll(async () => {
      const response = await request(app)
        .post('/api/items/samples?fields=id')
        .send([
          { id: BLANK, label: 'blank', body: '   ' },
          { id: PADDED, label: 'pad ', body: 'pad' },
        ])
      expect(response.status).toBe(200)
    })
    afterAll(() => ctx.reset())

    it.each([
      ['body _empty leaves a spaces-only body out', 'filter[body][_empty]=true', [sample(2), sample(5), sample(6)]],
      ['body _nempty keeps a spaces-only body', 'filter[body][_nempty]=true', [sample(1), sample(3), sample(4), BLANK, PADDED]],
      ['label _eq pad does not match "pad "', 'filter[label][_eq]=pad', []],
      ['label _eq "pad " matches only itself', `filter[label][_eq]=${encodeURIComponent('pad ')}`, [PADDED]],
      ['label _in pad does not match "pad "', 'filter[label][_in]=pad,blank', [BLANK]],
      ['label _neq pad keeps "pad "', 'filter[label][_neq]=pad&filter[id][_in]=' + `${BLANK},${PADDED}`, [BLANK, PADDED]],
      ['label _nin pad keeps "pad "', 'filter[label][_nin]=pad&filter[id][_in]=' + `${BLANK},${PADDED}`, [BLANK, PADDED]],
      ['label _ends_with "d " matches "pad "', `filter[label][_ends_with]=${encodeURIComponent('d ')}`, [PADDED]],
    ])('%s', async (_label, query, expected) => {
      expect(await list('samples', query)).toEqual({ status: 200, ids: expected })
    })
  })

  describe('on one item', () => {
    const published = seed.articles.find((r) => r.status === 'published')!
    const draft = seed.articles.find((r) => r.status === 'draft')!

    it('returns the item when it matches the filter', async () => {
      const response = await request(app).get(`/api/items/articles/${published.id}?fields=id,status&filter[status][_eq]=published`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: published.id, status: 'published' } })
    })

    it('answers 404 NOT_FOUND when the item exists but does not match', async () => {
      const response = await request(app).get(`/api/items/articles/${draft.id}?fields=id&filter[status][_eq]=published`)
      expect(response.status).toBe(404)
      expect(response.body.errors).toHaveLength(1)
      expect(response.body.errors[0].extensions.code).toBe('NOT_FOUND')
    })

    it('applies JSON filters with _or to one item', async () => {
      const filter = json({ _or: [{ status: { _eq: 'archived' } }, { id: { _eq: draft.id } }] })
      const response = await request(app).get(`/api/items/articles/${draft.id}?fields=id&${filter}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: { id: draft.id } })
    })

    it('filters a uuid-keyed item', async () => {
      const hit = await request(app).get(`/api/items/samples/${sample(1)}?fields=id&filter[active][_eq]=true`)
      expect(hit.body).toEqual({ data: { id: sample(1) } })
      const miss = await request(app).get(`/api/items/samples/${sample(2)}?fields=id&filter[active][_eq]=true`)
      expect(miss.status).toBe(404)
    })

    it('rejects a bad filter on one item with 400', async () => {
      const response = await request(app).get(`/api/items/articles/${published.id}?filter[nope][_eq]=1`)
      expect(response.status).toBe(400)
      expect(response.body.errors[0].extensions.code).toBe('INVALID_QUERY')
      expect(response.body.errors[0].extensions.reason).toContain('nope')
    })
  })

  describe('meta=filter_count', () => {
    const publishedIds = articleIds((r) => r.status === 'published')

    it('counts every match while data is one page', async () => {
      const response = await request(app).get('/api/items/articles?fields=id&limit=5&filter[status][_eq]=published&meta=filter_count')
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: publishedIds.slice(0, 5).map((id) => ({ id })),
        meta: { filter_count: publishedIds.length },
      })
    })

    it('reports total_count beside filter_count with meta=*', async () => {
      const filter = { _or: [{ rating: { _null: true } }, { title: { _icontains: 'ÜBER' } }] }
      const expected = articleIds((r) => r.rating === null || fold(r.title).includes('über'))
      const response = await request(app).get(`/api/items/articles?fields=id&limit=2&offset=1&${json(filter)}&meta=*`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({
        data: expected.slice(1, 3).map((id) => ({ id })),
        meta: { total_count: seed.articles.length, filter_count: expected.length },
      })
    })

    it('counts zero for a filter that matches nothing', async () => {
      const response = await request(app).get('/api/items/articles?fields=id&filter[rating][_in]=&meta=filter_count')
      expect(response.body).toEqual({ data: [], meta: { filter_count: 0 } })
    })

    it('counts samples matched through a uuid and a decimal', async () => {
      const response = await request(app).get(
        '/api/items/samples?fields=id&filter[price][_gte]=1&filter[ref][_nnull]=true&meta=filter_count',
      )
      const expected = sampleIds((r) => r.price !== null && Number(r.price) >= 1 && r.ref !== null)
      expect(response.body).toEqual({ data: expected.map((id) => ({ id })), meta: { filter_count: expected.length } })
    })
  })
})
