// A RealtimeBroker over PostgreSQL LISTEN/NOTIFY, on a connection of its own that the host's `client` factory
// makes (a `pg.Client`): it listens there and notifies through it. A lost connection is made again, with a
// growing wait; once it listens again, the processes' subscribers are told they may have missed changes.
import { randomUUID } from 'node:crypto'
import { ConfigError } from '../../errors'
import type { Logger, RealtimeBroker, RealtimeBrokerHandlers } from '../../types'
import { decodeChange, encodeChange } from './broker-message'

/** The part of `pg.Client` the broker uses. */
export interface PostgresBrokerClient {
  connect(): Promise<unknown>
  query(text: string, values?: unknown[]): Promise<unknown>
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown
  on(event: 'error' | 'end', listener: (error?: Error) => void): unknown
  end(): Promise<unknown>
}

export interface PostgresBrokerOptions {
  /** Makes a new, unconnected client (`() => new pg.Client(url)`); called again after a lost connection. */
  client: () => PostgresBrokerClient
  /** The NOTIFY channel: the same on every process of one application, and no other's. @default 'items_realtime' */
  channel?: string
  /** Where connection failures are reported. @default console */
  logger?: Pick<Logger, 'error'>
}

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; the margin leaves room for the envelope. */
const MAX_PAYLOAD_BYTES = 7900
const FIRST_RETRY_MS = 100
const LAST_RETRY_MS = 5000
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/

export function createPostgresBroker(options: PostgresBrokerOptions): RealtimeBroker {
  const channel = options.channel ?? 'items_realtime'
  // The channel is an identifier in LISTEN, which takes no parameter: only a plain lower-case name is accepted.
  if (!CHANNEL.test(channel))
    throw new ConfigError('CONFIG_BAD_OPTION', 'createPostgresBroker: channel must be a plain lower-case identifier')
  const logger = options.logger ?? console
  const origin = randomUUID()
  let client: PostgresBrokerClient | null = null
  let handlers: RealtimeBrokerHandlers | null = null
  let stopped = false
  let retry: NodeJS.Timeout | undefined

  const listen = async (lost: boolean): Promise<void> => {
    const made = options.client()
    made.on('notification', (message) => {
      if (message.channel !== channel || message.payload === undefined) return
      const decoded = decodeChange(message.payload)
      if (decoded !== null && decoded.origin !== origin) handlers?.change(decoded.change)
    })
    let dropped = false
    const drop = (error?: Error): void => {
      if (dropped) return
      dropped = true
      if (client === made) client = null
      if (stopped) return
      logger.error('express-items-router: the realtime broker lost its PostgreSQL connection; reconnecting', error)
      made.end().catch(() => undefined)
      reconnect(FIRST_RETRY_MS)
    }
    made.on('error', drop)
    made.on('end', () => drop())
    await made.connect()
    await made.query(`LISTEN ${channel}`)
    client = made
    if (lost) handlers?.gap()
  }

  const reconnect = (wait: number): void => {
    retry = setTimeout(() => {
      listen(true).catch((error: unknown) => {
        if (stopped) return
        logger.error('express-items-router: the realtime broker could not reconnect to PostgreSQL', error)
        reconnect(Math.min(wait * 2, LAST_RETRY_MS))
      })
    }, wait)
  }

  return {
    async start(given) {
      handlers = given
      await listen(false)
    },
    async publish(change) {
      if (client === null) throw new Error('The realtime broker has no PostgreSQL connection')
      for (const payload of encodeChange(origin, change, MAX_PAYLOAD_BYTES))
        await client.query('SELECT pg_notify($1, $2)', [channel, payload])
    },
    async stop() {
      stopped = true
      clearTimeout(retry)
      const open = client
      client = null
      await open?.end()
    },
  }
}
