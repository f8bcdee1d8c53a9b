// A knex instance for reading a SQLite database file off the event loop: each of its connections is a worker
// thread with a read-only better-sqlite3 connection of its own (sqlite-reader-thread.ts). better-sqlite3 runs a
// statement on the calling thread from start to end, so on the host's own connection a read that scans a large
// table blocks every other request for as long as it runs; on a reader thread it blocks nothing, and a statement
// past its time limit or of a request that was aborted is stopped by ending its thread.
import { isAbsolute, resolve } from 'node:path'
import { Worker } from 'node:worker_threads'
import knexFactory, { type Knex } from 'knex'
import { ConfigError } from '../../errors'
import { currentRequest } from '../../request-state'
import type { ReaderError, ReaderReply, ReaderRequest, ReaderThreadData } from './sqlite-reader-protocol'

/** Options of `sqliteReader`. */
export interface SqliteReaderOptions {
  /**
   * Reader threads, each with its own connection, so as many reads run at once (default 1). More than the
   * machine's cores less one for the host gains nothing.
   */
  readonly threads?: number
  /** Milliseconds an idle thread is kept before it ends (default 30,000); the next read starts another. */
  readonly idleTimeoutMillis?: number
}

/** The parts of knex's better-sqlite3 client used here (knex's typings do not cover its dialect classes). */
interface BetterSqlite3Client {
  readonly connectionSettings: { readonly filename?: unknown; readonly options?: { readonly nativeBinding?: unknown } }
  _formatBindings(bindings: unknown): unknown[]
  _optSafeIntegers(options: unknown): boolean | undefined
}
/** What knex passes to a client's `_query`, and reads back from it. */
interface KnexQuery {
  sql: string
  bindings?: unknown
  options?: unknown
  response?: unknown
  context?: unknown
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const KnexBetterSqlite3 = require('knex/lib/dialects/better-sqlite3') as new (config: Knex.Config) => BetterSqlite3Client

/** A leading block comment: the router's request marker, which would make every statement's text unique. */
const LEADING_COMMENT = /^\/\*[^*]*\*\/\s*/

/** The thread's entry, beside this file: compiled JavaScript, or TypeScript where the library runs from source. */
function threadEntry(): { filename: string; execArgv: string[] } {
  const source = __filename.endsWith('.ts')
  return {
    filename: resolve(__dirname, `sqlite-reader-thread${source ? '.ts' : '.js'}`),
    execArgv: source ? ['--require', 'ts-node/register/transpile-only'] : [],
  }
}

const driverError = ({ message, code, name }: ReaderError): Error => Object.assign(new Error(message), { code, name })
/** A statement the reader stopped, or never ran. */
const readerError = (message: string, code: 'ITEMS_READER_STOPPED'): Error => Object.assign(new Error(message), { code })

/** One connection of the reader: a worker thread and the one statement it may be running. */
class ReaderThread {
  private waiting: { resolve: (reply: ReaderReply) => void; reject: (error: Error) => void } | null = null
  private nextId = 0
  private stopped = false
  /** The text of the statement running now, marker included, so that its request can cancel it. */
  running: string | null = null

  private constructor(private readonly worker: Worker) {}

  /** Starts a thread; resolves once its database is open, rejects with why it could not open it. */
  static open(data: ReaderThreadData): Promise<ReaderThread> {
    const entry = threadEntry()
    const worker = new Worker(entry.filename, { workerData: data, execArgv: entry.execArgv })
    // An idle reader the host forgot to destroy must not keep the process alive; a running statement does (run).
    worker.unref()
    const thread = new ReaderThread(worker)
    return new Promise((resolveOpen, rejectOpen) => {
      worker.once('message', () => {
        worker.on('message', (reply: ReaderReply) => thread.settle(reply))
        resolveOpen(thread)
      })
      worker.on('error', (error) => {
        thread.end(error)
        rejectOpen(error)
      })
      worker.on('exit', () => {
        const error = readerError('The SQLite reader thread stopped before the statement ended', 'ITEMS_READER_STOPPED')
        thread.end(error)
        rejectOpen(error)
      })
    })
  }

  get alive(): boolean {
    return !this.stopped
  }

  /** Runs one statement; `marked` is its text as the router sent it, for `cancelMarked`. */
  run(request: Omit<ReaderRequest, 'id'>, marked: string): Promise<ReaderReply> {
    if (this.stopped) return Promise.reject(new Error('The SQLite reader thread has stopped'))
    this.running = marked
    this.worker.ref()
    return new Promise((resolveRun, rejectRun) => {
      this.waiting = { resolve: resolveRun, reject: rejectRun }
      this.worker.postMessage({ ...request, id: (this.nextId += 1) })
    })
  }

  /** Ends the thread, and with it the statement it runs: SQLite cannot be interrupted from another thread. */
  async stop(): Promise<void> {
    this.stopped = true
    await this.worker.terminate()
  }

  private settle(reply: ReaderReply): void {
    const waiting = this.waiting
    this.waiting = null
    this.running = null
    this.worker.unref()
    if (waiting !== null && reply.id === this.nextId) waiting.resolve(reply)
  }

  private end(error: Error): void {
    this.stopped = true
    this.running = null
    this.waiting?.reject(error)
    this.waiting = null
  }
}

/** The knex client of a reader: knex's better-sqlite3 client, with each connection on a thread of its own. */
class SqliteReaderClient extends KnexBetterSqlite3 {
  private readonly threads = new Set<ReaderThread>()

  async acquireRawConnection(): Promise<ReaderThread> {
    const { filename, options } = this.connectionSettings
    const nativeBinding = typeof options?.nativeBinding === 'string' ? options.nativeBinding : undefined
    const thread = await ReaderThread.open({ filename: String(filename), driver: require.resolve('better-sqlite3'), nativeBinding })
    this.threads.add(thread)
    return thread
  }

