// validationErrors checks a payload against an access rule's validation filter in memory, with the operators'
// SQL meaning: exact comparisons per type, null failing every ordinary comparison, one error per broken condition.
import { validationErrors } from '../../lib/access/check-validation'
import { FailedValidationError } from '../../lib/errors'
import { parseFilter } from '../../lib/query/parse-filter'
import type { FilterNode } from '../../lib/query/filter-node'
import type { Collection, Field } from '../../lib/schema/collection'
import { collection, fullSchema, PARSER_LIMITS } from '../support/schema'

const limits = { schema: fullSchema, ...PARSER_LIMITS }
const NOW = new Date('2024-06-15T12:00:00.000Z')

const samples = collection('samples')

function field(of: Collection, name: string): Field {
  const member = of.members.get(name)
  if (member?.kind !== 'field') throw new Error(`${of.name}.${name} is not a field`)
  return member
}

/** A validation rule as the router parses it: every field of the collection may be named. */
function rule(raw: Record<string, unknown>, of: Collection = samples): FilterNode {
  const node = parseFilter(raw, of, limits, NOW)
  if (node === null) throw new Error('the rule parsed to no filter')
  return node
}

/** Canonical payload values by field, as the payload validator hands them over. */
function payload(values: Record<string, unknown>, of: Collection = samples): Map<Field, unknown> {
  return new Map(Object.entries(values).map(([name, value]) => [field(of, name), value]))
}

interface Rendered {
  message: string
  status: number
  code: string
  extensions: Record<string, unknown>
}

function errorsOf(raw: Record<string, unknown>, values: Record<string, unknown>, item?: number, of: Collection = samples): Rendered[] {
  return validationErrors(rule(raw, of), payload(values, of), of, item).map((error) => {
    expect(error).toBeInstanceOf(FailedValidationError)
    return { message: error.message, status: error.status, code: error.code, extensions: error.extensions }
  })
}

/** The single failure `field` / `operator` gives, in the shape validationErrors must produce. */
function failure(name: string, operator: string, extra: Record<string, unknown> = {}): Rendered {
  return {
    message: `Field "${name}" does not satisfy the "${operator}" rule.`,
    status: 400,
    code: 'FAILED_VALIDATION',
    extensions: { field: name, type: operator, collection: 'samples', ...extra },
  }
}

type Case = [label: string, rule: Record<string, unknown>, values: Record<string, unknown>, passes: boolean]

/** Each case states whether the payload satisfies the rule; a failing one must name its field and operator. */
function checkCases(cases: Case[]): void {
  it.each(cases)('%s', (_label, raw, values, passes) => {
    const errors = errorsOf(raw, values)
    if (passes) {
      expect(errors).toEqual([])
      return
    }
    const [name] = Object.keys(values)
    const operator = Object.keys(raw[name!] as object)[0]!
    expect(errors).toEqual([failure(name!, operator)])
  })
}

describe('validationErrors: integers and floats', () => {
  checkCases([
    ['_eq equal', { count: { _eq: 42 } }, { count: 42 }, true],
    ['_eq different', { count: { _eq: 42 } }, { count: 41 }, false],
    ['_eq with the value given as text', { count: { _eq: '42' } }, { count: 42 }, true],
    ['_neq different', { count: { _neq: 42 } }, { count: 7 }, true],
    ['_neq equal', { count: { _neq: 42 } }, { count: 42 }, false],
    ['_lt below', { count: { _lt: 10 } }, { count: 9 }, true],
    ['_lt equal', { count: { _lt: 10 } }, { count: 10 }, false],
    ['_lte equal', { count: { _lte: 10 } }, { count: 10 }, true],
    ['_lte above', { count: { _lte: 10 } }, { count: 11 }, false],
    ['_gt above', { count: { _gt: -5 } }, { count: -4 }, true],
    ['_gt equal', { count: { _gt: -5 } }, { count: -5 }, false],
    ['_gte equal', { count: { _gte: 0 } }, { count: 0 }, true],
    ['_gte below', { count: { _gte: 0 } }, { count: -1 }, false],
    ['_gte at int32 max', { count: { _gte: 2147483647 } }, { count: 2147483647 }, true],
    ['_lt on a float', { ratio: { _lt: 0.5 } }, { ratio: 0.25 }, true],
    ['_gt on a float', { ratio: { _gt: 0.5 } }, { ratio: 0.25 }, false],
    ['_eq on a float', { ratio: { _eq: 3.5 } }, { ratio: 3.5 }, true],
  ])
})

