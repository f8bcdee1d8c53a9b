// The close codes realtime ends a connection with, each with a reason naming it: where Directus closes every
// failure with 1005 (no code), a client can tell why it was closed and whether reconnecting can help.
export const CLOSE = Object.freeze({
  /** The server is shutting down (WebSocket's "going away"). */
  SHUTDOWN: { code: 1001, reason: 'SHUTDOWN' },
  /** More connections than `maxConnections` (WebSocket's "try again later"). */
  TOO_MANY_CONNECTIONS: { code: 1013, reason: 'TOO_MANY_CONNECTIONS' },
  /** No pong to the previous ping. */
  HEARTBEAT_TIMEOUT: { code: 4000, reason: 'HEARTBEAT_TIMEOUT' },
  /** The token was missing or refused, or another message came before authentication. */
  AUTH_FAILED: { code: 4401, reason: 'AUTH_FAILED' },
  /** No authentication within `authTimeout`. */
  AUTH_TIMEOUT: { code: 4408, reason: 'AUTH_TIMEOUT' },
  /** More than `maxBufferedBytes` waiting to be sent: the client reads slower than its messages come. */
  SLOW_CONSUMER: { code: 4429, reason: 'SLOW_CONSUMER' },
})
