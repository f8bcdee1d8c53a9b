// Attaches the realtime endpoint to the host's HTTP server: answers upgrades at the configured path (others are
// left to the host's own listeners), authenticates them, holds the connections, the heartbeat and the broker.
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import { resolveCaller } from '../handlers/request'
import type { Request } from 'express'
import type { ItemsContext, ItemsEvent, Realtime, RealtimeChange, RealtimeOptions } from '../types'
import { ChangeFeed } from './change-feed'
import { CLOSE } from './close-codes'
import { Connection } from './connection'
import { realtimeConfig, type RealtimeConfig } from './realtime-config'
import type { RealtimeSeam } from './realtime-seam'

const WRITE_EVENTS = ['items.create', 'items.update', 'items.delete'] as const

/** The upgrade URL's path and its `access_token`, read without trusting the Host header. */
function upgradeTarget(req: IncomingMessage): { path: string; token: string | null } {
  const url = new URL(req.url ?? '/', 'http://upgrade.invalid')
  return { path: url.pathname, token: url.searchParams.get('access_token') }
}

function refuse(socket: Duplex, status: 401 | 500, text: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
  )
}

/**
 * The caller of an upgrade: from its URL token (refused: null), else from the router's `context` with public
 * access, else nobody yet (the connection must send `auth`).
 */
async function upgradeCaller(
  req: IncomingMessage,
  token: string | null,
  config: RealtimeConfig,
  seam: RealtimeSeam,
): Promise<ItemsContext | null | 'refused'> {
  if (token !== null) {
    const caller = config.authenticate ? await config.authenticate(token, req) : null
    return caller ?? 'refused'
  }
  if (!config.publicAccess) return null
  // The upgrade request is the request the host's `context` sees: its headers, URL and socket.
  return resolveCaller(seam.services.context, req as Request)
}

export function attachRealtime(seam: RealtimeSeam, server: Server, options?: RealtimeOptions): Realtime {
  const config = realtimeConfig(options)
  const { logger, lifecycle } = seam.services
  const feed = new ChangeFeed(seam, logger)
  const connections = new Set<Connection>()
  const sockets = new WebSocketServer({ noServer: true, maxPayload: config.maxMessageBytes })
  let closing = false

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const { path, token } = upgradeTarget(req)
    if (path !== config.path) return
    if (closing) return refuse(socket, 500, 'Shutting down')
    upgradeCaller(req, token, config, seam).then(
      (caller) => {
        if (caller === 'refused') return refuse(socket, 401, 'Unauthorized')
        sockets.handleUpgrade(req, socket, head, (ws: WebSocket) => {
          if (connections.size >= config.maxConnections || closing) {
            ws.close(CLOSE.TOO_MANY_CONNECTIONS.code, CLOSE.TOO_MANY_CONNECTIONS.reason)
            return
          }
          connections.add(new Connection(ws, req, caller, config, seam, feed, (closed) => connections.delete(closed)))
        })
      },
      (error: unknown) => {
        logger.error('express-items-router: authenticating a realtime upgrade failed', error)
        refuse(socket, 401, 'Unauthorized')
      },
    )
  }
  server.on('upgrade', onUpgrade)

  const { broker } = config
  const onWrite = (event: ItemsEvent): void => {
    const change: RealtimeChange = { action: event.action, collection: event.collection, keys: event.keys }
    feed.changed(change)
    broker
      ?.publish(change)
      .catch((error: unknown) => logger.error('express-items-router: realtime could not publish a write to the broker', error))
  }
  for (const name of WRITE_EVENTS) lifecycle.events.on(name, onWrite)
  const started = broker?.start({
    change: (change) => feed.changed(change),
    // Writes published while the engine was out of reach are lost: each subscription is read afresh.
    gap: () => {
      for (const connection of connections) void connection.refresh()
    },
  })
  const ready = started ?? Promise.resolve()
  ready.catch((error: unknown) => logger.error('express-items-router: the realtime broker did not start', error))

  const heartbeat =
    config.heartbeatInterval > 0
      ? setInterval(() => {
          for (const connection of connections) connection.heartbeat()
        }, config.heartbeatInterval).unref()
      : undefined

  return {
    get connections() {
      return connections.size
    },
    get subscriptions() {
      return feed.size
    },
    ready,
    async close() {
      if (closing) return
      closing = true
      server.off('upgrade', onUpgrade)
      clearInterval(heartbeat)
      for (const name of WRITE_EVENTS) lifecycle.events.off(name, onWrite)
      await Promise.all([...connections].map((connection) => connection.close(CLOSE.SHUTDOWN)))
      await new Promise<void>((resolve) => sockets.close(() => resolve()))
      await feed.settled()
      await started?.catch(() => undefined)
      await broker?.stop()
    },
  }
}
