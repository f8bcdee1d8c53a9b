// Test support: the fixture collections built into a schema once, with the views and parser limits the unit specs
// parse against. The one place unit specs reach into lib/schema, so a rename there is fixed here.
import { collections } from '../../fixtures/schema'
import type { ParserOptions } from '../../lib/query/parser-options'
import { buildSchema } from '../../lib/schema/build-schema'
import type { Collection, Limits, Schema } from '../../lib/schema/collection'
import { fullView, openView, type SchemaView } from '../../lib/query/schema-view'

/** The router's default page and batch limits. */
export const DEFAULT_LIMITS: Limits = { defaultLimit: 100, maxLimit: undefined, maxBatchSize: 1000 }

/** The fixture collections built with `limits`. */
export function fixtureSchema(limits: Limits = DEFAULT_LIMITS): Schema {
  return buildSchema(collections, limits)
}

/** The fixture schema at the default limits. */
export const schema = fixtureSchema()

/** What a caller without access rules may name: every member but hidden fields. */
export const openSchema: SchemaView = openView(schema)

/** What the host's own rule filters may name: hidden fields included. */
export const fullSchema: SchemaView = fullView(schema)

/** The router's default parser limits; pair them with a view: `{ schema: openSchema, ...PARSER_LIMITS }`. */
export const PARSER_LIMITS: Omit<ParserOptions, 'schema' | 'variables'> = {
  maxDepth: 10,
  maxInListLength: 1000,
  maxRelationalDepth: 10,
  maxRelations: 50,
  maxConditions: 2000,
  maxPatternConditions: 3,
  maxListEntries: 100,
  cursorSecret: Buffer.from('spec-cursor-secret-of-thirty-two-characters'),
  maxExportRows: 10_000_000,
}

/** The collection called `name` in `of` (the fixture schema unless given); throws when there is none. */
export function collection(name: string, of: Schema = schema): Collection {
  const found = of.collections.get(name)
  if (!found) throw new Error(`fixture collection ${name} missing`)
  return found
}
