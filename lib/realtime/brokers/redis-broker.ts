// A RealtimeBroker over Redis pub/sub, with the host's node-redis client (`createClient()` from `redis`):
// it publishes through that client and subscribes through a duplicate of it. node-redis reconnects and
// subscribes again by itself; when its subscriber is ready again after a loss, subscribers are told they may
// have missed changes.
import { randomUUID } from 'node:crypto'
import type { Logger, RealtimeBroker } from '../../types'
import { decodeChange, encodeChange } from './broker-message'

/** The part of a node-redis client the broker uses. */
export interface RedisBrokerClient {
  readonly isOpen: boolean
  connect(): Promise<unknown>
  duplicate(): RedisBrokerClient
  publish(channel: string, message: string): Promise<unknown>
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>
  on(event: 'ready' | 'end' | 'reconnecting' | 'error', listener: (error?: Error) => void): unknown
  quit(): Promise<unknown>
}

export interface RedisBrokerOptions {
  /** The host's client; connected (and closed at `stop()`) by the broker if it is not open yet. A duplicate subscribes. */
  client: RedisBrokerClient
  /** The pub/sub channel: the same on every process of one application, and no other's. @default 'items:realtime' */
  channel?: string
  /** Where connection failures are reported. @default console */
  logger?: Pick<Logger, 'error'>
}

/** Redis takes messages of up to 512 MB; parts keep one change from holding the connection for long. */
const MAX_MESSAGE_BYTES = 64 * 1024

export function createRedisBroker(options: RedisBrokerOptions): RealtimeBroker {
  const channel = options.channel ?? 'items:realtime'
  const logger = options.logger ?? console
  const origin = randomUUID()
  const publisher = options.client
  let subscriber: RedisBrokerClient | null = null
  let stopped = false
  /** Set when the broker opened the host's client: it then closes it too. */
  let opened = false

  return {
    async start(handlers) {
      if (!publisher.isOpen) {
        await publisher.connect()
        opened = true
      }
      const made = publisher.duplicate()
      subscriber = made
      let lost = false
      made.on('error', (error) => {
        if (!stopped) logger.error('express-items-router: the realtime broker lost its Redis connection; reconnecting', error)
      })
      made.on('reconnecting', () => {
        lost = true
      })
      made.on('ready', () => {
        if (!lost || stopped) return
        lost = false
        handlers.gap()
      })
      await made.connect()
      await made.subscribe(channel, (message) => {
        const decoded = decodeChange(message)
        if (decoded !== null && decoded.origin !== origin) handlers.change(decoded.change)
      })
    },
    async publish(change) {
      for (const message of encodeChange(origin, change, MAX_MESSAGE_BYTES)) await publisher.publish(channel, message)
    },
    async stop() {
      stopped = true
      const open = subscriber
      subscriber = null
      if (open?.isOpen) await open.quit()
      if (opened && publisher.isOpen) await publisher.quit()
    },
  }
}
