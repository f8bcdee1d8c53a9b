// One client's WebSocket: its caller (once authenticated), its subscriptions, and the answer to each message.
// A message that fails is answered with an error frame carrying its uid; the connection and its other
// subscriptions go on. Only authentication failures, the limits and shutdown close a connection.
import type { IncomingMessage } from 'node:http'
import { WebSocket } from 'ws'
import { CallerAccess } from '../access/caller-access'
import { ForbiddenError, ItemsError, ItemsErrorList } from '../errors'
import type { ItemsContext } from '../types'
import type { ChangeFeed, Watcher } from './change-feed'
import { CLOSE } from './close-codes'
import { runItemsAction } from './items-actions'
import {
  authOkFrame,
  errorFrame,
  MessageError,
  pingFrame,
  readMessage,
  subscriptionFrame,
  type AuthMessage,
  type ClientMessage,
  type SubscribeMessage,
  type Uid,
} from './messages'
import type { RealtimeConfig } from './realtime-config'
import type { RealtimeSeam } from './realtime-seam'
import { Subscription } from './subscription'
import { keyedItems, keyedQuery, parseSocketQuery } from './subscription-query'

/** How long a closing slow consumer may take to read its close frame before its socket is destroyed. */
const CLOSE_GRACE_MS = 5000

/** A subscription without a uid, kept under a key no uid can have. */
let unnamed = 0
const uidKey = (uid: Uid | undefined): string => (uid === undefined ? `\u0000${unnamed++}` : `${typeof uid}:${uid}`)

export class Connection {
  /** Null until the connection has authenticated (or at once with a URL token or public access). */
  private caller: ItemsContext | null
  private readonly watchers = new Map<string, Watcher>()
  private authTimer: NodeJS.Timeout | undefined
  /** Set when the server pinged and the client has not answered yet. */
  awaitingPong = false
  private closed = false

  constructor(
    private readonly socket: WebSocket,
    private readonly req: IncomingMessage,
    caller: ItemsContext | null,
    private readonly config: RealtimeConfig,
    private readonly seam: RealtimeSeam,
    private readonly feed: ChangeFeed,
    private readonly onClosed: (connection: Connection) => void,
  ) {
    this.caller = caller
    if (caller === null) {
      this.authTimer = setTimeout(
        () => this.fail('AUTH_TIMEOUT', 'No authentication within the time allowed', undefined),
        config.authTimeout,
      )
    }
    socket.on('message', (data, isBinary) => {
      if (isBinary) return this.send(errorFrame('server', 'INVALID_PAYLOAD', 'Messages must be text frames of JSON', undefined))
      void this.receive(data.toString())
    })
    socket.on('close', () => this.dispose())
    // A socket error is followed by `close`; listening keeps it from being an unhandled 'error' event.
    socket.on('error', () => undefined)
  }

  get subscriptions(): number {
    return this.watchers.size
  }

  /**
   * Sends a frame, unless more than `maxBufferedBytes` still wait to be sent: the client reads slower than its
   * messages come, and is closed rather than buffered without end. What waits is measured before the frame, so
   * one large `init` passes on a connection that keeps up.
   */
  send(frame: object): void {
    if (this.closed || this.socket.readyState !== WebSocket.OPEN) return
    if (this.socket.bufferedAmount > this.config.maxBufferedBytes) {
      void this.close(CLOSE.SLOW_CONSUMER)
      return
    }
    this.socket.send(JSON.stringify(frame))
  }

  /** A heartbeat tick: closes a connection that did not answer the last ping, pings the others. */
  heartbeat(): void {
    if (this.awaitingPong) return void this.close(CLOSE.HEARTBEAT_TIMEOUT)
    this.awaitingPong = true
    this.send(pingFrame('ping'))
  }