describe('validationErrors: bigInteger (strings beyond 2^53)', () => {
  checkCases([
    ['_eq on the exact digits', { big: { _eq: '9007199254740993' } }, { big: '9007199254740993' }, true],
    // As doubles both are 9007199254740992: only an exact comparison tells them apart.
    ['_eq one apart beyond 2^53', { big: { _eq: '9007199254740992' } }, { big: '9007199254740993' }, false],
    ['_gt one apart beyond 2^53', { big: { _gt: '9007199254740992' } }, { big: '9007199254740993' }, true],
    ['_lt one apart beyond 2^53', { big: { _lt: '9007199254740992' } }, { big: '9007199254740993' }, false],
    ['_lte on equal digits', { big: { _lte: '9223372036854775807' } }, { big: '9223372036854775807' }, true],
    ['_lt across signs', { big: { _lt: '0' } }, { big: '-9007199254740993' }, true],
    ['_gte on negatives one apart', { big: { _gte: '-9007199254740992' } }, { big: '-9007199254740993' }, false],
    ['_gt with more digits (not text order)', { big: { _gt: '9' } }, { big: '10' }, true],
    ['_neq one apart', { big: { _neq: '9007199254740992' } }, { big: '9007199254740993' }, true],
    ['_in beyond 2^53', { big: { _in: ['1', '9007199254740993'] } }, { big: '9007199254740993' }, true],
    ['_in missing beyond 2^53', { big: { _in: ['1', '9007199254740992'] } }, { big: '9007199254740993' }, false],
  ])
})

describe('validationErrors: decimals (strings of any scale)', () => {
  checkCases([
    ['_eq with a different scale', { price: { _eq: '12.50' } }, { price: '12.5' }, true],
    ['_eq with trailing zeros against an integer', { price: { _eq: '3.00' } }, { price: '3' }, true],
    ['_eq one cent apart', { price: { _eq: '12.51' } }, { price: '12.5' }, false],
    ['_gt by one cent', { price: { _gt: '12.49' } }, { price: '12.5' }, true],
    ['_gt with more digits before the point (not text order)', { price: { _gt: '9.99' } }, { price: '10' }, true],
    ['_lt with more digits before the point (not text order)', { price: { _lt: '9.99' } }, { price: '10' }, false],
    ['_lt between small fractions', { price: { _lt: '0.5' } }, { price: '0.05' }, true],
    ['_gte on an equal value written differently', { price: { _gte: '0.050' } }, { price: '0.05' }, true],
    ['_lt on negatives', { price: { _lt: '-2.75' } }, { price: '-3' }, true],
    ['_gt on negatives', { price: { _gt: '-2.75' } }, { price: '-3' }, false],
    ['_gt of a negative fraction below zero', { price: { _gt: '-0.5' } }, { price: '-0.05' }, true],
    ['_lt across signs', { price: { _lt: '0' } }, { price: '-0.01' }, true],
    ['_lte on a large value', { price: { _lte: '99999.99' } }, { price: '99999.99' }, true],
    ['_in with other scales', { price: { _in: ['1.10', '12.500'] } }, { price: '12.5' }, true],
    ['_nin with other scales', { price: { _nin: ['1.10', '12.500'] } }, { price: '12.5' }, false],
  ])
})

