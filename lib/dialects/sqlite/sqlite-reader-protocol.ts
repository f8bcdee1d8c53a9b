// The messages between a SQLite reader connection (sqlite-reader.ts) and its worker thread
// (sqlite-reader-thread.ts).

/** What the thread is started with. */
export interface ReaderThreadData {
  /** The database file, as an absolute path. */
  readonly filename: string
  /** The path of the better-sqlite3 module the host's knex uses. */
  readonly driver: string
  /** better-sqlite3's `nativeBinding` option, when the host's knex sets one. */
  readonly nativeBinding?: string
}

/** One statement to run; bindings as better-sqlite3 takes them. */
export interface ReaderRequest {
  readonly id: number
  readonly sql: string
  readonly bindings: readonly unknown[]
  readonly safeIntegers?: boolean
}

/** A driver error, as plain data (an Error does not cross threads with its `code`). */
export interface ReaderError {
  readonly message: string
  readonly code?: string
  readonly name: string
}

/** The answer to one request: the rows of a reading statement, the outcome of another, or its error. */
export type ReaderReply =
  | { readonly id: number; readonly rows: unknown[] }
  | { readonly id: number; readonly run: { readonly changes: number; readonly lastInsertRowid: number | bigint } }
  | { readonly id: number; readonly error: ReaderError }

/** The first message of a thread: its database is open and the router's functions are registered. */
export interface ReaderReady {
  readonly ready: true
}
