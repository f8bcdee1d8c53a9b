// Forwards a router's write events to other processes through PostgreSQL LISTEN/NOTIFY, so every process of a
// scaled-out app hears every write (cache invalidation, realtime). An example to copy, not part of the package.
import { randomUUID } from 'node:crypto'
import type { Knex } from 'knex'
import type { ItemsEvent, ItemsEvents, PrimaryKey, WriteAction } from '../lib'

/** What crosses the wire: the event without its `context` (the caller's user and role stay in their process). */
export interface ForwardedEvent {
  readonly action: WriteAction
  readonly collection: string
  readonly keys: PrimaryKey[]
  /** Absent when the values did not fit in one notification: listeners read the items by key instead. */
  readonly payloads?: unknown[]
  /** The sending process's id, so it can skip its own events (it already heard them in process). */
  readonly origin: string
}

/** NOTIFY refuses a payload of 8000 bytes or more (the server's default page size less its header). */
export const MAX_PAYLOAD_BYTES = 7999

const ACTIONS: readonly WriteAction[] = ['create', 'update', 'delete']

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

/**
 * The notifications for one event, each under the size limit: the whole event when it fits, else its keys
 * without the payloads, split into as many notifications as the keys need.
 */
export function notifications(event: ItemsEvent, origin: string): string[] {
  const whole = JSON.stringify({ action: event.action, collection: event.collection, keys: event.keys, payloads: event.payloads, origin })
  if (bytes(whole) <= MAX_PAYLOAD_BYTES) return [whole]
  const messages: string[] = []
  let keys: PrimaryKey[] = []
  const message = (part: PrimaryKey[]): string => JSON.stringify({ action: event.action, collection: event.collection, keys: part, origin })
  for (const key of event.keys) {
    if (keys.length > 0 && bytes(message([...keys, key])) > MAX_PAYLOAD_BYTES) {
      messages.push(message(keys))
      keys = []
    }
    keys.push(key)
  }
  if (keys.length > 0) messages.push(message(keys))
  return messages
}

/**
 * Sends every write event of `events` as a NOTIFY on `channel` through `knex` (the primary; a pooled connection,
 * also behind PgBouncer in transaction mode, where NOTIFY works). Answers the function that stops forwarding.
 * Events are emitted after commit, so a listener never hears of a write that rolled back; a notification lost
 * with its connection is lost, so treat them as hints to re-read, not as a log.
 */
export function forwardEvents(events: ItemsEvents, knex: Knex, channel: string, origin: string = randomUUID()): () => void {
  const send = async (event: ItemsEvent): Promise<void> => {
    for (const payload of notifications(event, origin)) await knex.raw('select pg_notify(?, ?)', [channel, payload])
  }
  const listeners = ACTIONS.map((action) => [`items.${action}`, send] as const)
  for (const [name, listener] of listeners) events.on(name, listener)
  return () => {
    for (const [name, listener] of listeners) events.off(name, listener)
  }
}

/** The parts of a pg client the listener uses (pg's own types are not a dependency here). */
interface NotifyingClient {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void
  query(sql: string): Promise<unknown>
  escapeIdentifier(name: string): string
}

/**
 * Listens on `channel` on a connection of its own, opened through `knex` outside its pool. LISTEN belongs to
 * the session, so `knex` must reach the PostgreSQL server itself, never a transaction-mode pooler.
 * Answers the function that stops listening and closes that connection.
 */
export async function listenToEvents(knex: Knex, channel: string, onEvent: (event: ForwardedEvent) => void): Promise<() => Promise<void>> {
  const client = (await knex.client.acquireRawConnection()) as NotifyingClient
  client.on('notification', (message) => {
    if (message.channel === channel && message.payload !== undefined) onEvent(JSON.parse(message.payload) as ForwardedEvent)
  })
  // LISTEN takes an identifier, not a bound value; the channel is quoted as one.
  await client.query(`LISTEN ${client.escapeIdentifier(channel)}`)
  return () => knex.client.destroyRawConnection(client) as Promise<void>
}