  async destroyRawConnection(thread: ReaderThread): Promise<void> {
    this.threads.delete(thread)
    await thread.stop()
  }

  /** A thread that was stopped (a cancelled statement) goes back to the pool dead: knex then opens another. */
  validateConnection(thread: ReaderThread): boolean {
    return thread.alive
  }

  async _query(thread: ReaderThread, query: KnexQuery): Promise<KnexQuery> {
    // A request aborted before its statement reached a thread has nothing to cancel yet: it is not sent at all.
    if (currentRequest()?.aborted === true) throw readerError('The request was aborted before its statement ran', 'ITEMS_READER_STOPPED')
    const request = {
      sql: query.sql.replace(LEADING_COMMENT, ''),
      bindings: this._formatBindings(query.bindings),
      safeIntegers: this._optSafeIntegers(query.options),
    }
    const reply = await thread.run(request, query.sql)
    if ('error' in reply) throw driverError(reply.error)
    if ('rows' in reply) {
      query.response = reply.rows
      return query
    }
    query.response = reply.run
    query.context = { lastID: reply.run.lastInsertRowid, changes: reply.run.changes }
    return query
  }

  /** knex's statement timeout: the thread running the statement ends. */
  async cancelQuery(thread: ReaderThread): Promise<void> {
    await thread.stop()
  }

  /** Ends the threads running a statement whose text starts with `marker` (the router's request marker). */
  async cancelMarked(marker: string): Promise<void> {
    const marked = [...this.threads].filter((thread) => thread.running?.startsWith(marker) === true)
    await Promise.all(marked.map((thread) => thread.stop()))
  }
}
Object.assign(SqliteReaderClient.prototype, { canCancelQuery: true })

/**
 * Whether a knex instance is a SQLite reader: it keeps its own statements and registers the router's functions,
 * and each of its statements is a message to a worker thread.
 */
export function isSqliteReader(knex: Knex): boolean {
  return knex.client instanceof SqliteReaderClient
}

/** Cancels a request's statements running on a reader's threads; nothing for any other knex instance. */
export async function cancelReaderStatements(knex: Knex, marker: string): Promise<void> {
  if (knex.client instanceof SqliteReaderClient) await knex.client.cancelMarked(marker)
}

/** The file of a better-sqlite3 knex instance's database, or why a reader cannot open it. */
function databaseFile(knex: Knex): string {
  const client = knex.client as Partial<BetterSqlite3Client> & { driverName?: unknown }
  const filename = client.connectionSettings?.filename
  if (client.driverName !== 'better-sqlite3' || isSqliteReader(knex)) {
    throw new ConfigError('CONFIG_BAD_OPTION', 'sqliteReader(knex) needs the host knex instance of a better-sqlite3 database')
  }
  if (typeof filename !== 'string' || filename === '' || filename.includes(':memory:') || filename.startsWith('file:')) {
    throw new ConfigError(
      'CONFIG_BAD_OPTION',
      'sqliteReader(knex) needs a database file: an in-memory database cannot be opened from another thread',
    )
  }
  return isAbsolute(filename) ? filename : resolve(filename)
}

/** Throws unless the database file exists and is in WAL mode. */
function checkWal(knex: Knex, filename: string): void {
  type Driver = new (
    filename: string,
    options: { readonly: boolean; fileMustExist: boolean },
  ) => {
    pragma(source: string, options: { simple: true }): unknown
    close(): void
  }
  let mode: unknown
  try {
    const db = new (knex.client as { driver: Driver }).driver(filename, { readonly: true, fileMustExist: true })
    try {
      mode = db.pragma('journal_mode', { simple: true })
    } finally {
      db.close()
    }
  } catch (error) {
    throw new ConfigError('CONFIG_BAD_OPTION', `sqliteReader(knex) cannot open ${filename}: ${(error as Error).message}`)
  }
  if (mode !== 'wal') {
    throw new ConfigError(
      'CONFIG_BAD_OPTION',
      `sqliteReader(knex) needs the database in WAL mode (it is in "${String(mode)}" mode), so that reads and writes ` +
        "do not wait for each other: run knex.raw('PRAGMA journal_mode = WAL') once, before the reader is created",
    )
  }
}

/**
 * A knex instance that reads the database file of `knex` (a better-sqlite3 instance) on worker threads. Pass it
 * as the router's `replica`: reads of GET, HEAD and SEARCH requests then run on a reader thread, off the event
 * loop, while writes and everything in a transaction stay on `knex`. The threads see every committed write at
 * once (one file, no lag). Needs a database file in WAL mode; the host owns the instance and destroys it
 * (`await reader.destroy()`) when it closes its own.
 *
 * @example
 * const reader = sqliteReader(knex)
 * app.use('/api', createItemsRouter({ knex, collections, replica: { knex: reader } }))
 */
export function sqliteReader(knex: Knex, options: SqliteReaderOptions = {}): Knex {
  const { threads = 1, idleTimeoutMillis = 30_000 } = options
  if (!Number.isInteger(threads) || threads < 1)
    throw new ConfigError('CONFIG_BAD_OPTION', 'sqliteReader: threads must be a whole number ≥ 1')
  const filename = databaseFile(knex)
  checkWal(knex, filename)
  const settings = knex.client.connectionSettings as { options?: object }
  return knexFactory({
    client: SqliteReaderClient as unknown as typeof Knex.Client,
    connection: { filename, ...(settings.options ? { options: settings.options } : {}) },
    useNullAsDefault: true,
    pool: { min: 0, max: threads, idleTimeoutMillis },
  })
}
