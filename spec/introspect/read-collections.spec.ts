// collectionsFromCatalog and the catalog helpers, on catalogs written out by hand: alias names and their
// collisions, what is left out, overrides; default literals and CHECK (x IN (...)) lists.
import type { CatalogColumn, CatalogTable } from '../../lib/introspect/catalog'
import { acceptedTypes, checkedValues, literalDefault } from '../../lib/introspect/catalog'
import type { FieldType } from '../../lib/types'
import { collectionsFromCatalog } from '../../lib/introspect/read-collections'

function column(name: string, type: FieldType | null, extra: Partial<CatalogColumn> = {}): CatalogColumn {
  return {
    name,
    dbType: String(type),
    type,
    accepts: acceptedTypes(type),
    nullable: true,
    autoIncrement: false,
    generated: false,
    unique: false,
    ...extra,
  }
}

function table(name: string, columns: CatalogColumn[], foreignKeys: Array<[string, string]> = [], primaryKey = ['id']): CatalogTable {
  return {
    name,
    view: false,
    columns: [column('id', 'integer', { nullable: false, autoIncrement: true }), ...columns],
    primaryKey,
    foreignKeys: foreignKeys.map(([from, to]) => ({
      columns: [from],
      referencedTable: to,
      referencedColumns: ['id'],
      onDelete: 'noAction',
    })),
  }
}

const users = table('users', [column('name', 'string'), column('messages', 'text')])
const messages = table(
  'messages',
  [column('sender', 'integer'), column('recipient', 'integer'), column('reply_to', 'integer'), column('body', 'text')],
  // Listed out of order on purpose: names must not depend on the catalog's order.
  [
    ['recipient', 'users'],
    ['reply_to', 'messages'],
    ['sender', 'users'],
  ],
)
const notes = table('notes', [column('owner', 'integer')], [['owner', 'users']])

describe('collectionsFromCatalog', () => {
  it('names one-to-many aliases after the referencing table, and by column on a collision', () => {
    const { collections } = collectionsFromCatalog([messages, notes, users])
    expect(collections.users!.fields).toMatchObject({
      // Two keys from messages, and a `messages` column besides: both by column.
      messages_by_recipient: { type: 'o2m', collection: 'messages', foreignKey: 'recipient' },
      messages_by_sender: { type: 'o2m', collection: 'messages', foreignKey: 'sender' },
      notes: { type: 'o2m', collection: 'notes', foreignKey: 'owner' },
      messages: { type: 'text' },
    })
    expect(collections.messages!.fields.messages).toEqual({ type: 'o2m', collection: 'messages', foreignKey: 'reply_to' })
    expect(Object.keys(collections.users!.fields)).toEqual([
      'id',
      'name',
      'messages',
      'messages_by_recipient',
      'messages_by_sender',
      'notes',
    ])
  })

  it('counts up when even the column form is taken', () => {
    const taken = table('owners', [column('notes_by_owner', 'text')])
    const notesOfOwners = table(
      'notes',
      [column('owner', 'integer'), column('editor', 'integer')],
      [
        ['owner', 'owners'],
        ['editor', 'owners'],
      ],
    )
    const { collections } = collectionsFromCatalog([notesOfOwners, taken])
    expect(collections.owners!.fields).toMatchObject({
      notes_by_editor: { foreignKey: 'editor' },
      notes_by_owner_2: { foreignKey: 'owner' },
      notes_by_owner: { type: 'text' },
    })
  })

  it('leaves out tables without a usable key and columns without a field type, and says why', () => {
    const { collections, skipped } = collectionsFromCatalog([
      table('pairs', [column('a', 'integer'), column('b', 'date')], [], ['a', 'b']),
      table('log', [column('line', 'text')], [], []),
      table('shapes', [column('outline', null, { dbType: 'polygon' })]),
      { ...table('by_day', [column('day', 'date')], [], ['day']) },
      { ...table('recent', [column('id2', 'integer')], [], []), view: true },
    ])
    expect(Object.keys(collections)).toEqual(['shapes'])
    expect(skipped).toEqual([
      { table: 'pairs', reason: 'primary key "b" is date; a key must be an integer, bigInteger, string or uuid' },
      { table: 'log', reason: 'no primary key' },
      { table: 'shapes', column: 'outline', reason: 'type polygon has no field type' },
      { table: 'by_day', reason: 'primary key "day" is date; a key must be an integer, bigInteger, string or uuid' },
      { table: 'recent', reason: 'a view has no primary key: name its key column in `viewKeys` to serve it read-only' },
    ])
  })

  it('merges overrides, and a removed foreign key takes its alias with it', () => {
    const { collections } = collectionsFromCatalog([notes, users], {
      overrides: {
        notes: { fields: { owner: false, extra: { type: 'string' } }, defaultLimit: 10 },
        users: { fields: { name: { hidden: true } } },
      },
    })
    expect(collections.notes).toEqual({ defaultLimit: 10, fields: { id: expect.anything(), extra: { type: 'string' } } })
    expect(collections.users!.fields.name).toEqual({ type: 'string', hidden: true })
    expect(collections.users!.fields).not.toHaveProperty('notes')
  })
})

describe('catalog helpers', () => {
  it.each([
    ['42', 'integer', 42],
    ['-1.5', 'float', -1.5],
    ['12.50', 'decimal', '12.50'],
    ['9007199254740993', 'bigInteger', '9007199254740993'],
    ['1', 'boolean', true],
    ['false', 'boolean', false],
    ['{"a":1}', 'json', { a: 1 }],
    ['draft', 'string', 'draft'],
    ['now()', 'integer', undefined],
    ['maybe', 'boolean', undefined],
  ] as const)('reads the default %s of a field of type %s', (text, type, expected) => {
    expect(literalDefault(text, type)).toEqual(expected)
  })

  it('finds the values of CHECK (column IN (...)) whatever the quoting', () => {
    expect(checkedValues(`create table t (s text check ("s" in ('a', 'it''s')))`, 's')).toEqual(['a', "it's"])
    expect(checkedValues("(`status` in ('x','y'))", 'status')).toEqual(['x', 'y'])
    expect(checkedValues('check (other in (1, 2))', 'status')).toBeUndefined()
    // Only a check that is the list alone: another condition beside it could let other values in.
    expect(checkedValues("check (status in ('a') or status like 'b%')", 'status')).toBeUndefined()
  })
})
