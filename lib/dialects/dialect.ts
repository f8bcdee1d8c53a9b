// The Dialect interface: every difference between SQLite, PostgreSQL and MySQL/MariaDB that lib/ has to know,
// as members of one object per database. Each member's doc says what each of the three does.
import type { Knex } from 'knex'
import type { ErrorCode } from '../errors'
import type { PatternSpec } from '../query/operators'
import type { DatePart } from '../query/query'
import type { Collection, Field } from '../schema/collection'
import type { FieldType, TemporalStorage } from '../types'

/** The supported databases, in the order specs and benchmarks run them. */
export const DIALECT_NAMES = ['sqlite', 'postgres', 'mysql'] as const

export type DialectName = (typeof DIALECT_NAMES)[number]

/** SQL with `?` / `??` placeholders; a binding may be a subquery builder, which knex inlines in parentheses. */
export interface SqlFragment {
  readonly sql: string
  readonly bindings: readonly Knex.RawBinding[]
}

/**
 * What a driver error says in the API's terms: the code, and where the database tells them, the field (the
 * column it names, which is the field's name) and the offending value. `referenced`: the write would leave
 * other rows pointing at a missing item (a delete of a referenced row).
 */
export interface RecognisedError {
  readonly code: ErrorCode
  readonly field?: string
  readonly value?: string
  readonly referenced?: boolean
  /** The constraint the database names (a CHECK), reported as `extensions.constraint`. */
  readonly constraint?: string
}

/**
 * A driver error that says nothing about the request: `unavailable` when the database could not be reached or
 * the connection was lost (the outcome of an unfinished transaction is unknown), `conflict` when concurrent
 * transactions collided and the database rolled this one back (deadlock, serialization failure, lock wait),
 * which is safe to retry.
 */
export type Fault = 'unavailable' | 'conflict'

/** SQL for columns of several values: PostgreSQL arrays (`type: 'array'`), MySQL SETs (`type: 'set'`). */
export interface ArraySupport {
  /** The column as selected, for the field type's `fromDatabase` (arrays: a JSON array of the elements as text). */
  select(column: string): SqlFragment
  /** Canonical element values as the bound parameter written to the column. */
  toStorage(values: readonly unknown[]): string
  /** Rows whose array holds `value` (`negate`: a non-null array that does not). */
  contains(lhs: SqlFragment, value: Knex.Value, negate: boolean): SqlFragment
  /** Rows whose array is null or has no element (`negate`: has at least one). */
  empty(lhs: SqlFragment, negate: boolean): SqlFragment
}

/** SQL for spatial columns (`type: 'geometry'`). */
export interface SpatialSupport {
  /** The column as selected: its WKB, which the field type reads as GeoJSON. */
  select(column: string): SqlFragment
  /** Rows whose geometry intersects the one given as WKB (`bbox`: their bounding rectangles intersect). */
  intersects(lhs: SqlFragment, wkb: Buffer, negate: boolean, bbox: boolean): SqlFragment
}

/** What one server of a dialect supports, where its servers differ (Dialect.serverTraits). */
export interface ServerTraits {
  /** Whether an INSERT returns the rows it wrote (MariaDB 10.5+; not MySQL). */
  readonly insertReturnsRows: boolean
  /**
   * Most keys one list folded with `keyPairs` may hold: 0 where the server lacks the aggregate (MariaDB before
   * 10.5), and on MariaDB what `group_concat_max_len` has room for, since it cuts JSON_ARRAYAGG's text short.
   * On SQLite 0 for the host's own connection, where a statement is a call with no round trip to spare and the
   * window that numbers a folded list cost more than the statements it saved; a `sqliteReader`'s statements
   * each cross to a worker thread, so there they fold.
   */
  readonly foldedKeys: number
  /**
   * Whether a statement outside a transaction commits as it runs, so a write of one statement needs no BEGIN and
   * COMMIT. Always on PostgreSQL and SQLite; on MySQL the session's `autocommit`, which a server or pool may
   * switch off: there a lone statement would open a transaction nobody commits.
   */
  readonly autocommits: boolean
  /**
   * Tables whose writes answer by reading their rows back after the statement, never through RETURNING: on
   * PostgreSQL those with an INSTEAD rule on INSERT or UPDATE, which refuse RETURNING; on SQLite those with a
   * trigger, since RETURNING reports a row as it was before AFTER triggers wrote to it. Empty on MySQL, whose
   * UPDATE always reads back and whose triggers run BEFORE the row is written.
   */
  readonly readsBack: ReadonlySet<string>
}