describe('validationErrors: dates, date-times and timestamps', () => {
  checkCases([
    ['date _eq', { day: { _eq: '2024-02-29' } }, { day: '2024-02-29' }, true],
    ['date _lt', { day: { _lt: '2024-03-01' } }, { day: '2024-02-29' }, true],
    ['date _gt', { day: { _gt: '2024-03-01' } }, { day: '2024-02-29' }, false],
    ['date _gte across years', { day: { _gte: '2000-01-01' } }, { day: '1999-12-31' }, false],
    ['dateTime _lte to the second', { starts_at: { _lte: '2024-03-10T02:30:00' } }, { starts_at: '2024-03-10T02:30:00' }, true],
    ['dateTime _lt one second later', { starts_at: { _lt: '2024-03-10T02:30:00' } }, { starts_at: '2024-03-10T02:30:01' }, false],
    [
      'timestamp _eq given with an offset',
      { logged_at: { _eq: '2024-05-01T12:00:00+02:00' } },
      { logged_at: '2024-05-01T10:00:00.000Z' },
      true,
    ],
    [
      'timestamp _gt given with an offset',
      { logged_at: { _gt: '2024-05-01T12:00:00+02:00' } },
      { logged_at: '2024-05-01T10:00:00.001Z' },
      true,
    ],
    ['timestamp _lt by milliseconds', { logged_at: { _lt: '2024-05-01T10:00:00.000Z' } }, { logged_at: '2024-05-01T10:00:00.001Z' }, false],
    ['time _gte', { alarm: { _gte: '07:00:00' } }, { alarm: '07:30:00' }, true],
    ['time _lt', { alarm: { _lt: '07:00:00' } }, { alarm: '07:30:00' }, false],
    ['date _gt $NOW (the rule clock)', { day: { _gt: '$NOW' } }, { day: '2024-06-16' }, true],
    ['date _gt $NOW on the same day', { day: { _gt: '$NOW' } }, { day: '2024-06-15' }, false],
  ])
})

describe('validationErrors: strings, uuids and booleans with _eq/_neq/_in/_nin', () => {
  checkCases([
    ['string _eq', { label: { _eq: 'draft' } }, { label: 'draft' }, true],
    ['string _eq is case-sensitive', { label: { _eq: 'draft' } }, { label: 'Draft' }, false],
    ['string _neq', { label: { _neq: 'draft' } }, { label: 'review' }, true],
    ['string _in', { label: { _in: ['draft', 'review'] } }, { label: 'review' }, true],
    ['string _in missing', { label: { _in: ['draft', 'review'] } }, { label: 'published' }, false],
    ['string _in from comma-separated text', { label: { _in: 'draft,review' } }, { label: 'draft' }, true],
    ['string _nin', { label: { _nin: ['draft', 'review'] } }, { label: 'published' }, true],
    ['string _nin listed', { label: { _nin: ['draft', 'review'] } }, { label: 'draft' }, false],
    ['integer _in', { count: { _in: [1, 2, 3] } }, { count: 2 }, true],
    ['integer _nin', { count: { _nin: [1, 2, 3] } }, { count: 2 }, false],
    [
      'uuid _eq ignores the case of the rule',
      { ref: { _eq: '7D444840-9DC0-11D1-B245-5FFDCE74FAD2' } },
      { ref: '7d444840-9dc0-11d1-b245-5ffdce74fad2' },
      true,
    ],
    ['uuid _neq', { ref: { _neq: '7d444840-9dc0-11d1-b245-5ffdce74fad2' } }, { ref: '7d444840-9dc0-11d1-b245-5ffdce74fad2' }, false],
    ['boolean _eq true', { active: { _eq: true } }, { active: true }, true],
    ['boolean _eq true against false', { active: { _eq: true } }, { active: false }, false],
    ['boolean _neq', { active: { _neq: false } }, { active: true }, true],
  ])
})

describe('validationErrors: _null, _nnull, _empty, _nempty', () => {
  checkCases([
    ['_null on null', { label: { _null: true } }, { label: null }, true],
    ['_null on a value', { label: { _null: true } }, { label: 'x' }, false],
    ['_null on an empty string', { label: { _null: true } }, { label: '' }, false],
    ['_nnull on a value', { count: { _nnull: true } }, { count: 0 }, true],
    ['_nnull on null', { count: { _nnull: true } }, { count: null }, false],
    ['_empty on an empty string', { label: { _empty: true } }, { label: '' }, true],
    ['_empty on null', { label: { _empty: true } }, { label: null }, true],
    ['_empty on a space', { label: { _empty: true } }, { label: ' ' }, false],
    ['_nempty on text', { label: { _nempty: true } }, { label: 'x' }, true],
    ['_nempty on an empty string', { label: { _nempty: true } }, { label: '' }, false],
    ['_nempty on null', { label: { _nempty: true } }, { label: null }, false],
    ['_eq null acts as _null', { label: { _eq: null } }, { label: null }, true],
    ['_eq null on a value', { label: { _eq: null } }, { label: 'x' }, false],
    ['_neq null on a value', { label: { _neq: null } }, { label: 'x' }, true],
    ['_neq null on null', { label: { _neq: null } }, { label: null }, false],
  ])

  it('reads a false flag as the opposite operator', () => {
    expect(errorsOf({ label: { _null: false } }, { label: 'x' })).toEqual([])
    expect(errorsOf({ label: { _null: false } }, { label: null })).toEqual([failure('label', '_nnull')])
    expect(errorsOf({ label: { _empty: false } }, { label: '' })).toEqual([failure('label', '_nempty')])
  })
})

