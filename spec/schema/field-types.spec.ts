// Every field type turns text, JSON and database values (as the dialects hand them over) into one canonical form,
// whatever the host zone. The drivers' own value forms are in spec/dialects/read-value.spec.ts.
import fc from 'fast-check'
import { FIELD_TYPES, formatDecimal, plainNumberText, type TypedField } from '../../lib/schema/field-types'
import { localDateTime, parseDate, parseDateTime, parseTime, parseTimestamp, resolveNow } from '../../lib/schema/temporal'
import type { FieldType } from '../../lib/types'

const plain = (type: FieldType, extra: Partial<TypedField> = {}): TypedField => ({ type, ...extra })

describe('the host zone', () => {
  it('is not UTC, so local-versus-UTC mistakes show up', () => {
    // jest.config.js sets Asia/Kolkata (+05:30).
    expect(new Date(Date.UTC(2024, 0, 1)).getTimezoneOffset()).toBe(-330)
  })
})

describe('parseDate', () => {
  it.each<[string, string | null]>([
    ['2024-05-01', '2024-05-01'],
    ['2024-02-29', '2024-02-29'],
    ['2000-02-29', '2000-02-29'],
    [' 2024-05-01 ', '2024-05-01'],
    ['2024-05-01T10:20:30', '2024-05-01'],
    ['2024-05-01 10:20', '2024-05-01'],
    ['2023-02-29', null],
    ['1900-02-29', null],
    ['2024-04-31', null],
    ['2024-13-01', null],
    ['2024-00-10', null],
    ['2024-05-00', null],
    ['2024-5-1', null],
    ['24-05-01', null],
    ['2024-05-01T24:00:00', null],
    ['2024-05-01Z', null],
    ['2024-05-01T10:00:00+02:00', null],
    ['2024/05/01', null],
    ['', null],
    ['today', null],
  ])('%p → %p', (text, expected) => {
    expect(parseDate(text)).toBe(expected)
  })
})

describe('parseDateTime', () => {
  it.each<[string, string | null]>([
    ['2024-05-01T10:20:30', '2024-05-01T10:20:30'],
    ['2024-05-01 10:20:30', '2024-05-01T10:20:30'],
    ['2024-05-01t10:20:30', '2024-05-01T10:20:30'],
    ['2024-05-01', '2024-05-01T00:00:00'],
    ['2024-05-01T10:20', '2024-05-01T10:20:00'],
    ['2024-05-01T10:20:30.999', '2024-05-01T10:20:30'],
    ['2024-05-01T10:20:30.123456789', '2024-05-01T10:20:30'],
    ['2024-05-01T23:59:59', '2024-05-01T23:59:59'],
    ['2024-05-01T00:00:00', '2024-05-01T00:00:00'],
    ['2024-05-01T24:00:00', null],
    ['2024-05-01T24:00', null],
    ['2024-05-01T23:60:00', null],
    ['2024-05-01T23:59:60', null],
    ['2023-02-29T12:00:00', null],
    ['2024-05-01T10:00:00Z', null],
    ['2024-05-01T10:00:00+05:30', null],
    ['2024-05-01T10', null],
    ['2024-05-01T1:00', null],
    ['0000-01-01 00:00:00', null],
    ['0004-02-29 00:00:00', '0004-02-29T00:00:00'],
    ['2100-02-29 00:00:00', null],
    ['2024-05-01X10:20:30', null],
    ['2024-05-01 10:2a:30', null],
    ['', null],
  ])('%p → %p', (text, expected) => {
    expect(parseDateTime(text)).toBe(expected)
  })

  it('reads the plain forms databases answer exactly as the full parser reads them', () => {
    // A leading space makes the text longer than the plain form, so the full parser (which trims) reads it.
    // Numbers around each field's valid range, now and then a character that is no digit.
    const field = (max: number, width: number): fc.Arbitrary<string> =>
      fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: 0, max }).map((n) => String(n).padStart(width, '0')) },
        fc.array(fc.constantFrom(...'0123456789x +'), { minLength: width, maxLength: width }).map((chars) => chars.join('')),
      )
    const near = (char: string): fc.Arbitrary<string> =>
      fc.oneof({ weight: 8, arbitrary: fc.constant(char) }, fc.constantFrom('-', ':', 'T', 't', ' ', '0', 'x'))
    const wallClock = fc
      .tuple(
        field(9999, 4),
        near('-'),
        field(13, 2),
        near('-'),
        field(32, 2),
        near('T'),
        field(24, 2),
        near(':'),
        field(60, 2),
        near(':'),
        field(60, 2),
      )
      .map((parts) => parts.join(''))
    fc.assert(
      fc.property(wallClock, (text) => {
        expect(parseDateTime(text)).toBe(parseDateTime(` ${text}`))
      }),
      { numRuns: 5000 },
    )
  })
})

