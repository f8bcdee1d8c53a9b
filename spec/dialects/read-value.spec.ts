// Each dialect turns the values its driver builds (Date, Buffer, numbers) into the canonical JSON form,
// through fromStorage as the repository reads them; text passes through every dialect unchanged.
import fc from 'fast-check'
import type { Dialect, DialectName } from '../../lib/dialects'
import { mysql } from '../../lib/dialects/mysql/mysql'
import { postgres } from '../../lib/dialects/postgres/postgres'
import { sqlite } from '../../lib/dialects/sqlite/sqlite'
import { fromStorage } from '../../lib/dialects/storage'
import { buildSchema } from '../../lib/schema/build-schema'
import { FIELD_TYPES } from '../../lib/schema/field-types'
import type { Field } from '../../lib/schema/collection'
import type { FieldType } from '../../lib/types'

const DIALECTS: Readonly<Record<DialectName, Dialect>> = { sqlite, postgres, mysql }
const LIMITS = { defaultLimit: 100, maxLimit: undefined, maxBatchSize: 1000 }

/** A field of the type as the schema builds it, so the spec does not depend on the shape of Field. */
function field(type: FieldType, scale?: number): Field {
  const value = scale === undefined ? { type } : { type, scale }
  const schema = buildSchema({ samples: { fields: { id: { type: 'integer', primaryKey: true }, value } } }, LIMITS)
  return schema.collections.get('samples')!.members.get('value') as Field
}

/** [the dialects whose driver builds this value, type, raw, scale, canonical form] */
type Case = [readonly DialectName[], FieldType, unknown, number | undefined, unknown]

const cases = (dialects: readonly DialectName[], rows: ReadonlyArray<[FieldType, unknown, number | undefined, unknown]>): Case[] =>
  rows.map(([type, raw, scale, expected]) => [dialects, type, raw, scale, expected])

describe('readValue through fromStorage', () => {
  it.each<Case>([
    // Insert ids, SQLite's numeric values and pg type parsers hand exact types over as numbers.
    ...cases(
      ['sqlite', 'postgres', 'mysql'],
      [
        ['bigInteger', 42, undefined, '42'],
        ['bigInteger', 0, undefined, '0'],
        ['bigInteger', 1e21, undefined, '1000000000000000000000'],
        ['decimal', 12.5, 2, '12.50'],
        ['decimal', -3, 2, '-3.00'],
        ['decimal', 0, 2, '0.00'],
        ['decimal', 0.05, 2, '0.05'],
        ['decimal', 1, 2, '1.00'],
        ['decimal', 99999.99, 2, '99999.99'],
        ['decimal', 0.1, undefined, '0.1'],
        ['decimal', 1e-7, undefined, '0.0000001'],
      ],
    ),
    // pg and mysql2 build Date objects for zone-less columns in the process zone: the local fields are the value.
    ...cases(
      ['postgres', 'mysql'],
      [
        ['date', new Date(2024, 1, 29), undefined, '2024-02-29'],
        ['date', new Date(1999, 11, 31), undefined, '1999-12-31'],
        ['dateTime', new Date(2024, 2, 10, 2, 30, 0), undefined, '2024-03-10T02:30:00'],
        ['dateTime', new Date(2000, 0, 1, 0, 0, 0), undefined, '2000-01-01T00:00:00'],
        ['timestamp', new Date(Date.UTC(2024, 4, 1, 10, 0, 0)), undefined, '2024-05-01T10:00:00.000Z'],
        ['time', new Date(2024, 0, 1, 7, 30, 0), undefined, '07:30:00'],
      ],
    ),
    // mysql2 answers binary casts and columns, better-sqlite3 BLOB values, as Buffers.
    ...cases(
      ['sqlite', 'mysql'],
      [
        ['text', Buffer.from('Ünïcödé 🚀', 'utf8'), undefined, 'Ünïcödé 🚀'],
        ['json', Buffer.from('{"ü":"✓"}', 'utf8'), undefined, { ü: '✓' }],
      ],
    ),
    // Bytes (bytea, BLOB, VARBINARY) arrive as Buffers everywhere and answer as base64, whatever they hold.
    ...cases(
      ['sqlite', 'postgres', 'mysql'],
      [
        ['binary', Buffer.from([0x00, 0xff, 0xc3, 0x28]), undefined, 'AP/DKA=='],
        ['binary', Buffer.alloc(0), undefined, ''],
      ],
    ),
    // Text is already the plain form on every database.
    ...cases(
      ['sqlite', 'postgres', 'mysql'],
      [
        ['bigInteger', '9007199254740993', undefined, '9007199254740993'],
        ['decimal', '12.5000', 2, '12.50'],
        ['date', '2024-02-29', undefined, '2024-02-29'],
        ['timestamp', '2025-06-15 06:30:00.500', undefined, '2025-06-15T06:30:00.500Z'],
        ['boolean', '1', undefined, true],
        // PostgreSQL's text form of a boolean, also found in data other tools wrote.
        ['boolean', 't', undefined, true],
        ['boolean', 'f', undefined, false],
        ['json', '{"a":1}', undefined, { a: 1 }],
      ],
    ),
  ])('%j: %s %p (scale %p) reads as %p', (dialects, type, raw, scale, expected) => {
    for (const name of dialects) {
      expect({ dialect: name, value: fromStorage(field(type, scale), raw, DIALECTS[name]) }).toEqual({ dialect: name, value: expected })
    }
  })
})

describe('values that read as themselves', () => {
  const JS_VALUES = {
    number: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(-0, 2 ** 53, -(2 ** 31))),
    string: fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('', 'NULL', '1', 'true', ' 42 ')),
    boolean: fc.boolean(),
  }
  const shortcuts = Object.entries(FIELD_TYPES).flatMap(([type, spec]) =>
    spec.readsAsItself === undefined ? [] : [[type as FieldType, spec.readsAsItself] as const],
  )

  it('are declared for the plain scalar types', () => {
    expect(shortcuts.map(([type]) => type).sort()).toEqual(['boolean', 'float', 'integer', 'string', 'text'])
  })

  // fromStorage returns such a value as it is: that must be what the full reading would answer, on every dialect.
  it.each(shortcuts)('%s: a %s the driver hands over is what readValue and fromDatabase make of it', (type, jsType) => {
    const typed = field(type)
    fc.assert(
      fc.property(JS_VALUES[jsType], (raw: unknown) => {
        for (const dialect of Object.values(DIALECTS)) {
          expect(Object.is(typed.spec.fromDatabase(dialect.readValue(raw, type), typed), raw)).toBe(true)
          expect(Object.is(fromStorage(typed, raw, dialect), raw)).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})
