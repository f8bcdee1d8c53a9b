// checkCollections: a hand-written configuration compared with the database, every mismatch reported at once.
import type { Knex } from 'knex'
import { collections as fixtureCollections } from '../../fixtures/schema'
import { checkCollections, ConfigError, readCollections, type Collections } from '../../lib'
import { forEachDialect } from '../support/dialects'
import { closeLegacyDatabase, openLegacyDatabase } from './legacy-database'

/** A configuration written by hand with one mistake of each kind. */
const WRONG: Collections = {
  Missing: { fields: { id: { type: 'integer', primaryKey: true } } },
  Author: {
    fields: {
      AuthorId: { type: 'uuid', primaryKey: true },
      DisplayName: { type: 'string', maxLength: 100 },
      nickname: { type: 'string' },
    },
  },
  BlogPost: {
    fields: {
      PostId: { type: 'bigInteger', primaryKey: true, autoIncrement: true },
      title: { type: 'json', nullable: false },
      price: { type: 'decimal', precision: 10 },
      author_id: { type: 'uuid', nullable: false },
      reviewer_id: { type: 'uuid', references: 'categories' },
      category_id: { type: 'bigInteger', references: 'categories', onDelete: 'cascade' },
    },
  },
  categories: { fields: { id: { type: 'bigInteger', primaryKey: true, autoIncrement: true }, name: { type: 'text', nullable: false } } },
}

async function mismatches(knex: Knex, collections: Collections): Promise<string> {
  try {
    await checkCollections(knex, collections)
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).code).toBe('CONFIG_SCHEMA_MISMATCH')
    return (error as Error).message
  }
  throw new Error('checkCollections found nothing')
}

forEachDialect((ctx) => {
  describe(`${ctx.name}: checkCollections`, () => {
    let knex: Knex
    beforeAll(async () => {
      knex = await openLegacyDatabase(ctx.name, ctx.knex)
    })
    afterAll(() => closeLegacyDatabase(ctx.name, knex))

    it('accepts what readCollections reads, and the fixtures the specs serve', async () => {
      await expect(checkCollections(knex, await readCollections(knex, { logger: { warn: () => undefined } }))).resolves.toBeUndefined()
      await expect(checkCollections(ctx.knex, fixtureCollections)).resolves.toBeUndefined()
    })

    ;(ctx.name === 'postgres' ? it : it.skip)('takes string or text elements for a text[] column, and nothing else', async () => {
      const posts = (tags: Record<string, unknown>): Collections => ({
        BlogPost: { fields: { PostId: { type: 'bigInteger', primaryKey: true }, tags: { nullable: false, ...tags } as never } },
      })
      await expect(checkCollections(knex, posts({ type: 'array', elementType: 'string' }))).resolves.toBeUndefined()
      expect(await mismatches(knex, posts({ type: 'array', elementType: 'integer' }))).toContain(
        'BlogPost.tags: declared array of integer, the column is text[]',
      )
      expect(await mismatches(knex, posts({ type: 'json' }))).toContain('BlogPost.tags: declared json, the column is text[]')
    })

    it('lists every mismatch in one ConfigError', async () => {
      const message = await mismatches(knex, WRONG)
      const expected = [
        'Missing: the table "Missing" does not exist',
        'Author.DisplayName: nullable, but the column is NOT NULL',
        'Author.nickname: the column "nickname" does not exist in Author',
        // SQLite holds any value in a TEXT column, so a json field there is no mismatch of type; elsewhere it is.
        ...(ctx.name === 'sqlite'
          ? []
          : [
              `BlogPost.title: declared json, the column is ${ctx.name === 'postgres' ? 'character varying' : 'varchar'}(200) (read as string)`,
            ]),
        "BlogPost.price: scale not declared, the column's is 2",
        'BlogPost.author_id: the column has a foreign key to Author; declare references',
        'BlogPost.reviewer_id: references categories, but the foreign key points at Author',
        "BlogPost.category_id: onDelete cascade, the foreign key's is",
      ]
      for (const line of expected) expect(message).toContain(line)
      // One line per mismatch: nothing else was reported.
      expect(message).toContain(`(${expected.length} mismatches)`)
    })
  })
})
