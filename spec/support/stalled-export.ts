// Exports a client stops reading: the app served on a Unix socket, and a client that asks for an export, reads its
// first bytes and then nothing. A Unix socket's kernel buffer holds a couple of hundred KB where loopback TCP may
// hold tens of MB, so the server's writes wait after a few large rows.
import type { Express } from 'express'
import type { Knex } from 'knex'
import { rmSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import { join } from 'node:path'

/** Each row's text in a table of large rows: 40 of them are far more than a Unix socket's kernel buffer holds. */
export const LARGE_BODY = 'x'.repeat(100_000)

/** A collection of large rows, to stall an export on: an integer key and a text body. */
export const largeRows = {
  fields: {
    id: { type: 'integer', primaryKey: true, autoIncrement: true },
    body: { type: 'text' },
  },
} as const

/** Makes `table` afresh for `largeRows` and fills it with `rows` rows of `LARGE_BODY`. */
export async function createLargeRows(knex: Knex, table: string, rows: number): Promise<void> {
  await knex.schema.dropTableIfExists(table)
  await knex.schema.createTable(table, (columns) => {
    columns.increments('id')
    // MySQL's `text` holds 64 KB; the other databases ignore the type's name.
    columns.text('body', 'mediumtext')
  })
  for (let row = 0; row < rows; row++) await knex(table).insert({ body: LARGE_BODY })
}

let sockets = 0

/** `app` on a Unix socket of its own (its name holds the process id and a counter), closed with its connections. */
export async function serveOnSocket(app: Express): Promise<{ path: string; close(): Promise<void> }> {
  const path = join(os.tmpdir(), `items-stalled-export-${process.pid}-${sockets++}.sock`)
  rmSync(path, { force: true })
  const server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(path, resolve))
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A client that sends `GET url` and reads its first bytes (`head`), then nothing until it is resumed. */
export function stalledClient(path: string, url: string): Promise<{ socket: net.Socket; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(path, () => socket.write(`GET ${url} HTTP/1.1\r\nHost: localhost\r\n\r\n`))
    socket.once('data', (data: Buffer) => {
      socket.pause()
      resolve({ socket, head: data.toString('latin1', 0, 200) })
    })
    socket.once('error', reject)
  })
}
