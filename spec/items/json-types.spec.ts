// Every field type reads and writes the same canonical JSON on every database, whatever the host's time zone (jest runs in Asia/Kolkata).
import type { Express } from 'express'
import request from 'supertest'
import { seed, type SampleRow } from '../../fixtures/seed'
import type { DialectName } from '../../lib/dialects'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'

const SAMPLE_FIELDS = [
  'id',
  'label',
  'body',
  'count',
  'big',
  'ratio',
  'price',
  'active',
  'day',
  'starts_at',
  'logged_at',
  'alarm',
  'payload',
  'ref',
]

/** One sample of every type, as a client might send it: upper-case uuids, offsets, a space separator, numbers for decimals. */
const EVERY_TYPE_INPUT = {
  id: 'C0FFEE00-AAAA-4BBB-8CCC-0123456789AB',
  label: 'Every type ✓',
  body: 'Tab\there, newline\nand ünïcode 🚀 "quoted" \\ backslash',
  count: -2147483648,
  big: '9223372036854775807',
  ratio: 1.5e-7,
  price: 12.5,
  active: false,
  day: '2024-02-29',
  starts_at: '2024-03-31 02:30:00',
  // 05:15 in India is still the previous day in UTC.
  logged_at: '2024-06-01T05:15:00.250+05:30',
  alarm: '23:59:59',
  payload: { list: [1, 'two', null, false, { deep: [] }], n: null, s: 'text', f: 0.5 },
  ref: 'A3BB189E-8BF9-3888-9912-ACE4E6543002',
}

const EVERY_TYPE_OUTPUT: SampleRow = {
  id: 'c0ffee00-aaaa-4bbb-8ccc-0123456789ab',
  label: 'Every type ✓',
  body: 'Tab\there, newline\nand ünïcode 🚀 "quoted" \\ backslash',
  count: -2147483648,
  big: '9223372036854775807',
  ratio: 1.5e-7,
  price: '12.50',
  active: false,
  day: '2024-02-29',
  starts_at: '2024-03-31T02:30:00',
  logged_at: '2024-05-31T23:45:00.250Z',
  alarm: '23:59:59',
  payload: { list: [1, 'two', null, false, { deep: [] }], n: null, s: 'text', f: 0.5 },
  ref: 'a3bb189e-8bf9-3888-9912-ace4e6543002',
}