export interface Dialect {
  readonly name: DialectName
  /**
   * An insert answers the new primary key only through `RETURNING` (PostgreSQL). SQLite and MySQL report the
   * last inserted id instead, which knex hands back as the insert's result.
   */
  readonly insertReturnsKeyWithReturning: boolean
  /**
   * An INSERT or UPDATE can return the rows it wrote (`RETURNING`): PostgreSQL, and SQLite since 3.35. MySQL
   * cannot; MariaDB's INSERT can since 10.5 (see `serverTraits`), but its UPDATE cannot.
   */
  readonly returnsRows: boolean
  /**
   * Where servers of the dialect differ in what the router uses, how to ask the one behind `knex` (once per
   * router and knex instance, in the router's ready gate before its first request: execute/server-traits.ts). null: every server has `returnsRows`,
   * folds key lists of any length and commits a lone statement as it runs.
   */
  readonly serverTraits: ((knex: Knex) => Promise<ServerTraits>) | null
  /**
   * `insert` made to answer the rows it writes as `columns` read them, where the server can (`returnsRows`,
   * `serverTraits`). PostgreSQL and SQLite through knex's `returning()`; knex's MySQL compiler leaves that
   * out, so for MariaDB the clause goes after the compiled INSERT.
   */
  returningInsert(db: Knex | Knex.Transaction, insert: Knex.QueryBuilder, columns: readonly (string | Knex.Raw)[]): Knex.QueryBuilder
  /**
   * The rows of a SELECT run through `knex.raw`, whose result is the driver's own: the array itself on SQLite,
   * `result.rows` on PostgreSQL, the first of `[rows, fields]` on MySQL.
   */
  rawRows(result: unknown): Record<string, unknown>[]
  /**
   * Most rows one INSERT of a batch may write when the database assigns their keys; null: one INSERT per row.
   * SQLite and PostgreSQL answer the keys through `RETURNING`: a statement's auto-increment keys rise in the order
   * of its rows there (one writer at a time; a sequence), so sorted they pair with the rows. SQLite: 500, the
   * most terms of the compound SELECT knex writes it as. MySQL answers the first key only (see `insertKeyStep`).
   */
  readonly multiRowInsert: number | null
  /**
   * Rows per statement of an export (before `maxLoadedRows`). PostgreSQL and MySQL 1000: each statement is a
   * round trip, so chunks are long enough that its cost vanishes. SQLite 200: better-sqlite3 reads a chunk and
   * the router writes its text in one slice of the event loop, which every other request waits for, so the
   * slice is kept short; a statement costs no round trip there (`npm run bench:stall`, concurrent exports).
   */
  readonly exportChunkRows: number
  /**
   * Rows per statement of an export read as arrays (a CSV of plain fields, item-exports.ts), before
   * `maxLoadedRows`: 1000 on every database. An array row costs a fraction of an item, so on SQLite a chunk this
   * long is still a short slice of the loop, with a fifth of the statements and socket writes of chunks of 200
   * (`npm run bench:export`). Longer chunks did not pay on MySQL: mysql2 parses a chunk's rows as they arrive,
   * on the event loop, and other requests' answers waited behind them (`npm run bench:stall`).
   */
  readonly exportArrayChunkRows: number
  /**
   * Where an INSERT answers only the first key of its rows (MySQL's LAST_INSERT_ID), the step between the keys of
   * one multi-row INSERT's rows, read on the transaction before its batch: InnoDB gives a statement whose row count
   * is known consecutive keys, `auto_increment_increment` apart, in lock modes 0 and 1
   * (`innodb_autoinc_lock_mode`; MariaDB's default is 1). null from it in the interleaved mode 2 (MySQL 8's
   * default, and what Galera requires), where they may not be consecutive: the rows then go one per INSERT. The
   * property is null where RETURNING tells the keys.
   */
  readonly insertKeyStep: ((db: Knex | Knex.Transaction) => Promise<number | null>) | null
  /**
   * An ORDER BY term for `expression`. Every database sorts NULL first ascending and last descending, and text
   * by code point, so a page is the same everywhere. PostgreSQL's default NULL order is the reverse and its
   * locale collations order text by language rules, so it gets `NULLS FIRST/LAST` and `COLLATE "C"`; MySQL's
   * `_ci` collations do likewise, so text sorts on its bytes there; SQLite's defaults already agree.
   * `nullable: false` (a primary key, a `nullable: false` column) leaves the NULL order out: PostgreSQL's
   * btree indexes are ASC NULLS LAST, so `asc nulls first` cannot walk one and sorts the whole table instead,
   * which every keyset chunk of an export and every cursor page would pay.
   */
  orderBy(expression: SqlFragment, direction: 'asc' | 'desc', text: boolean, nullable?: boolean): SqlFragment
  /**
   * `expression` as compared by a cursor's keyset predicate (`>`, `<`, `=`), in the order `orderBy` sorts it:
   * text by code point. PostgreSQL adds `COLLATE "C"`, MySQL compares `CAST(... AS BINARY)`; SQLite's plain
   * comparison already agrees. NULLs are handled by the predicate itself.
   */
  sortValue(expression: SqlFragment, text: boolean): SqlFragment
  /**
   * The planner's estimate of the rows `select` returns, or null where the database keeps none worth asking
   * (then `total_count_estimate` is counted exactly). PostgreSQL answers `Plan Rows` of `EXPLAIN (FORMAT JSON)`,
   * which comes from its table statistics (`ANALYZE`, autovacuum); MySQL's and SQLite's are null.
   */
  readonly estimateRows: ((db: Knex, select: Knex.QueryBuilder) => Promise<number | null>) | null
  /**
   * How a bound text value is wrapped so that `=`, `<>` and `IN` compare exactly (case, accents and trailing
   * spaces count): MySQL compares bytes; null for PostgreSQL and SQLite, whose plain comparison is exact.
   */
  readonly exactText: string | null
  /**
   * Types read through a cast to text, so the value does not depend on the driver's type parsers or the
   * connection's time zone: MySQL's DATETIME parsing follows mysql2's `timezone` option and its BIGINT parsing
   * `supportBigNumbers`; PostgreSQL's Date objects follow the process zone; SQLite rounds big integers to doubles.
   * JSON columns arrive parsed from pg and MySQL but as text from MariaDB and SQLite; as text, a stored JSON
   * string such as "42" is parsed exactly once.
   */
  readonly readAsText: ReadonlySet<FieldType>
  /** The cast applied to those columns; `??` is the column. MySQL casts to CHAR, the others to TEXT. */
  readonly textCast: string
  /**
   * Most bound parameters in one statement; `IN` lists are chunked below it. PostgreSQL's protocol and MySQL's
   * prepared statements count parameters in 16 bits; SQLite allows 32,766 since 3.32.
   */
  readonly maxParameters: number
  /**
   * The stored form of a timestamp (an ISO-8601 UTC string in). PostgreSQL's timestamptz and SQLite's text take
   * the ISO string; MySQL's DATETIME takes the UTC wall clock without a zone.
   */
  timestampToStorage(iso: string): string
  /**
   * The expression a `date`, `dateTime` or `timestamp` column whose `storage` is not `isoText` is read, compared,
   * sorted, grouped and aggregated through: on SQLite, the column's value as canonical text whichever of the
   * three forms a row holds (see sqlite-storage.ts); the column itself on PostgreSQL and MySQL, whose columns
   * are typed (`storage` is ignored there).
   */
  storedTemporal(type: FieldType, column: SqlFragment): SqlFragment
  /**
   * A canonical temporal value (as written under `isoText`) in the form `storage` names: epoch milliseconds or
   * `YYYY-MM-DD HH:MM:SS` text on SQLite; unchanged on PostgreSQL and MySQL.
   */
  temporalToStorage(type: FieldType, storage: TemporalStorage, text: string): Knex.Value
  /**
   * The expression a text field with `enum` is compared, sorted and grouped through, so it behaves as text: a
   * PostgreSQL enum type sorts by declaration and refuses `COLLATE`, a MySQL ENUM sorts by index; both are cast
   * to text. SQLite's are text already: the column itself.
   */
  enumText(column: SqlFragment): SqlFragment
  /** Array columns: PostgreSQL's SQL for them, null where the database has none (SQLite, MySQL). */
  readonly arrays: ArraySupport | null
  /** SET columns: MySQL's SQL for them, null where the database has none (SQLite, PostgreSQL). */
  readonly sets: ArraySupport | null
  /** Spatial columns: MySQL's SQL for them, null where the router serves none (SQLite, PostgreSQL). */
  readonly spatial: SpatialSupport | null
  /**
   * A WHERE fragment matching `column` against `term` literally (no wildcards), per `spec`. PostgreSQL uses
   * LIKE and ILIKE; MySQL LIKE on bytes, lower-casing both sides for the insensitive match; SQLite GLOB, and
   * LIKE over `items_fold()` for the insensitive match.
   */
  pattern(column: string, term: string, spec: PatternSpec): { sql: string; bindings: string[] }
  /**
   * An integer part of a date or time value: ISO week, weekday 0 = Sunday. Timestamps are read in UTC
   * (PostgreSQL's EXTRACT would use the session's time zone); the others are wall-clock values already.
   * PostgreSQL uses EXTRACT, MySQL its named functions, SQLite strftime.
   */
  datePart(part: DatePart, type: FieldType, value: SqlFragment): SqlFragment
  /**
   * A numeric expression as a double, so averages do not depend on each database's decimal arithmetic:
   * a cast on PostgreSQL and SQLite, adding a float literal on MySQL.
   */
  toDouble(sql: string): string
  /**
   * An aggregate over doubles (`sum`, `avg`) that raises the database's out-of-range error when it overflows,
   * rather than answering a wrong number: PostgreSQL raises by itself (the identity); MySQL/MariaDB keep an
   * infinity they send as 0 unless an arithmetic step follows (so one is added); SQLite answers an infinity,
   * which the decoder refuses (the identity).
   */
  overflowChecked(sql: string): string
  /**
   * A text expression that groups and counts distinct values exactly (case, accents and trailing spaces
   * count), as filters and sort already do: MySQL's bytes; the identity on PostgreSQL and SQLite, whose
   * default collation is already exact.
   */
  exactTextValue(sql: string): string
  /**
   * An aggregate summing decimals and big integers exactly, for databases whose own sum rounds them (SQLite
   * adds doubles and overflows past 64 bits); null where `sum` is exact (PostgreSQL, MySQL).
   */
  readonly exactSum: string | null
  /**
   * Adds a text column whose equality and unique indexes compare exactly; MySQL's default collations would
   * make "Draft", "draft" and "draft " one value, so it stores bytes there. A plain string column elsewhere.
   */
  exactStringColumn(table: Knex.CreateTableBuilder, name: string, length: number): Knex.ColumnBuilder
  /**
   * What the router does to each connection of its knex instance's pool before using it (see knex-adapter.ts's
   * prepareEachConnection): SQLite registers the SQL functions its statements call (prepareSqliteConnection);
   * null on PostgreSQL and MySQL, whose connections need nothing.
   */
  readonly prepareConnection: ((connection: object) => void) | null
  /**
   * Driver settings the router adds to the host's connection settings where they leave them out, so that a
   * silent network partition ends in an error instead of a hang: TCP keep-alive, and a bound on opening a
   * connection (knex opens one to cancel a statement past its time limit). Null where there is no network (SQLite).
   */
  readonly connectionDefaults: Readonly<Record<string, unknown>> | null
  /**
   * Whether a pooled connection may be lent again, or null where any may (SQLite): a connection whose statement
   * outlived its time limit in a partition still waits for the lost answer, and would hang the next request
   * that gets it. Read from the driver's connection (pg's `readyForQuery`, mysql2's current command).
   */
  readonly connectionUsable: ((connection: object) => boolean) | null
  /**
   * Checks once, before the router serves its first request, that the host's connections can run the SQL this
   * dialect emits; answers what the host has to add, or null. SQLite calls functions of ours, which a pool that
   * is not knex's own may lack; null where there is nothing to check (PostgreSQL, MySQL).
   */
  readonly checkSetup: ((knex: Knex) => Promise<string | null>) | null
  /**
   * The key a sequence just gave the row an INSERT without RETURNING wrote (`ServerTraits.readsBack`), where the
   * INSERT's own result does not hold it: PostgreSQL's `currval` of the key column's sequence, on the same
   * connection. null on SQLite and MySQL, whose INSERT answers the last inserted id.
   */
  readonly insertedKey: ((db: Knex | Knex.Transaction, table: string, column: string) => Promise<unknown>) | null
  /**
   * Run in the write's transaction before inserting the explicit value `key` into an auto-increment key: raises
   * the key's counter to at least `key`, never lowering it, so that no create without a key is handed `key`
   * afterwards. Null where the database moves its counter by itself (SQLite, MySQL). PostgreSQL's sequence does
   * not, and would hand out a taken key next.
   */
  readonly syncAutoIncrement: ((db: Knex | Knex.Transaction, table: string, column: string, key: string) => Promise<unknown>) | null
  /**
   * Whether a page's own many-to-one items come with the page's statement, joined after its LIMIT (see
   * ItemLoader), instead of with a statement of their own. Over a network that spares a round trip each. SQLite
   * runs statements in this process, where the derived table and the second sort cost more than the statement
   * they spare (1–24 % more CPU per list in interleaved `npm run bench` runs).
   */
  readonly joinsManyToOne: boolean
  /**
   * The aggregate that gathers rows into one JSON array of `[rank, key]` pairs, the rank and key columns given
   * as `??`. With it a one-item read's statement brings that item's one-to-many key lists (see ItemLoader),
   * each from a derived table that numbers its rows; the ranks carry the order, which no aggregate here
   * promises to keep.
   */
  readonly keyPairs: string
  /**
   * The API's reading of an error the driver threw while writing to `collection`, or null for one a client
   * cannot cause. PostgreSQL answers SQLSTATEs and names the key in `detail`; MySQL answers `ER_*` codes and
   * names an index, not a column, in its message; SQLite answers extended `SQLITE_CONSTRAINT_*` codes and names
   * `table.column` in its message.
   */
  recogniseError(error: DriverError, collection: Collection): RecognisedError | null
  /**
   * A value as the driver returned it, in the plain form the field type table parses (`fromDatabase`): text for
   * dates and exact numbers, text for bytes. pg builds Dates for date and timestamp columns and answers booleans
   * cast to text as 't'/'f'; mysql2 builds Dates and Buffers; better-sqlite3 answers numbers for numeric values
   * and Buffers for BLOBs. Every driver may answer numbers for big integers and decimals (insert ids, type parsers).
   * Columns in `readAsText` already arrive as text; this covers the rest and any value read some other way.
   */
  readValue(raw: unknown, type: FieldType): unknown
  /**
   * The fault a driver error stands for, or null. PostgreSQL: SQLSTATE classes 08 and 57P0x, pg's own
   * "Connection terminated" and "Query read timeout" messages, and 40P01/40001/55P03 for conflicts. MySQL:
   * mysql2's fatal protocol errors and ER_LOCK_DEADLOCK/ER_LOCK_WAIT_TIMEOUT. SQLite has no connection to lose,
   * only SQLITE_BUSY/SQLITE_LOCKED when another connection holds the database's write lock past busy_timeout.
   */
  recogniseFault(error: DriverError): Fault | null
  /**
   * Runs `work` in a transaction during which no other transaction run through here with the same `name`
   * is, so a read-then-write (create a singleton's row if it has none) cannot interleave. PostgreSQL takes
   * `pg_advisory_xact_lock` inside the transaction. MySQL's `GET_LOCK` belongs to the session, not the
   * transaction, so it is taken on the transaction's own connection before BEGIN and released after COMMIT.
   * SQLite runs one write transaction at a time on the database file anyway (knex's better-sqlite3 pool holds
   * one connection by default), so a plain transaction. None of these spans servers that take writes side by
   * side (GET_LOCK is local to a Galera node): the singleton's fixed key covers that case (see `saveSingleton`).
   */
  lockedTransaction<T>(knex: Knex, name: string, work: (trx: Knex.Transaction) => Promise<T>): Promise<T>
  /**
   * Locks the rows with these keys until the transaction ends, in key order, so that two writers of the same
   * rows queue up instead of deadlocking, and a check made after the lock still holds at commit.
   * `SELECT … ORDER BY key FOR UPDATE` on PostgreSQL and MySQL; nothing on SQLite, whose write transactions
   * already exclude each other.
   */
  lockRows(trx: Knex | Knex.Transaction, table: string, column: string, keys: readonly unknown[]): Promise<void>
  /**
   * Cancels every statement running whose text starts with `marker` (a SQL comment), from another pooled
   * connection; the cancelled statement fails and its connection stays usable. PostgreSQL signals the backends
   * with `pg_cancel_backend`; MySQL and MariaDB find the threads in the processlist and `KILL QUERY` them.
   * SQLite ends the reader threads (sqlite-reader.ts) running them; on the host's own better-sqlite3 connection
   * a statement runs synchronously on the event loop, so nothing can run beside it to interrupt it, and knex
   * instances whose client cannot cancel (`canCancelQuery`) get no statement timeout. null: no cancellation.
   */
  readonly cancelStatements: ((knex: Knex, marker: string) => Promise<unknown>) | null
  /**
   * Whether a driver error says the database stopped the statement on request: PostgreSQL's SQLSTATE 57014
   * (query_canceled, also its `statement_timeout`); MySQL's ER_QUERY_INTERRUPTED, MariaDB's
   * ER_STATEMENT_TIMEOUT (`max_statement_time`) and MySQL 8's ER_QUERY_TIMEOUT (`MAX_EXECUTION_TIME`). Never on SQLite.
   */
  isCancelled(error: DriverError): boolean
  /**
   * Reuse of prepared statements (`preparedStatements`). SQLite keeps better-sqlite3 `Statement` objects per
   * connection, on by default: they live in the process, cost nothing to keep and save a prepare per statement.
   * PostgreSQL names the statement (pg prepares it once per backend connection), off by default: a
   * transaction-pooling proxy such as PgBouncer (before 1.21 or without `max_prepared_statements`) hands the
   * next statement to a backend that never saw the name. null on MySQL and MariaDB: knex runs mysql2's `query`
   * (text protocol) and its `execute` would bind LIMIT values in a way MariaDB rejects, so nothing is reused.
   */
  readonly statementReuse: StatementReuse | null
  /**
   * CSV exports the database writes itself (see CsvCopy): PostgreSQL's COPY. null on SQLite and MySQL, whose
   * clients have no such path: the router writes every CSV cell.
   */
  readonly csvCopy: CsvCopy | null
  /**
   * The knex query options that have the driver answer rows as arrays, for exports that need no item objects:
   * pg's `rowMode: 'array'`, mysql2's `rowsAsArray`, and on SQLite an option of the router's kept statements,
   * which better-sqlite3 runs in raw mode. A driver that ignores them answers objects, read in column order.
   */
  readonly arrayRows: Readonly<Record<string, unknown>>
}