describe('parseTimestamp', () => {
  it.each<[string, string | null]>([
    ['2024-05-01T10:00:00Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T15:30:00+05:30', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01 15:30:00+05:30', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T15:30:00+0530', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T15:00:00+05', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T05:00:00-05:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01 10:00:00+00', '2024-05-01T10:00:00.000Z'],
    ['2024-01-01T01:00:00+02:00', '2023-12-31T23:00:00.000Z'],
    ['2023-12-31T23:00:00-01:00', '2024-01-01T00:00:00.000Z'],
    ['2024-05-01T10:00:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01 10:00:00', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01', '2024-05-01T00:00:00.000Z'],
    ['2024-05-01T10:00:00.5Z', '2024-05-01T10:00:00.500Z'],
    ['2024-12-31 23:30:00.123+00', '2024-12-31T23:30:00.123Z'],
    ['2024-05-01T10:00:00.123456789Z', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01T10:00:00.9999Z', '2024-05-01T10:00:00.999Z'],
    ['1970-01-01T05:30:00+05:30', '1970-01-01T00:00:00.000Z'],
    ['0099-01-01T00:00:00Z', '0099-01-01T00:00:00.000Z'],
    ['2023-02-29T00:00:00Z', null],
    ['2024-05-01T24:00:00Z', null],
    ['2024-05-01T10:00:00+24:00', null],
    ['2024-05-01T10:00:00+05:60', null],
    ['2024-05-01T10:00:00 UTC', null],
    ['1714557600000', null],
    ['', null],
  ])('%p → %p', (text, expected) => {
    expect(parseTimestamp(text)).toBe(expected)
  })

  it('keeps every millisecond digit exactly', () => {
    const wrong = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')).filter(
      (ms) => parseTimestamp(`2024-05-01T10:00:00.${ms}Z`) !== `2024-05-01T10:00:00.${ms}Z`,
    )
    expect(wrong).toEqual([])
  })
})

describe('parseTime', () => {
  it.each<[string, string | null]>([
    ['07:30:00', '07:30:00'],
    ['07:30', '07:30:00'],
    ['00:00:00', '00:00:00'],
    ['23:59:59', '23:59:59'],
    ['07:30:00.123', '07:30:00'],
    ['07:30:00.000000', '07:30:00'],
    [' 07:30 ', '07:30:00'],
    ['24:00:00', null],
    ['24:00', null],
    ['23:60', null],
    ['23:59:60', null],
    ['7:30', null],
    ['07:30:00Z', null],
    ['07:30:00+01:00', null],
    ['T07:30', null],
    ['2024-05-01T07:30:00', null],
    ['', null],
  ])('%p → %p', (text, expected) => {
    expect(parseTime(text)).toBe(expected)
  })
})

describe('localDateTime', () => {
  it.each<[string, Date, string]>([
    ['an afternoon', new Date(2024, 4, 1, 15, 30, 0), '2024-05-01T15:30:00'],
    ['local midnight (the previous UTC day here)', new Date(1999, 11, 31), '1999-12-31T00:00:00'],
    ['milliseconds dropped', new Date(2024, 11, 31, 23, 59, 59, 999), '2024-12-31T23:59:59'],
  ])('reads the local fields of %s', (_label, date, expected) => {
    expect(localDateTime(date)).toBe(expected)
  })
})

describe('resolveNow', () => {
  const now = new Date('2024-01-31T12:00:00.000Z')

  it.each<[string, string | null]>([
    ['$NOW', '2024-01-31T12:00:00.000Z'],
    ['$now', '2024-01-31T12:00:00.000Z'],
    [' $NOW ', '2024-01-31T12:00:00.000Z'],
    ['$NOW(-1 day)', '2024-01-30T12:00:00.000Z'],
    ['$NOW(+1 days)', '2024-02-01T12:00:00.000Z'],
    ['$NOW(1 day)', '2024-02-01T12:00:00.000Z'],
    ['$NOW( -1 day )', '2024-01-30T12:00:00.000Z'],
    ['$NOW(-1 DAY)', '2024-01-30T12:00:00.000Z'],
    ['$NOW(2 hours)', '2024-01-31T14:00:00.000Z'],
    ['$NOW(-30 minutes)', '2024-01-31T11:30:00.000Z'],
    ['$NOW(-1 second)', '2024-01-31T11:59:59.000Z'],
    ['$NOW(500 milliseconds)', '2024-01-31T12:00:00.500Z'],
    ['$NOW(1 week)', '2024-02-07T12:00:00.000Z'],
    ['$NOW(-2 weeks)', '2024-01-17T12:00:00.000Z'],
    // Months move the calendar like Date does: 31 Feb 2024 is 2 March.
    ['$NOW(1 month)', '2024-03-02T12:00:00.000Z'],
    ['$NOW(-1 month)', '2023-12-31T12:00:00.000Z'],
    ['$NOW(-1 year)', '2023-01-31T12:00:00.000Z'],
    ['$NOW(0 days)', '2024-01-31T12:00:00.000Z'],
    ['NOW', null],
    ['$NOW()', null],
    ['$NOW-1', null],
    ['$NOW(1.5 days)', null],
    ['$NOW(1 fortnight)', null],
    ['$NOW(day)', null],
    ['$NOW(-1 day', null],
    ['$NOWS', null],
    ['2024-01-31', null],
  ])('%p → %p', (text, expected) => {
    expect(resolveNow(text, now)).toBe(expected)
  })

  it('moves a leap day by a year onto 1 March', () => {
    expect(resolveNow('$NOW(1 year)', new Date('2024-02-29T08:00:00.000Z'))).toBe('2025-03-01T08:00:00.000Z')
  })

  it('leaves the given clock reading untouched', () => {
    const clock = new Date('2024-01-31T12:00:00.000Z')
    resolveNow('$NOW(-3 months)', clock)
    expect(clock.toISOString()).toBe('2024-01-31T12:00:00.000Z')
  })
})

describe('formatDecimal', () => {
  it.each<[string, number | undefined, string]>([
    ['12.5', 2, '12.50'],
    ['12', 2, '12.00'],
    ['12.500', 2, '12.50'],
    ['12.50', undefined, '12.5'],
    ['12.5000', undefined, '12.5'],
    ['100', undefined, '100'],
    ['100.000', undefined, '100'],
    ['1.', undefined, '1'],
    ['.5', undefined, '0.5'],
    ['007.50', undefined, '7.5'],
    ['+1.10', 2, '1.10'],
    ['-3', 2, '-3.00'],
    ['-3.00', undefined, '-3'],
    ['-0.00', undefined, '0'],
    ['-0.00', 2, '0.00'],
    ['-0', undefined, '0'],
    ['0', 0, '0'],
    ['12.00', 0, '12'],
    ['0.05', 2, '0.05'],
    ['99999.99', 2, '99999.99'],
    ['-0.5', undefined, '-0.5'],
    ['123456789012345678901234567890.123456789', undefined, '123456789012345678901234567890.123456789'],
    // More digits than the scale are never rounded away here (the database owns rounding).
    ['12.345', 2, '12.345'],
    ['12.3400', 2, '12.34'],
    // Text already canonical up to its scale, and its near misses.
    ['0.5', 2, '0.50'],
    ['7', 0, '7'],
    ['-7', 0, '-7'],
    ['-0.5', 2, '-0.50'],
    ['-0', 2, '0.00'],
    ['00.5', 2, '0.50'],
    ['1.', 2, '1.00'],
    ['.5', 2, '0.50'],
    ['-.5', 2, '-0.50'],
    ['-', 2, '0.00'],
    ['', 2, '0.00'],
  ])('formatDecimal(%p, %p) = %p', (text, scale, expected) => {
    expect(formatDecimal(text, scale)).toBe(expected)
  })

  /** The rules formatDecimal implements, step by step, without its shortcut for text already canonical. */
  function byTheRules(text: string, scale: number): string {
    const negative = text.startsWith('-')
    const [whole = '', fraction = ''] = text.replace(/^[+-]/, '').split('.')
    const integerPart = whole.replace(/^0+(?=\d)/, '') || '0'
    let fractionPart = fraction.padEnd(scale, '0')
    if (fractionPart.length > scale && /^0+$/.test(fractionPart.slice(scale))) fractionPart = fractionPart.slice(0, scale)
    const body = fractionPart ? `${integerPart}.${fractionPart}` : integerPart
    return negative && /[1-9]/.test(body) ? `-${body}` : body
  }

  it('answers as its rules do for random decimal text', () => {
    const pick = (text: string): string => text[Math.floor(Math.random() * text.length)]!
    for (let run = 0; run < 20_000; run++) {
      let text = Math.random() < 0.3 ? '-' : Math.random() < 0.05 ? '+' : ''
      const whole = Math.floor(Math.random() * 4)
      for (let digit = 0; digit < whole; digit++) text += pick('0012345678')
      if (Math.random() < 0.6) text += '.'
      const fraction = Math.floor(Math.random() * 5)
      for (let digit = 0; digit < fraction; digit++) text += pick('00123456789')
      const scale = Math.floor(Math.random() * 4)
      expect([text, scale, formatDecimal(text, scale)]).toEqual([text, scale, byTheRules(text, scale)])
    }
  })
})

describe('plainNumberText', () => {
  it.each<[number, string]>([
    [0.01, '0.01'],
    [-0.5, '-0.5'],
    [-0, '0'],
    [12, '12'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e-7, '0.0000001'],
    [1.5e-7, '0.00000015'],
    [1e21, '1000000000000000000000'],
    [123456789.123456, '123456789.123456'],
    [9007199254740.99, '9007199254740.99'],
  ])('plainNumberText(%p) = %p', (value, expected) => {
    expect(plainNumberText(value)).toBe(expected)
  })

  it('writes what String() writes for doubles of up to 15 significant digits', () => {
    for (let run = 0; run < 50_000; run++) {
      const magnitude = 10 ** Math.floor(Math.random() * 18 - 6)
      const value = Number(((Math.random() - 0.5) * magnitude).toPrecision(1 + Math.floor(Math.random() * 15)))
      if (/e/.test(String(value))) continue
      expect([value, plainNumberText(value)]).toEqual([value, String(value)])
    }
  })
})

describe('FIELD_TYPES.integer', () => {
  const { integer } = FIELD_TYPES

  it.each<[string, number | undefined]>([
    ['0', 0],
    ['42', 42],
    ['-7', -7],
    ['+5', 5],
    ['007', 7],
    ['2147483647', 2147483647],
    ['-2147483648', -2147483648],
    ['2147483648', undefined],
    ['-2147483649', undefined],
    ['99999999999999999999', undefined],
    ['2.5', undefined],
    ['2.0', undefined],
    ['1e3', undefined],
    ['0x10', undefined],
    [' 5', undefined],
    ['', undefined],
    ['abc', undefined],
  ])('fromText(%p) = %p', (text, expected) => {
    expect(integer.fromText(text)).toBe(expected)
  })

  it.each<[unknown, number | undefined]>([
    [5, 5],
    [-5, -5],
    [2147483647, 2147483647],
    [-2147483648, -2147483648],
    [2147483648, undefined],
    [-2147483649, undefined],
    [2.5, undefined],
    ['12', 12],
    ['1.5', undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [true, undefined],
    [null, undefined],
    [[1], undefined],
  ])('fromJson(%p) = %p', (value, expected) => {
    expect(integer.fromJson(value)).toBe(expected)
  })

  it.each<[unknown, number]>([
    [42, 42],
    ['42', 42],
    [-2147483648, -2147483648],
    [BigInt(7), 7],
  ])('fromDatabase(%p) = %p', (raw, expected) => {
    expect(integer.fromDatabase(raw, plain('integer'))).toBe(expected)
  })
})

describe('FIELD_TYPES.bigInteger', () => {
  const { bigInteger } = FIELD_TYPES

  it.each<[string, string | undefined]>([
    ['0', '0'],
    ['-0', '0'],
    ['+42', '42'],
    ['0042', '42'],
    ['9007199254740993', '9007199254740993'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775808', undefined],
    ['-9223372036854775809', undefined],
    ['1.5', undefined],
    ['1e3', undefined],
    ['', undefined],
    ['abc', undefined],
  ])('fromText(%p) = %p', (text, expected) => {
    expect(bigInteger.fromText(text)).toBe(expected)
  })

  it.each<[unknown, string | undefined]>([
    [42, '42'],
    [-42, '-42'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    [Number.MIN_SAFE_INTEGER, '-9007199254740991'],
    // Past 2^53 a JSON number has already lost digits: only a string keeps them.
    [2 ** 53, undefined],
    [1.5, undefined],
    ['9007199254740993', '9007199254740993'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['9223372036854775808', undefined],
    [true, undefined],
    [null, undefined],
  ])('fromJson(%p) = %p', (value, expected) => {
    expect(bigInteger.fromJson(value)).toBe(expected)
  })

  it.each<[unknown, string]>([
    ['9007199254740993', '9007199254740993'],
    ['-9223372036854775808', '-9223372036854775808'],
    [BigInt('9223372036854775807'), '9223372036854775807'],
  ])('fromDatabase(%p) = %p', (raw, expected) => {
    expect(bigInteger.fromDatabase(raw, plain('bigInteger'))).toBe(expected)
  })
})

describe('FIELD_TYPES.float', () => {
  const { float } = FIELD_TYPES

  it.each<[string, number | undefined]>([
    ['0.5', 0.5],
    ['-1.25', -1.25],
    ['3', 3],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
    ['1.5E-2', 0.015],
    [' 2.5 ', 2.5],
    ['Infinity', undefined],
    ['NaN', undefined],
    ['0x10', undefined],
    ['1,5', undefined],
    ['', undefined],
    ['abc', undefined],
  ])('fromText(%p) = %p', (text, expected) => {
    expect(float.fromText(text)).toBe(expected)
  })

  it.each<[unknown, number | undefined]>([
    [0.5, 0.5],
    [3.141592653589793, 3.141592653589793],
    ['2.5', 2.5],
    [Number.POSITIVE_INFINITY, undefined],
    [Number.NaN, undefined],
    [true, undefined],
    [null, undefined],
  ])('fromJson(%p) = %p', (value, expected) => {
    expect(float.fromJson(value)).toBe(expected)
  })

  it.each<[unknown, number]>([
    [0.1, 0.1],
    ['0.1', 0.1],
    ['-1.25', -1.25],
    [3.141592653589793, 3.141592653589793],
  ])('fromDatabase(%p) = %p', (raw, expected) => {
    expect(float.fromDatabase(raw, plain('float'))).toBe(expected)
  })
})

describe('FIELD_TYPES.decimal', () => {
  const { decimal } = FIELD_TYPES

  it.each<[string, string | undefined]>([
    ['12.50', '12.5'],
    ['+012.300', '12.3'],
    ['-0.00', '0'],
    ['.5', '0.5'],
    ['5.', '5'],
    ['100', '100'],
    ['-3.00', '-3'],
    ['1e3', undefined],
    [' 1', undefined],
    ['1.2.3', undefined],
    ['', undefined],
    ['abc', undefined],
  ])('fromText(%p) = %p', (text, expected) => {
    expect(decimal.fromText(text)).toBe(expected)
  })

  it.each<[unknown, string | undefined]>([
    [12.5, '12.5'],
    [12, '12'],
    [-3, '-3'],
    [0.1, '0.1'],
    [0.05, '0.05'],
    [99999.99, '99999.99'],
    [1e-7, '0.0000001'],
    [1e21, '1000000000000000000000'],
    ['12.50', '12.5'],
    ['0.10', '0.1'],
    [Number.POSITIVE_INFINITY, undefined],
    [Number.NaN, undefined],
    ['1e3', undefined],
    [true, undefined],
    [null, undefined],
  ])('fromJson(%p) = %p', (value, expected) => {
    expect(decimal.fromJson(value)).toBe(expected)
  })

  it.each<[unknown, number | undefined, string]>([
    ['12.50', 2, '12.50'],
    ['-3.00', 2, '-3.00'],
    ['0.05', 2, '0.05'],
    ['99999.99', 2, '99999.99'],
    ['1.000000', undefined, '1'],
    ['12.5000', 2, '12.50'],
  ])('fromDatabase(%p, scale %p) = %p', (raw, scale, expected) => {
    expect(decimal.fromDatabase(raw, plain('decimal', { scale }))).toBe(expected)
  })
})

describe('FIELD_TYPES.boolean', () => {
  const { boolean } = FIELD_TYPES

  it.each<[string, boolean | undefined]>([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['False', false],
    ['0', false],
    ['yes', undefined],
    ['t', undefined],
    ['2', undefined],
    ['', undefined],
  ])('fromText(%p) = %p', (text, expected) => {
    expect(boolean.fromText(text)).toBe(expected)
  })

  it.each<[unknown, boolean | undefined]>([
    [true, true],
    [false, false],
    ['true', true],
    ['0', false],
    // A JSON number is not a boolean (the payload schema says type boolean too).
    [1, undefined],
    [null, undefined],
  ])('fromJson(%p) = %p', (value, expected) => {
    expect(boolean.fromJson(value)).toBe(expected)
  })

  it.each<[unknown, boolean]>([
    [true, true],
    [false, false],
    [1, true],
    [0, false],
    ['1', true],
    ['0', false],
    ['true', true],
    ['TRUE', true],
    ['false', false],
  ])('fromDatabase(%p) = %p', (raw, expected) => {
    expect(boolean.fromDatabase(raw, plain('boolean'))).toBe(expected)
  })
})

describe('FIELD_TYPES temporal types', () => {
  it.each<[FieldType, string, string | undefined]>([
    ['date', '2024-02-29', '2024-02-29'],
    ['date', '2023-02-29', undefined],
    ['date', '2024-05-01T10:00:00', '2024-05-01'],
    ['dateTime', '2024-05-01 10:20:30', '2024-05-01T10:20:30'],
    ['dateTime', '2024-05-01T24:00:00', undefined],
    ['dateTime', '2024-05-01T10:00:00Z', undefined],
    ['timestamp', '2024-05-01T15:30:00+05:30', '2024-05-01T10:00:00.000Z'],
    ['timestamp', '2024-05-01T10:00:00', '2024-05-01T10:00:00.000Z'],
    ['timestamp', 'yesterday', undefined],
    ['time', '07:30', '07:30:00'],
    ['time', '24:00', undefined],
  ])('%s.fromText(%p) = %p', (type, text, expected) => {
    expect(FIELD_TYPES[type].fromText(text)).toBe(expected)
    expect(FIELD_TYPES[type].fromJson(text)).toBe(expected)
  })

  it.each<[FieldType, unknown]>([
    ['date', 20240229],
    ['dateTime', null],
    ['timestamp', 1714557600000],
    ['time', 730],
  ])('%s.fromJson(%p) is not a value', (type, value) => {
    expect(FIELD_TYPES[type].fromJson(value)).toBeUndefined()
  })

  it.each<[FieldType, unknown, string]>([
    ['date', '2024-02-29', '2024-02-29'],
    ['date', '2024-02-29 00:00:00', '2024-02-29'],
    ['dateTime', '2024-12-31 23:59:59', '2024-12-31T23:59:59'],
    ['dateTime', '2024-12-31T23:59:59', '2024-12-31T23:59:59'],
    ['dateTime', '2024-12-31 23:59:59.000000', '2024-12-31T23:59:59'],
    ['timestamp', '2024-05-01 15:30:00+05:30', '2024-05-01T10:00:00.000Z'],
    ['timestamp', '2024-12-31 23:30:00.123+00', '2024-12-31T23:30:00.123Z'],
    ['timestamp', '2024-05-01T10:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    // MySQL stores the UTC wall clock without a zone.
    ['timestamp', '2025-06-15 06:30:00.500', '2025-06-15T06:30:00.500Z'],
    ['timestamp', '1970-01-01 00:00:00', '1970-01-01T00:00:00.000Z'],
    ['time', '07:30:00', '07:30:00'],
    ['time', '23:59:59.000000', '23:59:59'],
  ])('%s.fromDatabase(%p) = %p', (type, raw, expected) => {
    expect(FIELD_TYPES[type].fromDatabase(raw, plain(type))).toBe(expected)
  })
})

describe('FIELD_TYPES string, uuid and json', () => {
  it.each<[unknown, string | undefined]>([
    ['Über', 'Über'],
    ['', ''],
    [42, '42'],
    [true, undefined],
    [null, undefined],
    [{}, undefined],
  ])('string.fromJson(%p) = %p', (value, expected) => {
    expect(FIELD_TYPES.string.fromJson(value)).toBe(expected)
  })

  it.each<[unknown, string]>([
    ['Straße', 'Straße'],
    [42, '42'],
  ])('text.fromDatabase(%p) = %p', (raw, expected) => {
    expect(FIELD_TYPES.text.fromDatabase(raw, plain('text'))).toBe(expected)
  })

  it.each<[string, string | undefined]>([
    ['0b9e6f4a-1c2d-4e5f-8a9b-000000000001', '0b9e6f4a-1c2d-4e5f-8a9b-000000000001'],
    ['0B9E6F4A-1C2D-4E5F-8A9B-00000000000A', '0b9e6f4a-1c2d-4e5f-8a9b-00000000000a'],
    ['0b9e6f4a1c2d4e5f8a9b000000000001', undefined],
    ['{0b9e6f4a-1c2d-4e5f-8a9b-000000000001}', undefined],
    ['0b9e6f4a-1c2d-4e5f-8a9b-00000000000g', undefined],
    ['', undefined],
  ])('uuid.fromText(%p) = %p', (text, expected) => {
    expect(FIELD_TYPES.uuid.fromText(text)).toBe(expected)
    expect(FIELD_TYPES.uuid.fromJson(text)).toBe(expected)
  })

  it('uuid.fromDatabase lower-cases', () => {
    expect(FIELD_TYPES.uuid.fromDatabase('6BA7B810-9DAD-11D1-80B4-00C04FD430C8', plain('uuid'))).toBe(
      '6ba7b810-9dad-11d1-80b4-00c04fd430c8',
    )
  })

  it.each<[string, unknown, unknown]>([
    ['object text', '{"a":1,"nested":{"list":[1,"two",null,true]}}', { a: 1, nested: { list: [1, 'two', null, true] } }],
    ['array text', '[1,2,[3,{"x":"y"}],[]]', [1, 2, [3, { x: 'y' }], []]],
    ['number text', '42', 42],
    ['string text', '"just a string"', 'just a string'],
    ['null text', 'null', null],
    ['an already parsed object (jsonb)', { a: [1] }, { a: [1] }],
    ['an already parsed number', 42, 42],
    ['an already parsed boolean', false, false],
    ['text that is not JSON stays text', 'not json', 'not json'],
  ])('json.fromDatabase: %s', (_label, raw, expected) => {
    expect(FIELD_TYPES.json.fromDatabase(raw, plain('json'))).toEqual(expected)
  })

  it.each<[unknown]>([[{ a: 1 }], [[1, 2]], ['text'], [0], [null]])('json.fromJson(%p) keeps the value', (value) => {
    expect(FIELD_TYPES.json.fromJson(value)).toEqual(value)
  })
})
