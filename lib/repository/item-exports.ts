// Exports read a list in chunks, each one statement starting after the previous chunk's last row (see
// row-stream.ts): as items, as arrays of plain values, or as CSV lines the database writes itself.
import type { Knex } from 'knex'
import type { Query, Selection } from '../query/query'
import type { Collection, Field } from '../schema/collection'
import type { Item } from '../types'
import type { Dialect } from '../dialects'
import { columnValue } from '../dialects/storage'
import { requestLimits } from '../execute/statement-guard'
import type { ItemLoader } from './item-loader'
import { streamPieces, streamRows, type ChunkLoader, type PieceLoader } from './row-stream'

/**
 * Rows per statement of an export whose CSV the database writes: its text is a few times smaller than the same
 * rows as items, so a chunk this long holds about as much memory as one of `Dialect.exportChunkRows` items.
 */
const COPY_CHUNK_ROWS = 10_000

/** The selection of an export's chunk of at most `limit` items after `after` (null: the export's first chunk). */
const chunkOf = (query: Query, after: readonly unknown[] | null, limit: number): Selection => ({
  ...query,
  after: after ?? query.after ?? null,
  offset: after === null ? query.offset : 0,
  limit,
})

/** The fields of a list that reads plain columns only (no aggregate, relation or function); null otherwise. */
function plainFields(query: Query): Field[] | null {
  if (query.aggregate) return null
  const fields = query.fields.flatMap((node) => (node.kind === 'field' ? [node.field] : []))
  return fields.length === query.fields.length ? fields : null
}

export class ItemExports {
  constructor(
    private readonly loader: ItemLoader,
    private readonly dialect: Dialect,
    /** Where a read outside a transaction runs (see ItemsRepository). */
    private readonly reads: () => Knex,
    private readonly maxLoadedRows: number,
  ) {}

  /**
   * The items of a list, in chunks of at most `Dialect.exportChunkRows` (and `maxLoadedRows`) items: each chunk one
   * statement starting after the previous chunk's last row, relations loaded for its items only (see
   * row-stream.ts). The rows are read as each chunk runs, not from one snapshot.
   */
  streamItems(collection: Collection, query: Query): AsyncGenerator<Item[], void, undefined> {
    const load: ChunkLoader = (after, limit) => this.loader.loadKeyed(this.reads(), collection, query.fields, chunkOf(query, after, limit))
    return streamRows(load, query.limit, Math.min(this.dialect.exportChunkRows, this.maxLoadedRows))
  }

  /**
   * The items of a list of plain fields (no relation or function) as arrays of their values in the order of
   * `query.fields`, in chunks as `streamItems` reads them, of `Dialect.exportArrayChunkRows` rows, where the loader reads arrays (ItemLoader.readsArrays):
   * a CSV export needs no item objects. null otherwise.
   */
  streamArrays(collection: Collection, query: Query): AsyncGenerator<unknown[][], void, undefined> | null {
    const fields = plainFields(query)
    if (fields === null || !this.loader.readsArrays) return null
    const load: ChunkLoader<unknown[]> = (after, limit) =>
      this.loader.loadArrays(this.reads(), collection, fields, chunkOf(query, after, limit))
    return streamRows(load, query.limit, Math.min(this.dialect.exportArrayChunkRows, this.maxLoadedRows))
  }

  /**
   * The CSV lines of an export as the database writes them (Dialect.csvCopy), in chunks of `COPY_CHUNK_ROWS`
   * rows, each read as `streamItems` reads its own; a chunk holding a value only the router spells right comes
   * as arrays instead (see `streamArrays`), for the router's writer. null where the database cannot write the
   * lines as the router would: another dialect, an aggregate, a relation or function among the fields, a column
   * type or session setting the cells do not know, a host that post-processes knex's responses.
   */
  async copyCsv(collection: Collection, query: Query): Promise<AsyncGenerator<Buffer | unknown[][], void, undefined> | null> {
    const copy = this.dialect.csvCopy
    const fields = plainFields(query)
    // A host that post-processes knex's responses would get the raw results of the probes where it expects rows.
    if (copy === null || fields === null || !this.loader.readsArrays) return null
    const db = this.reads()
    const values = fields.map((field) => columnValue(field, `${collection.table}.${field.column}`, this.dialect))
    const types = await copy.columnTypes(db, db(collection.table).select(values.map(({ sql, bindings }) => db.raw(sql, [...bindings]))))
    const cells = types && copy.cells(fields.map((field, index) => ({ field, value: values[index]!, type: types[index]! })))
    if (!cells) return null
    const known = new Map<string, readonly string[]>()
    const load: PieceLoader<Buffer | unknown[][]> = async (after, limit) => {
      const selection = chunkOf(query, after, limit)
      try {
        // One snapshot for both statements: the chunk ends at the row its boundary names, whatever commits meanwhile.
        return await db.transaction(
          async (trx) => {
            const boundary = { ...selection, offset: selection.offset + limit - 1, limit: 1 }
            const { last } = await this.loader.loadKeyed(trx, collection, [], boundary)
            return {
              piece: await copy.copy(trx, this.loader.csvStatement(trx, collection, selection, cells), known, requestLimits()),
              boundary: last,
            }
          },
          { isolationLevel: 'repeatable read', readOnly: true },
        )
      } catch (error) {
        if (!copy.needsWriter(error)) throw error
        const { items, last } = await this.loader.loadArrays(db, collection, fields, selection)
        return { piece: items, boundary: items.length < limit ? null : last }
      }
    }
    return streamPieces(load, query.limit, Math.min(COPY_CHUNK_ROWS, this.maxLoadedRows))
  }
}
