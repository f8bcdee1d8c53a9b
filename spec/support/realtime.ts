// Test support for realtime: a host HTTP server running the router with realtime attached, on a port of its own,
// and a WebSocket client that keeps every frame it receives, so a spec can wait for the next one that matches.
import express from 'express'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Knex } from 'knex'
import WebSocket from 'ws'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type ItemsRouter, type ItemsRouterOptions, type Realtime, type RealtimeOptions } from '../../lib'
import { recordingLogger } from './app'

export type Frame = Record<string, unknown>

export interface RealtimeHost {
  readonly server: Server
  readonly router: ItemsRouter
  readonly realtime: Realtime
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** `ws://127.0.0.1:<port>/api/websocket` */
  readonly wsUrl: string
  close(): Promise<void>
}

/** Tokens the specs' `authenticate` accepts: `token-<role>` acts as that role. */
export const tokenCaller = (token: string): { role: string } | null => (token.startsWith('token-') ? { role: token.slice(6) } : null)

export async function startRealtimeHost(
  knex: Knex,
  realtimeOptions: RealtimeOptions = {},
  routerOptions: Partial<ItemsRouterOptions> = {},
): Promise<RealtimeHost> {
  const router = createItemsRouter({ knex, collections, logger: recordingLogger(), defaultAccess: true, ...routerOptions })
  const app = express().use('/api', router)
  const server = createServer(app)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const realtime = router.attachRealtime(server, { path: '/api/websocket', authenticate: tokenCaller, ...realtimeOptions })
  return {
    server,
    router,
    realtime,
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/api/websocket`,
    async close() {
      await realtime.close()
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

/** A WebSocket client that keeps what it receives. */
export class TestClient {
  readonly frames: Frame[] = []
  private taken = 0
  private readonly waiters: (() => void)[] = []
  closed: { code: number; reason: string } | null = null

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.frames.push(JSON.parse(data.toString()) as Frame)
      this.waiters.splice(0).forEach((wake) => wake())
    })
    socket.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() }
      this.waiters.splice(0).forEach((wake) => wake())
    })
  }

  /** Opens a connection; with `token`, authenticates it by handshake before resolving. */
  static async open(url: string, token?: string): Promise<TestClient> {
    const socket = new WebSocket(url)
    const client = new TestClient(socket)
    await once(socket, 'open')
    if (token !== undefined) {
      client.send({ type: 'auth', access_token: token })
      expect(await client.next()).toEqual({ type: 'auth', status: 'ok' })
    }
    return client
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  /**
   * The next frame not taken yet that matches `match` (every frame by default); frames before it are skipped.
   * The wait is generous because a loaded CI machine is slow; a frame that never comes still fails the spec.
   */
  async next(match: (frame: Frame) => boolean = () => true, timeoutMs = 10_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      while (this.taken < this.frames.length) {
        const frame = this.frames[this.taken++]!
        if (match(frame)) return frame
      }
      if (this.closed) throw new Error(`closed (${this.closed.code} ${this.closed.reason}) while waiting for a frame`)
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; received ${JSON.stringify(this.frames)}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  /** The next frame answering `uid`. */
  answer(uid: string): Promise<Frame> {
    return this.next((frame) => frame.uid === uid)
  }

  /** Sends `message` and waits for the frame answering its uid. */
  async ask(message: Frame & { uid: string }): Promise<Frame> {
    this.send(message)
    return this.answer(message.uid)
  }

  /** The frames answering `uid` that arrive within `ms` (for asserting that nothing, or nothing more, came). */
  async quiet(uid: string, ms = 300): Promise<Frame[]> {
    await new Promise((resolve) => setTimeout(resolve, ms))
    const late = this.frames.slice(this.taken).filter((frame) => frame.uid === uid)
    this.taken = this.frames.length
    return late
  }

  async closedWith(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    if (!this.closed) {
      let timer: NodeJS.Timeout | undefined
      await Promise.race([once(this.socket, 'close'), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
      clearTimeout(timer)
    }
    if (!this.closed) throw new Error('the connection is still open')
    return this.closed
  }

  close(): void {
    this.socket.close()
  }
}
