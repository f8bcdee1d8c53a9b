// A one-item UPDATE that is one statement on its own: answered from its RETURNING where the database has it, else
// read back by key on the UPDATE's connection. Without RETURNING its SQL is kept as a template under a key written
// from what decides the text (the fields it sets, the rule's row filter); the key and the values are bound.
import type { Knex } from 'knex'
import type { FieldNode } from '../query/query'
import type { FilterNode } from '../query/filter-node'
import type { Collection } from '../schema/collection'
import type { Payload } from '../schema/payload-validator'
import type { PrimaryKey } from '../types'
import type { Dialect } from '../dialects'
import type { Db } from '../execute/db'
import { onOneConnection, pinnedTo } from '../execute/bare-transaction'
import { inKnexTransaction, runBuilder } from '../execute/run-statement'
import { compileFilter } from '../sql/compile-filter'
import { TEMPLATES_KEPT, StatementTemplates } from '../sql/statement-templates'
import { OWN_VALUES, type ValueSlots } from '../sql/value-slots'
import { QueryKey } from '../query/query-key'
import type { ItemLoader } from './item-loader'
import { rowOf } from './item-inserts'
import { whereExactKey } from './where-keys'
import { storedKey } from '../dialects/storage'
import type { ReturnedRow } from './write-types'

export class OneItemUpdate {
  /** The kept UPDATE templates, by key. */
  private readonly writes: StatementTemplates

  constructor(
    private readonly loader: ItemLoader,
    private readonly dialect: Dialect,
  ) {
    this.writes = new StatementTemplates((result) => dialect.rawRows(result), TEMPLATES_KEPT, !loader.postProcesses)
  }

  /** `updateWithin`, answering from the UPDATE's RETURNING `returned` fields, or reading `answer` back. */
  run(
    db: Db,
    collection: Collection,
    key: PrimaryKey,
    payload: Payload,
    scope: FilterNode | null,
    returned: readonly FieldNode[] | null,
    answer: readonly FieldNode[] | null,
  ): Promise<ReturnedRow[] | null> {
    const row = rowOf(payload, this.dialect)
    // The key's own row only, as reads and key checks find it (see whereExactKey), within the rule's scope.
    const where = (qb: Knex.QueryBuilder, boundKey: readonly unknown[], values: ValueSlots): Knex.QueryBuilder => {
      whereExactKey(qb, collection, boundKey, this.dialect)
      if (scope !== null) compileFilter(qb, scope, this.dialect, collection.table, values)
      return qb
    }
    const stored = storedKey(collection, key, this.dialect)
    // Past knex's runner (see run-statement.ts), and chained rather than awaited (see is-promise-like.ts).
    if (returned !== null) {
      const qb = where(db(collection.table), stored, OWN_VALUES).update(row).returning(this.loader.returningColumns(collection, returned))
      return runBuilder<ReturnedRow[]>(db, qb).then((rows) => (rows.length > 0 ? rows : null))
    }
    // Without RETURNING, the statement is kept under a key: the fields it sets, the rule's scope; the key
    // and the values are bound.
    const columns = Object.keys(row)
    const bound = [...stored, ...Object.values(row)]
    const updateKey = new QueryKey('update').schema(collection)
    for (const field of payload.keys()) updateKey.schema(field)
    updateKey.filter(scope)
    const update = (on: Db): Promise<number> =>
      this.writes.write<number>(
        on,
        updateKey,
        (values) => {
          const all = values.list(bound)
          const set = all.slice(stored.length)
          return where(on(collection.table), all.slice(0, stored.length), values).update(
            Object.fromEntries(columns.map((column, index) => [column, set[index]])),
          )
        },
        bound,
      )
    if (answer === null) return update(db).then((changed) => (changed > 0 ? [] : null))
    // MySQL's UPDATE has no RETURNING (nor a table in ServerTraits.readsBack's): the row is read by its key right after the UPDATE commits, as the answer's
    // read-back would read it, but on the UPDATE's connection, which spares the read one of its own from the pool.
    const readBack = (on: Db): Promise<ReturnedRow[] | null> =>
      update(on).then((changed) => (changed > 0 ? this.loader.rowsByKeys(on, collection, [key], answer) : null))
    return pinnedTo(db) !== undefined || inKnexTransaction(db) ? readBack(db) : onOneConnection(db as Knex, readBack)
  }
}