describe('validationErrors: pattern operators', () => {
  checkCases([
    ['_contains', { label: { _contains: 'ber al' } }, { label: 'Über alles' }, true],
    ['_contains is case-sensitive', { label: { _contains: 'über' } }, { label: 'Über alles' }, false],
    ['_ncontains', { label: { _ncontains: 'über' } }, { label: 'Über alles' }, true],
    ['_ncontains present', { label: { _ncontains: 'Über' } }, { label: 'Über alles' }, false],
    ['_icontains folds non-ASCII case', { label: { _icontains: 'über' } }, { label: 'Über alles' }, true],
    ['_icontains folds the payload and the term', { label: { _icontains: 'ÜBER' } }, { label: 'über den Wolken' }, true],
    ['_icontains absent', { label: { _icontains: 'uber' } }, { label: 'Über alles' }, false],
    ['_nicontains present in another case', { label: { _nicontains: 'über' } }, { label: 'Über alles' }, false],
    ['_nicontains absent', { label: { _nicontains: 'unter' } }, { label: 'Über alles' }, true],
    ['_starts_with', { label: { _starts_with: 'Über' } }, { label: 'Über alles' }, true],
    ['_starts_with is case-sensitive', { label: { _starts_with: 'über' } }, { label: 'Über alles' }, false],
    ['_nstarts_with', { label: { _nstarts_with: 'über' } }, { label: 'Über alles' }, true],
    ['_istarts_with non-ASCII', { label: { _istarts_with: 'über' } }, { label: 'Über alles' }, true],
    ['_istarts_with drops the dot of a dotted capital I', { label: { _istarts_with: 'istanbul' } }, { label: 'İstanbul doğumlu' }, true],
    ['_nistarts_with non-ASCII', { label: { _nistarts_with: 'ÜBER' } }, { label: 'über den Wolken' }, false],
    ['_ends_with', { label: { _ends_with: 'alles' } }, { label: 'Über alles' }, true],
    ['_ends_with is case-sensitive', { label: { _ends_with: 'ALLES' } }, { label: 'Über alles' }, false],
    ['_nends_with', { label: { _nends_with: 'ALLES' } }, { label: 'Über alles' }, true],
    ['_iends_with non-ASCII', { label: { _iends_with: 'STRASSE' } }, { label: 'Die Strasse' }, true],
    ['_iends_with does not equate ß and ss', { label: { _iends_with: 'STRASSE' } }, { label: 'Die Straße' }, false],
    ['_niends_with', { label: { _niends_with: 'ALLES' } }, { label: 'Über alles' }, false],
    ['_contains treats % and _ literally', { label: { _contains: '0%' } }, { label: '100% organic' }, true],
    ['_contains does not read _ as a wildcard', { label: { _contains: 'snake_case' } }, { label: 'snake-case vs kebab' }, false],
    ['_contains on text', { body: { _contains: 'two' } }, { body: 'Line one\nLine two' }, true],
  ])
})

describe('validationErrors: _between and _nbetween', () => {
  checkCases([
    ['integer inside', { count: { _between: [1, 10] } }, { count: 5 }, true],
    ['integer at the lower bound', { count: { _between: [1, 10] } }, { count: 1 }, true],
    ['integer at the upper bound', { count: { _between: [1, 10] } }, { count: 10 }, true],
    ['integer above', { count: { _between: [1, 10] } }, { count: 11 }, false],
    ['integer _nbetween outside', { count: { _nbetween: [1, 10] } }, { count: 0 }, true],
    ['integer _nbetween at a bound', { count: { _nbetween: [1, 10] } }, { count: 10 }, false],
    ['decimal inside with other scales', { price: { _between: ['0.1', '12.50'] } }, { price: '12.5' }, true],
    ['decimal just above', { price: { _between: ['0.1', '12.50'] } }, { price: '12.51' }, false],
    ['bigInteger beyond 2^53', { big: { _between: ['9007199254740993', '9007199254740995'] } }, { big: '9007199254740992' }, false],
    ['date inside', { day: { _between: ['2024-01-01', '2024-12-31'] } }, { day: '2024-02-29' }, true],
    ['date _nbetween inside', { day: { _nbetween: ['2024-01-01', '2024-12-31'] } }, { day: '2024-02-29' }, false],
    [
      'timestamp inside, bounds with offsets',
      { logged_at: { _between: ['2024-05-01T11:00:00+02:00', '2024-05-01T13:00:00+02:00'] } },
      { logged_at: '2024-05-01T10:00:00.000Z' },
      true,
    ],
    ['from comma-separated text', { count: { _between: '1,10' } }, { count: 3 }, true],
  ])
})