/** Input variants per field: [field, input, canonical output]. */
const VARIANTS: Array<[string, unknown, unknown]> = [
  ['label', '', ''],
  ['label', '李雷 🚀 Ünïcödé', '李雷 🚀 Ünïcödé'],
  ['count', 2147483647, 2147483647],
  ['count', 0, 0],
  ['big', '9007199254740993', '9007199254740993'],
  ['big', '-9223372036854775808', '-9223372036854775808'],
  ['big', 9007199254740991, '9007199254740991'],
  ['big', -42, '-42'],
  ['big', '007', '7'],
  ['ratio', 0.1, 0.1],
  ['ratio', -1.25, -1.25],
  ['ratio', 3.141592653589793, 3.141592653589793],
  ['ratio', 1e300, 1e300],
  ['ratio', 0.30000000000000004, 0.30000000000000004],
  ['price', 12.5, '12.50'],
  ['price', '12.5', '12.50'],
  ['price', 0.1, '0.10'],
  ['price', '0.05', '0.05'],
  ['price', -7, '-7.00'],
  ['price', '-0.01', '-0.01'],
  ['price', 0, '0.00'],
  ['price', '99999.99', '99999.99'],
  ['price', '999999999999.99', '999999999999.99'],
  ['active', true, true],
  ['active', false, false],
  ['day', '2024-02-29', '2024-02-29'],
  ['day', '1999-12-31', '1999-12-31'],
  ['day', '2024-01-01', '2024-01-01'],
  ['starts_at', '2024-06-01 08:15:30', '2024-06-01T08:15:30'],
  ['starts_at', '2024-06-01T08:15:30', '2024-06-01T08:15:30'],
  ['starts_at', '2024-06-01T00:00:00', '2024-06-01T00:00:00'],
  ['starts_at', '2024-06-01T08:15', '2024-06-01T08:15:00'],
  ['logged_at', '2024-06-01T15:45:00+05:30', '2024-06-01T10:15:00.000Z'],
  ['logged_at', '2024-06-01T10:15:00Z', '2024-06-01T10:15:00.000Z'],
  ['logged_at', '2024-06-01T10:15:00.123-02:00', '2024-06-01T12:15:00.123Z'],
  ['logged_at', '2024-01-01T03:00:00+05:30', '2023-12-31T21:30:00.000Z'],
  ['logged_at', '2024-06-01 10:15:00', '2024-06-01T10:15:00.000Z'],
  ['logged_at', '1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z'],
  ['alarm', '07:05', '07:05:00'],
  ['alarm', '00:00:00', '00:00:00'],
  ['alarm', '23:59:59', '23:59:59'],
  ['payload', { a: { b: [1, 2, { c: null }] } }, { a: { b: [1, 2, { c: null }] } }],
  ['payload', [1, 'x', null, [], {}], [1, 'x', null, [], {}]],
  ['payload', 'plain text', 'plain text'],
  ['payload', 0, 0],
  ['payload', 3.5, 3.5],
  ['payload', true, true],
  ['payload', false, false],
  ['payload', null, null],
  ['payload', { unicode: 'ünï 🚀 李', quote: '"\\' }, { unicode: 'ünï 🚀 李', quote: '"\\' }],
  // Strings that happen to be JSON text must stay strings.
  ['payload', '42', '42'],
  ['payload', 'true', 'true'],
  ['payload', 'null', 'null'],
  ['payload', '{"a":1}', '{"a":1}'],
  ['payload', '[1]', '[1]'],
  ['ref', '6BA7B810-9DAD-11D1-80B4-00C04FD430C8', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
  ['ref', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
]

/** Inputs the contract does not pin to one answer; whatever it is, every database must give the same. */
const CROSS_DATABASE_INPUTS: Array<Record<string, unknown>> = [
  EVERY_TYPE_INPUT,
  { id: 'c0ffee00-0000-4000-8000-000000000001', price: '1.500', ratio: 0.1 + 0.2, alarm: '12:00:00.999' },
  { id: 'c0ffee00-0000-4000-8000-000000000002', price: 123456.78, starts_at: '2024-01-01T00:00:00.999' },
  { id: 'c0ffee00-0000-4000-8000-000000000003', logged_at: '2024-01-01T00:00:00.123456Z', big: '+5' },
  { id: 'c0ffee00-0000-4000-8000-000000000004', payload: { b: 1, a: 2, aa: { d: 1, c: 2 } }, price: '0.1' },
  { id: 'c0ffee00-0000-4000-8000-000000000005' },
]

const bodiesByDialect = new Map<DialectName, unknown>()

const idList = (rows: ReadonlyArray<{ id: string }>): string => rows.map((row) => row.id).join(',')

forEachDialect((ctx) => {
  let app: Express
  beforeAll(async () => {
    app = createApp(ctx.knex)
    await ctx.reset()
  })

  describe('reading the seed', () => {
    it('answers every samples row exactly as the seed writes it in JSON', async () => {
      const response = await request(app).get(`/api/items/samples?limit=-1&filter[id][_in]=${idList(seed.samples)}`)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: seed.samples })
    })

    it.each(seed.samples.map((row) => [row.label ?? 'all nulls', row] as const))('answers the row "%s" alone', async (_label, row) => {
      const response = await request(app).get(`/api/items/samples/${row.id}`)
      expect(response.body).toEqual({ data: row })
      expect(Object.keys(response.body.data as object)).toEqual(SAMPLE_FIELDS)
    })

    it('keeps bigInteger beyond 2^53 exact (as strings, never numbers)', async () => {
      const response = await request(app).get(`/api/items/samples?fields=big&limit=2&filter[id][_in]=${idList(seed.samples)}`)
      expect(response.text).toContain('"big":"9007199254740993"')
      expect(response.text).toContain('"big":"-9007199254740993"')
    })

    it('finds a row by its uuid given in upper case', async () => {
      const row = seed.samples[0]!
      const response = await request(app).get(`/api/items/samples/${row.id.toUpperCase()}?fields=id`)
      expect(response.body).toEqual({ data: { id: row.id } })
    })
  })

  describe('writing every type', () => {
    it('creates a sample of every type and answers the canonical JSON', async () => {
      const response = await request(app).post('/api/items/samples').send(EVERY_TYPE_INPUT)
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ data: EVERY_TYPE_OUTPUT })
      const read = await request(app).get(`/api/items/samples/${EVERY_TYPE_OUTPUT.id}`)
      expect(read.body).toEqual({ data: EVERY_TYPE_OUTPUT })
    })

    it('creates a sample of nulls only', async () => {
      const response = await request(app).post('/api/items/samples').send({ label: null, payload: null, price: null, logged_at: null })
      expect(response.status).toBe(200)
      const id = (response.body as { data: { id: string } }).data.id
      const expected = Object.fromEntries(SAMPLE_FIELDS.map((field) => [field, field === 'id' ? id : null]))
      expect(response.body).toEqual({ data: expected })
      expect((await request(app).get(`/api/items/samples/${id}`)).body).toEqual({ data: expected })
    })

    it.each(VARIANTS)('%s given %j reads back as %j', async (field, input, output) => {
      const created = await request(app)
        .post(`/api/items/samples?fields=id,${field}`)
        .send({ [field]: input })
      expect(created.status).toBe(200)
      const id = (created.body as { data: { id: string } }).data.id
      expect(created.body).toEqual({ data: { id, [field]: output } })
      const read = await request(app).get(`/api/items/samples/${id}?fields=${field}`)
      expect(read.body).toEqual({ data: { [field]: output } })
    })

    it.each(VARIANTS)('PATCH %s to %j reads back as %j', async (field, input, output) => {
      const id = seed.samples[5]!.id
      const updated = await request(app)
        .patch(`/api/items/samples/${id}?fields=${field}`)
        .send({ [field]: input })
      expect(updated.status).toBe(200)
      expect(updated.body).toEqual({ data: { [field]: output } })
    })

    it.each([
      ['big', '9223372036854775808', 'above int64'],
      ['big', 1.5, 'a fraction'],
      ['count', 2147483648, 'above int32'],
      ['price', 'abc', 'not a number'],
      ['price', '1e5', 'exponent notation is not decimal text'],
      ['active', 'yes', 'not a boolean'],
      ['day', '2023-02-29', 'not a leap year'],
      ['day', '2024-06-01T10:00:00+02:00', 'a date with a zone'],
      ['starts_at', '2024-06-01T10:00:00Z', 'a wall-clock time with a zone'],
      ['logged_at', '2024-06-01T25:00:00Z', 'hour 25'],
      ['logged_at', 1717236000000, 'epoch milliseconds'],
      ['alarm', '24:00:00', 'hour 24'],
      ['ref', 'not-a-uuid', 'not a uuid'],
      ['id', 'abc', 'not a uuid key'],
    ])('refuses %s = %j (%s) with 400 FAILED_VALIDATION', async (field, input, _why) => {
      const before = Number((await ctx.knex('samples').count({ n: '*' }))[0]!.n)
      const response = await request(app)
        .post('/api/items/samples')
        .send({ [field]: input })
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        { message: expect.any(String), extensions: expect.objectContaining({ code: 'FAILED_VALIDATION', field }) },
      ])
      expect(Number((await ctx.knex('samples').count({ n: '*' }))[0]!.n)).toBe(before)
    })
  })

  describe('bigInteger given as a JSON number beyond 2^53', () => {
    it('is refused with 400 rather than stored rounded', async () => {
      const count = async (): Promise<number> => Number((await ctx.knex('samples').count({ n: '*' }))[0]!.n)
      const before = await count()
      // Sent as raw text: the number cannot be written in JavaScript without rounding, which is the point.
      const response = await request(app)
        .post('/api/items/samples')
        .set('Content-Type', 'application/json')
        .send('{"big":9007199254740993}')
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        { message: expect.any(String), extensions: expect.objectContaining({ code: 'FAILED_VALIDATION', field: 'big' }) },
      ])
      expect(await count()).toBe(before)
    })
  })

  describe('a decimal with more digits than its scale', () => {
    it.each<[string, unknown]>([
      ['a string', '1.005'],
      ['a number', 123456.785],
    ])('is refused as %s rather than rounded by some databases and kept by others', async (_label, price) => {
      const before = Number((await ctx.knex('samples').count({ n: '*' }))[0]!.n)
      const response = await request(app).post('/api/items/samples').send({ price })
      expect(response.status).toBe(400)
      expect(response.body.errors).toEqual([
        {
          message: 'Field "price" has more than 2 digits after the decimal point.',
          extensions: expect.objectContaining({ code: 'FAILED_VALIDATION', field: 'price', type: 'decimalScale' }),
        },
      ])
      expect(Number((await ctx.knex('samples').count({ n: '*' }))[0]!.n)).toBe(before)
    })
  })

  describe('the same JSON on every database', () => {
    it('answers these writes and the seed identically to the other databases', async () => {
      await ctx.reset()
      const created = await request(app).post('/api/items/samples').send(CROSS_DATABASE_INPUTS)
      expect(created.status).toBe(200)
      const read = await request(app).get('/api/items/samples?limit=-1&sort=id')
      expect(read.status).toBe(200)
      const body: unknown = read.body
      // Keyed by the other database's name, so the diff says which one differs; one assertion compares them all.
      const others = [...bodiesByDialect.entries()]
      bodiesByDialect.set(ctx.name, body)
      expect(Object.fromEntries(others.map(([name]) => [name, body]))).toEqual(Object.fromEntries(others))
    })
  })
})