  /** Closes with `code`; resolves once the socket is closed. */
  close(code: (typeof CLOSE)[keyof typeof CLOSE]): Promise<void> {
    const ended = new Promise<void>((resolve) => {
      if (this.socket.readyState === WebSocket.CLOSED) resolve()
      else this.socket.once('close', () => resolve())
    })
    if (!this.closed) {
      this.dispose()
      this.socket.close(code.code, code.reason)
      // A client that does not read will not read the close frame either.
      const grace = setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS)
      void ended.then(() => clearTimeout(grace))
    }
    return ended
  }

  private dispose(): void {
    if (this.closed) return
    this.closed = true
    clearTimeout(this.authTimer)
    for (const watcher of this.watchers.values()) this.feed.remove(watcher)
    this.watchers.clear()
    this.onClosed(this)
  }

  private async receive(text: string): Promise<void> {
    let message: ClientMessage
    try {
      message = readMessage(text)
    } catch (error) {
      if (error instanceof MessageError) return this.send(errorFrame(error.type, error.code, error.message, error.uid))
      throw error
    }
    try {
      await this.handle(message)
    } catch (error) {
      this.send(this.errorAnswer(message.type, error, message.uid))
    }
  }

  private async handle(message: ClientMessage): Promise<void> {
    if (message.type === 'auth') return this.authenticate(message)
    if (message.type === 'ping') return this.send(pingFrame('pong', message.uid))
    if (message.type === 'pong') {
      this.awaitingPong = false
      return
    }
    if (this.caller === null) return this.fail('AUTH_FAILED', 'Authenticate first: send an "auth" message', message.uid)
    switch (message.type) {
      case 'subscribe':
        return this.subscribe(message, this.caller)
      case 'unsubscribe':
        return this.unsubscribe(message.uid)
      case 'items':
        return this.send(await runItemsAction(message, this.caller, this.seam))
    }
  }

  private async authenticate(message: AuthMessage): Promise<void> {
    const { authenticate } = this.config
    let caller: ItemsContext | null = null
    if (message.token !== null && authenticate !== undefined) {
      try {
        caller = await authenticate(message.token, this.req)
      } catch {
        caller = null
      }
    }
    if (caller === null) return this.fail('AUTH_FAILED', 'The token was refused', message.uid)
    clearTimeout(this.authTimer)
    // Subscriptions made before keep the caller they were made with.
    this.caller = caller
    this.send(authOkFrame(message.uid))
  }

  /** An authentication failure: answered, then the connection is closed with the failure's own code. */
  private fail(code: 'AUTH_FAILED' | 'AUTH_TIMEOUT', text: string, uid: Uid | undefined): void {
    this.send(errorFrame('auth', code, text, uid))
    void this.close(CLOSE[code])
  }

  private async subscribe(message: SubscribeMessage, caller: ItemsContext): Promise<void> {
    const key = message.uid === undefined ? null : uidKey(message.uid)
    if (key !== null && this.watchers.has(key)) {
      throw new MessageError(
        'subscribe',
        'INVALID_PAYLOAD',
        `The uid "${message.uid}" is subscribed already; unsubscribe it first`,
        message.uid,
      )
    }
    if (this.watchers.size >= this.config.maxSubscriptions) {
      throw new MessageError(
        'subscribe',
        'LIMIT_EXCEEDED',
        `A connection holds at most ${this.config.maxSubscriptions} subscriptions`,
        message.uid,
      )
    }
    const { services } = this.seam
    const collection = services.schema.collections.get(message.collection)
    // An unknown collection and one the caller may not read answer alike, so names do not leak.
    if (collection === undefined) throw new ForbiddenError()
    const subscription = await this.seam.run(async () => {
      const resolved = CallerAccess.resolve(services.access, collection, caller)
      const access = resolved instanceof Promise ? await resolved : resolved
      if (!access.canRead(collection)) throw new ForbiddenError()
      const query = keyedQuery(await parseSocketQuery(message.query, collection, access, services, true), collection)
      // Text naming a variable ($NOW, $CURRENT_USER) may mean something else for each subscription: never shared.
      const text = JSON.stringify(message.query)
      const shared = text.includes('$') ? `\u0000${unnamed++}` : text
      return new Subscription({
        uid: message.uid,
        collection,
        event: message.event,
        query,
        readingKey: `${collection.name}\n${access.signature}\n${shared}`,
        maxKnownItems: this.config.maxKnownItems,
      })
    })
    if (this.closed) return
    const watcher: Watcher = { subscription, send: (frame) => this.send(frame) }
    // Watching before reading: a write committed while `init` is read is delivered after it, not lost.
    this.watchers.set(key ?? uidKey(undefined), watcher)
    this.feed.add(watcher)
    try {
      await this.init(subscription)
    } catch (error) {
      this.drop(watcher)
      throw error
    }
  }

  /** Reads the subscription's query and sends it as `init` (without data for a subscription to one event). */
  async init(subscription: Subscription): Promise<void> {
    const { collection, query } = subscription
    const page = await this.seam.run(() => this.seam.services.repository.list(collection, query))
    const items = keyedItems(page.items, collection)
    subscription.initialised(items)
    this.send(subscriptionFrame('init', subscription.event === null ? items.map(({ item }) => item) : undefined, subscription.uid))
  }

  /** Re-sends `init` to every subscription: after a lost broker connection, the client's items may be stale. */
  async refresh(): Promise<void> {
    for (const { subscription } of this.watchers.values()) {
      await this.init(subscription).catch((error: unknown) => this.send(this.errorAnswer('subscribe', error, subscription.uid)))
    }
  }

  private drop(watcher: Watcher): void {
    for (const [key, each] of this.watchers) if (each === watcher) this.watchers.delete(key)
    this.feed.remove(watcher)
  }

  /** Ends the subscription with this uid, or every one without a uid; confirmed either way. */
  private unsubscribe(uid: Uid | undefined): void {
    if (uid === undefined) for (const watcher of [...this.watchers.values()]) this.drop(watcher)
    else {
      const watcher = this.watchers.get(uidKey(uid))
      if (watcher !== undefined) this.drop(watcher)
    }
    this.send(subscriptionFrame('unsubscribe', undefined, uid))
  }

  /** The error frame answering a message whose work threw. Unexpected errors are logged, and their text kept back. */
  private errorAnswer(type: string, error: unknown, uid: Uid | undefined): object {
    if (error instanceof MessageError) return errorFrame(error.type, error.code, error.message, error.uid)
    const known = error instanceof ItemsErrorList ? error.errors[0]! : error instanceof ItemsError ? error : this.seam.recognise(error)
    if (known !== null) return errorFrame(type, known.code, known.message, uid)
    this.seam.services.logger.error(`express-items-router: unexpected error answering a realtime "${type}" message`, error)
    return errorFrame(type, 'INTERNAL_SERVER_ERROR', 'An unexpected error occurred.', uid)
  }
}