describe('validationErrors: null payload values fail ordinary comparisons', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['_lt', { count: { _lt: 10 } }, 'count', '_lt'],
    ['_lte', { count: { _lte: 10 } }, 'count', '_lte'],
    ['_gt', { count: { _gt: 10 } }, 'count', '_gt'],
    ['_gte', { count: { _gte: 10 } }, 'count', '_gte'],
    ['_eq', { count: { _eq: 10 } }, 'count', '_eq'],
    ['_neq', { count: { _neq: 10 } }, 'count', '_neq'],
    ['_in', { count: { _in: [1, 2] } }, 'count', '_in'],
    ['_nin', { count: { _nin: [1, 2] } }, 'count', '_nin'],
    ['_between', { count: { _between: [1, 2] } }, 'count', '_between'],
    ['_nbetween', { count: { _nbetween: [1, 2] } }, 'count', '_nbetween'],
    ['_contains', { label: { _contains: 'a' } }, 'label', '_contains'],
    ['_ncontains', { label: { _ncontains: 'a' } }, 'label', '_ncontains'],
    ['_icontains', { label: { _icontains: 'a' } }, 'label', '_icontains'],
    ['_nicontains', { label: { _nicontains: 'a' } }, 'label', '_nicontains'],
    ['_starts_with', { label: { _starts_with: 'a' } }, 'label', '_starts_with'],
    ['_nstarts_with', { label: { _nstarts_with: 'a' } }, 'label', '_nstarts_with'],
    ['_iends_with', { label: { _iends_with: 'a' } }, 'label', '_iends_with'],
    ['_niends_with', { label: { _niends_with: 'a' } }, 'label', '_niends_with'],
    ['_lt on a bigInteger', { big: { _lt: '1' } }, 'big', '_lt'],
    ['_gt on a decimal', { price: { _gt: '-1' } }, 'price', '_gt'],
    ['_lte on a timestamp', { logged_at: { _lte: '2030-01-01T00:00:00Z' } }, 'logged_at', '_lte'],
  ])('%s fails on null', (_label, raw, name, operator) => {
    expect(errorsOf(raw, { [name]: null })).toEqual([failure(name, operator)])
  })
})

describe('validationErrors: fields the payload does not hold', () => {
  it('skips conditions on absent fields', () => {
    expect(errorsOf({ count: { _gt: 100 }, label: { _eq: 'x' } }, { price: '1' })).toEqual([])
    expect(errorsOf({ count: { _nnull: true } }, {})).toEqual([])
  })

  it('checks the fields present and skips the others', () => {
    expect(errorsOf({ count: { _gt: 100 }, label: { _eq: 'x' } }, { label: 'y' })).toEqual([failure('label', '_eq')])
  })

  it('lets an _or pass when an alternative names only absent fields', () => {
    expect(errorsOf({ _or: [{ count: { _gt: 100 } }, { label: { _eq: 'x' } }] }, { label: 'y' })).toEqual([])
  })
})

