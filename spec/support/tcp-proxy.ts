// Test support: a TCP proxy between a knex pool and its database that specs can cut, blackhole or make deaf.
import net from 'node:net'
import type { Knex } from 'knex'
import { knexConfig } from './databases'
import type { DialectContext } from './dialects'

/** Where the specs' PostgreSQL or MySQL server listens: what a proxy in front of it forwards to. */
export function serverAddress(ctx: DialectContext): { host: string; port: number } {
  const direct = knexConfig(ctx.name).connection
  if (ctx.name === 'postgres') {
    const url = new URL((direct as { connectionString: string }).connectionString)
    return { host: url.hostname, port: Number(url.port || 5432) }
  }
  const { host, port } = direct as Knex.MySql2ConnectionConfig
  return { host: host ?? '127.0.0.1', port: port ?? 3306 }
}

export type ProxyMode = 'pass' | 'down' | 'blackhole' | 'repliesLost'

export class TcpProxy {
  private mode: ProxyMode = 'pass'
  private readonly sockets = new Set<net.Socket>()
  private readonly server: net.Server

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
    server: net.Server,
  ) {
    this.server = server
    server.on('connection', (client) => this.accept(client))
  }

  /** Listens on an ephemeral port of 127.0.0.1. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return new TcpProxy(target, (server.address() as net.AddressInfo).port, server)
  }

  /** Drops every open connection and refuses new ones: a database that went away. */
  cut(): void {
    this.mode = 'down'
    for (const socket of this.sockets) socket.destroy()
    this.sockets.clear()
  }

  /** Keeps connections open but forwards nothing, either way: a silent network partition. */
  blackhole(): void {
    this.mode = 'blackhole'
  }

  /** Forwards what the client sends, but no reply: the database gets the statements, the client no answer. */
  loseReplies(): void {
    this.mode = 'repliesLost'
  }

  /** Forwards again (connections dropped meanwhile stay dropped). */
  restore(): void {
    this.mode = 'pass'
  }

  async close(): Promise<void> {
    this.cut()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private accept(client: net.Socket): void {
    if (this.mode === 'down') {
      client.destroy()
      return
    }
    const upstream = net.connect(this.target.port, this.target.host)
    this.sockets.add(client).add(upstream)
    const forward = (from: net.Socket, to: net.Socket, passesIn: ProxyMode[]): void => {
      from.on('data', (chunk) => {
        if (passesIn.includes(this.mode)) to.write(chunk)
      })
      from.on('error', () => to.destroy())
      from.on('close', () => {
        this.sockets.delete(from)
        to.destroy()
      })
    }
    forward(client, upstream, ['pass', 'repliesLost'])
    forward(upstream, client, ['pass'])
  }
}
