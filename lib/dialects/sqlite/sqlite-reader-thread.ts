// The worker thread behind one connection of a SQLite reader (see sqlite-reader.ts): it opens the database file
// read-only, registers the router's SQL functions, and runs the statements it is sent, one at a time, through
// statements it keeps. Everything here blocks this thread only, never the host's event loop.
import { parentPort, workerData } from 'node:worker_threads'
import { StatementCache } from '../kept-statements'
import { prepareSqliteConnection } from './sqlite-functions'
import type { ReaderReady, ReaderReply, ReaderRequest, ReaderThreadData } from './sqlite-reader-protocol'

interface Statement {
  readonly reader: boolean
  all(bindings: readonly unknown[]): unknown[]
  run(bindings: readonly unknown[]): { lastInsertRowid: number | bigint; changes: number }
  safeIntegers(on: boolean): Statement
}
interface Database {
  prepare(sql: string): Statement
}
type DatabaseConstructor = new (
  filename: string,
  options: { readonly: boolean; fileMustExist: boolean; nativeBinding?: string },
) => Database

const { filename, driver, nativeBinding } = workerData as ReaderThreadData
const port = parentPort!
// The host's better-sqlite3, as its knex loaded it (the path comes from the main thread).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Driver = require(driver) as DatabaseConstructor
const db = new Driver(filename, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) })
prepareSqliteConnection(db)
const kept = new StatementCache(true)

function statementFor(sql: string, safeIntegers: boolean | undefined): Statement {
  // A statement with its own integer mode is prepared afresh, so no kept statement ever changes mode.
  if (safeIntegers !== undefined) return db.prepare(sql).safeIntegers(safeIntegers)
  let statement = kept.get(sql) as Statement | undefined
  if (statement === undefined) kept.keep(sql, (statement = db.prepare(sql)))
  return statement
}

function answer({ id, sql, bindings, safeIntegers }: ReaderRequest): ReaderReply {
  try {
    const statement = statementFor(sql, safeIntegers)
    if (statement.reader) return { id, rows: statement.all(bindings) }
    // The connection is read-only, so SQLite refuses a write with its own error.
    const { changes, lastInsertRowid } = statement.run(bindings)
    return { id, run: { changes, lastInsertRowid } }
  } catch (error) {
    const { message, code, name } = error as { message?: unknown; code?: unknown; name?: unknown }
    return { id, error: { message: String(message), code: typeof code === 'string' ? code : undefined, name: String(name) } }
  }
}

port.on('message', (request: ReaderRequest) => port.postMessage(answer(request)))
port.postMessage({ ready: true } satisfies ReaderReady)