/** A column's type as the driver reports it: the type's id, and its modifier (a numeric's precision and scale). */
export interface ColumnType {
  readonly id: number
  readonly modifier: number
}

/** A column a CSV export reads: the field, its SQL (see storage.ts's `columnValue`), and its type. */
export interface CopiedColumn {
  readonly field: Field
  readonly value: SqlFragment
  readonly type: ColumnType
}

/**
 * An export's CSV written by the database, byte for byte what the router's own writer makes of the same items,
 * so that the rows never become objects in the process (PostgreSQL: COPY ... TO STDOUT).
 */
export interface CsvCopy {
  /**
   * The driver's type of each column `select` reads, or null when the session formats values in a way the cells
   * do not expect (a DateStyle other than ISO).
   */
  columnTypes(db: Knex, select: Knex.QueryBuilder): Promise<ColumnType[] | null>
  /** The SQL of each column's CSV cell, or null when some cell's text would differ from the router's. */
  cells(columns: readonly CopiedColumn[]): SqlFragment[] | null
  /**
   * Runs `select` in `trx` and resolves to its rows as CSV: cells as `cells` made them, lines ending in CRLF.
   * `known`: what this export has learnt of its statements so far (their parameters' types), kept by the caller
   * for the export's next chunks. `limits`: the request's marker and time limit (see statement-guard.ts's
   * requestLimits), which the statement carries as the router's others do.
   */
  copy(trx: Knex.Transaction, select: Knex.QueryBuilder, known: Map<string, readonly string[]>, limits: RequestLimits): Promise<Buffer>
  /** Whether `copy` failed on a value only the router spells as it should: that chunk is then read as arrays. */
  needsWriter(error: unknown): boolean
}

