// The types a write's parts share (items-repository.ts and the files of its jobs beside it).
import type { Knex } from 'knex'
import type { FilterNode } from '../query/filter-node'
import type { Collection } from '../schema/collection'

/** Columns a write's RETURNING selects (see ItemsRepository.returningColumns). */
export type ReturningColumns = (string | Knex.Raw)[]
/** A written row as RETURNING answered it, for `itemsOfReturned`. */
export type ReturnedRow = Record<string, unknown>

/** The rows of a collection a caller may see (SchemaView.scope); null: every row. */
export type ScopeOf = (collection: Collection) => FilterNode | null

/**
 * The keys of each collection a write already knows to exist (as key ids): a nested write's own new and checked
 * items, which its many-to-one values need not look up again.
 */
export type KnownKeys = (collection: Collection) => ReadonlySet<string> | undefined
