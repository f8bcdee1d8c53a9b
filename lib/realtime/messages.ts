// The frames of the Directus realtime protocol (see shared REFERENCE-REALTIME.md): what a client may send, read
// into typed messages, and the frames the server answers with. Every error names the uid it answers, when the
// message had one, where Directus leaves it out of some (a bad `event`, a missing `collection`).
import { isPlainObject } from '../is-plain-object'
import type { WriteAction } from '../types'

/** A client's label for a request, echoed in every answer to it. */
export type Uid = string | number

/** The longest uid taken: it is echoed in every answer, so it is bounded like any other input. */
const MAX_UID_LENGTH = 200

export type SubscriptionEvent = 'init' | WriteAction | 'unsubscribe'

export interface AuthMessage {
  readonly type: 'auth'
  readonly uid?: Uid
  readonly token: string | null
}

export interface SubscribeMessage {
  readonly type: 'subscribe'
  readonly uid?: Uid
  readonly collection: string
  readonly event: WriteAction | null
  /** The query in its JSON form or its query-string form (`fields: "id,name"`, `filter: "{...}"`). */
  readonly query: Readonly<Record<string, unknown>>
}

export interface UnsubscribeMessage {
  readonly type: 'unsubscribe'
  readonly uid?: Uid
}

export interface PingMessage {
  readonly type: 'ping' | 'pong'
  readonly uid?: Uid
}

export type ItemsAction = 'read' | 'create' | 'update' | 'delete'

export interface ItemsMessage {
  readonly type: 'items'
  readonly uid?: Uid
  readonly action: ItemsAction
  readonly collection: string
  readonly query: Readonly<Record<string, unknown>>
  readonly data: unknown
  readonly id: unknown
  readonly ids: unknown
}

export type ClientMessage = AuthMessage | SubscribeMessage | UnsubscribeMessage | PingMessage | ItemsMessage

/** A message the server could not take: answered with an error frame, the connection stays open. */
export class MessageError extends Error {
  constructor(
    /** The `type` of the answer: the message's own type, or `server` when it had none. */
    readonly type: string,
    readonly code: string,
    message: string,
    readonly uid: Uid | undefined,
  ) {
    super(message)
  }
}

const WRITE_EVENTS: readonly string[] = ['create', 'update', 'delete'] satisfies WriteAction[]
const ITEMS_ACTIONS: readonly string[] = ['read', 'create', 'update', 'delete'] satisfies ItemsAction[]

function uidOf(message: Record<string, unknown>): Uid | undefined {
  const { uid } = message
  if (uid === undefined) return undefined
  if ((typeof uid === 'string' && uid.length <= MAX_UID_LENGTH) || (typeof uid === 'number' && Number.isFinite(uid))) return uid
  throw new MessageError(
    'server',
    'INVALID_PAYLOAD',
    `"uid" must be a string of at most ${MAX_UID_LENGTH} characters or a number`,
    undefined,
  )
}

function queryOf(message: Record<string, unknown>, type: string, uid: Uid | undefined): Readonly<Record<string, unknown>> {
  const { query } = message
  if (query === undefined || query === null) return {}
  if (!isPlainObject(query)) throw new MessageError(type, 'INVALID_PAYLOAD', '"query" must be an object', uid)
  return query
}

function collectionOf(message: Record<string, unknown>, type: string, uid: Uid | undefined): string {
  const { collection } = message
  if (typeof collection !== 'string' || collection === '') {
    throw new MessageError(type, 'INVALID_PAYLOAD', '"collection" must be the name of a collection', uid)
  }
  return collection
}

/** Reads one text frame into a typed message; throws a MessageError naming what is wrong. */
export function readMessage(text: string): ClientMessage {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new MessageError('server', 'INVALID_PAYLOAD', 'The message is not JSON', undefined)
  }
  if (!isPlainObject(parsed)) throw new MessageError('server', 'INVALID_PAYLOAD', 'A message must be a JSON object', undefined)
  const uid = uidOf(parsed)
  const { type } = parsed
  if (typeof type !== 'string') throw new MessageError('server', 'INVALID_PAYLOAD', 'A message needs a "type"', uid)
  switch (type) {
    case 'auth': {
      const token = parsed.access_token
      if (token !== undefined && token !== null && typeof token !== 'string') {
        throw new MessageError('auth', 'INVALID_PAYLOAD', '"access_token" must be a string', uid)
      }
      return { type, uid, token: token ?? null }
    }
    case 'subscribe': {
      const collection = collectionOf(parsed, type, uid)
      const { event } = parsed
      if (event !== undefined && event !== null && !WRITE_EVENTS.includes(event as string)) {
        throw new MessageError(type, 'INVALID_PAYLOAD', '"event" must be "create", "update" or "delete"', uid)
      }
      return { type, uid, collection, event: (event ?? null) as WriteAction | null, query: queryOf(parsed, type, uid) }
    }
    case 'unsubscribe':
    case 'ping':
    case 'pong':
      return { type, uid }
    case 'items': {
      const collection = collectionOf(parsed, type, uid)
      const { action } = parsed
      if (typeof action !== 'string' || !ITEMS_ACTIONS.includes(action)) {
        throw new MessageError(type, 'INVALID_PAYLOAD', '"action" must be "read", "create", "update" or "delete"', uid)
      }
      return {
        type,
        uid,
        collection,
        action: action as ItemsAction,
        query: queryOf(parsed, type, uid),
        data: parsed.data,
        id: parsed.id,
        ids: parsed.ids,
      }
    }
    default:
      throw new MessageError(type, 'INVALID_PAYLOAD', `There is no message type "${type}"`, uid)
  }
}

/** An object with `uid` last, and only when there is one: the SDK matches answers by it. */
const withUid = <T extends object>(frame: T, uid: Uid | undefined): T & { uid?: Uid } => (uid === undefined ? frame : { ...frame, uid })

export const errorFrame = (type: string, code: string, message: string, uid: Uid | undefined): object =>
  withUid({ type, status: 'error', error: { code, message } }, uid)

export const authOkFrame = (uid: Uid | undefined): object => withUid({ type: 'auth', status: 'ok' }, uid)

export const subscriptionFrame = (event: SubscriptionEvent, data: unknown, uid: Uid | undefined): object =>
  withUid(data === undefined ? { type: 'subscription', event } : { type: 'subscription', event, data }, uid)

export const itemsFrame = (data: unknown, uid: Uid | undefined): object => withUid({ type: 'items', data }, uid)

export const pingFrame = (type: 'ping' | 'pong', uid?: Uid): object => withUid({ type }, uid)