/** A request's limits for a statement the router sends past knex: the marker an abort cancels it by, and its time limit in milliseconds (0: none). */
export interface RequestLimits {
  readonly marker: string
  readonly statementTimeout: number
}

/** A statement as knex hands it to the driver: the compiled SQL, its values and knex's options for the driver. */
export interface DriverQuery {
  sql: string
  bindings?: readonly unknown[]
  options?: Record<string, unknown>
  response?: unknown
  context?: unknown
}

/** The statements kept on one connection, by SQL text; bounded (see kept-statements.ts). */
export interface KeptStatements {
  get(sql: string): unknown
  /** Keeps `statement` for `sql`; answers false, keeping nothing, when the connection keeps as many as it may. */
  keep(sql: string, statement: unknown): boolean
}

/**
 * How a driver reuses a statement prepared once on a connection (the `preparedStatements` option), in place of
 * knex's own run of it. Each gets the statement, the connection, what that connection keeps, and knex's run.
 */
export interface StatementReuse {
  /** Whether `preparedStatements` is on when the host leaves it unset, and why (see the dialect's value). */
  readonly byDefault: boolean
  /**
   * Whether reused statements would share their text across requests only without the per-request marker
   * comment, so that the request's statements must be cancelled by connection instead (see statement-guard.ts).
   */
  readonly unmarked: boolean
  /**
   * Whether a connection that keeps as many statements as it may drops the least recently used for a new one
   * (the driver lets go of a dropped statement), or keeps no more (the driver keeps every one it prepared).
   */
  readonly evicts: boolean
  run(
    query: DriverQuery,
    connection: unknown,
    kept: KeptStatements,
    knexRun: (query: DriverQuery) => Promise<DriverQuery>,
  ): Promise<DriverQuery>
}

/** The parts of a driver's error the dialects read; each driver sets its own subset. */
export interface DriverError {
  readonly code?: unknown
  readonly message?: unknown
  /** pg */
  readonly column?: unknown
  /** pg */
  readonly detail?: unknown
  /** pg */
  readonly constraint?: unknown
  /** pg: the server function that raised the error. */
  readonly routine?: unknown
  /** mysql2: the server's error number. */
  readonly errno?: unknown
  /** mysql2: the connection can no longer be used. */
  readonly fatal?: unknown
  /** knex */
  readonly name?: unknown
}