describe('validationErrors: _and and _or', () => {
  it('collects one error per failing condition of an _and, in rule order', () => {
    const raw = { _and: [{ count: { _gte: 1 } }, { count: { _lte: 10 } }, { label: { _nempty: true } }, { price: { _lt: '5' } }] }
    expect(errorsOf(raw, { count: 11, label: '', price: '4.99' })).toEqual([failure('count', '_lte'), failure('label', '_nempty')])
  })

  it('treats several conditions of one object as an _and', () => {
    const raw = { count: { _gte: 1, _lte: 10 }, label: { _in: ['a', 'b'] } }
    expect(errorsOf(raw, { count: 0, label: 'c' })).toEqual([failure('count', '_gte'), failure('label', '_in')])
    expect(errorsOf(raw, { count: 11, label: 'a' })).toEqual([failure('count', '_lte')])
    expect(errorsOf(raw, { count: 10, label: 'b' })).toEqual([])
  })

  it('gives an _or that no alternative satisfies one error named after its first field', () => {
    const raw = { _or: [{ count: { _eq: 1 } }, { label: { _eq: 'special' } }, { price: { _gt: '100' } }] }
    expect(errorsOf(raw, { count: 2, label: 'plain', price: '99.99' })).toEqual([
      {
        message: 'Field "count" matches none of the allowed alternatives.',
        status: 400,
        code: 'FAILED_VALIDATION',
        extensions: { field: 'count', type: '_or', collection: 'samples' },
      },
    ])
  })

  it('accepts an _or when any one alternative holds', () => {
    const raw = { _or: [{ count: { _eq: 1 } }, { label: { _eq: 'special' } }] }
    expect(errorsOf(raw, { count: 2, label: 'special' })).toEqual([])
    expect(errorsOf(raw, { count: 1, label: 'plain' })).toEqual([])
  })

  it('treats an alternative with several conditions as all of them', () => {
    const raw = { _or: [{ count: { _gte: 1, _lte: 5 } }, { label: { _eq: 'any' } }] }
    expect(errorsOf(raw, { count: 3, label: 'x' })).toEqual([])
    expect(errorsOf(raw, { count: 6, label: 'x' })).toHaveLength(1)
  })

  it('reports a failing _or beside the failing conditions around it', () => {
    const raw = {
      _and: [
        { active: { _eq: true } },
        { _or: [{ label: { _starts_with: 'A' } }, { label: { _starts_with: 'B' } }] },
        { count: { _gt: 0 } },
      ],
    }
    expect(errorsOf(raw, { active: false, label: 'Cat', count: 0 })).toEqual([
      failure('active', '_eq'),
      {
        message: 'Field "label" matches none of the allowed alternatives.',
        status: 400,
        code: 'FAILED_VALIDATION',
        extensions: { field: 'label', type: '_or', collection: 'samples' },
      },
      failure('count', '_gt'),
    ])
  })

  it('checks an _or nested in an _or alternative', () => {
    const raw = { _or: [{ _or: [{ count: { _eq: 1 } }, { count: { _eq: 2 } }] }, { label: { _eq: 'x' } }] }
    expect(errorsOf(raw, { count: 2, label: 'y' })).toEqual([])
    expect(errorsOf(raw, { count: 3, label: 'y' })).toEqual([
      {
        message: 'Field "count" matches none of the allowed alternatives.',
        status: 400,
        code: 'FAILED_VALIDATION',
        extensions: { field: 'count', type: '_or', collection: 'samples' },
      },
    ])
  })
})

describe('validationErrors: extensions', () => {
  it('names field, operator and collection, and the item index when given', () => {
    expect(errorsOf({ count: { _lt: 5 } }, { count: 5 }, 3)).toEqual([failure('count', '_lt', { item: 3 })])
    expect(errorsOf({ count: { _lt: 5 } }, { count: 5 }, 0)).toEqual([failure('count', '_lt', { item: 0 })])
    expect(errorsOf({ _or: [{ count: { _lt: 5 } }, { count: { _gt: 9 } }], label: { _eq: 'x' } }, { count: 5, label: 'y' }, 2)).toEqual([
      {
        message: 'Field "count" matches none of the allowed alternatives.',
        status: 400,
        code: 'FAILED_VALIDATION',
        extensions: { field: 'count', type: '_or', collection: 'samples', item: 2 },
      },
      failure('label', '_eq', { item: 2 }),
    ])
  })

  it('leaves the item out when none is given', () => {
    const [error] = errorsOf({ count: { _lt: 5 } }, { count: 5 })
    expect(Object.keys(error!.extensions).sort()).toEqual(['collection', 'field', 'type'])
  })

  it('names the collection the payload belongs to', () => {
    const articles = collection('articles')
    expect(errorsOf({ status: { _in: ['draft', 'review'] } }, { status: 'published' }, undefined, articles)).toEqual([
      {
        message: 'Field "status" does not satisfy the "_in" rule.',
        status: 400,
        code: 'FAILED_VALIDATION',
        extensions: { field: 'status', type: '_in', collection: 'articles' },
      },
    ])
  })
})
