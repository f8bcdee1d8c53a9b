// Checks the realtime options once and fills in their defaults: the rest of realtime/ reads a RealtimeConfig.
import { ConfigError } from '../errors'
import type { RealtimeOptions } from '../types'

/** RealtimeOptions with every default resolved; see RealtimeOptions for what each means. */
export type RealtimeConfig = Required<Omit<RealtimeOptions, 'authenticate' | 'broker'>> & Pick<RealtimeOptions, 'authenticate' | 'broker'>

const DEFAULTS = {
  path: '/websocket',
  publicAccess: false,
  maxConnections: 1000,
  maxSubscriptions: 100,
  maxMessageBytes: 64 * 1024,
  maxBufferedBytes: 1024 * 1024,
  maxKnownItems: 10_000,
  authTimeout: 10_000,
  heartbeatInterval: 30_000,
} as const satisfies Required<Omit<RealtimeOptions, 'authenticate' | 'broker'>>

/** Every option this version knows: a misspelt one is a mistake, not something to ignore. */
const KNOWN: { readonly [K in keyof Required<RealtimeOptions>]: true } = {
  path: true,
  authenticate: true,
  publicAccess: true,
  broker: true,
  maxConnections: true,
  maxSubscriptions: true,
  maxMessageBytes: true,
  maxBufferedBytes: true,
  maxKnownItems: true,
  authTimeout: true,
  heartbeatInterval: true,
}

const COUNTS = ['maxConnections', 'maxSubscriptions', 'maxMessageBytes', 'maxBufferedBytes', 'maxKnownItems', 'authTimeout'] as const

function bad(name: string, what: string): ConfigError {
  return new ConfigError('CONFIG_BAD_OPTION', `realtime options.${name} ${what}`)
}

export function realtimeConfig(options: RealtimeOptions = {}): RealtimeConfig {
  for (const key of Object.keys(options)) if (!Object.hasOwn(KNOWN, key)) throw bad(key, 'is not an option')
  const config = {
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)),
  } as RealtimeConfig
  if (typeof config.path !== 'string' || !config.path.startsWith('/')) throw bad('path', 'must be a path starting with "/"')
  for (const name of COUNTS) {
    if (!Number.isSafeInteger(config[name]) || config[name] < 1) throw bad(name, 'must be a whole number of at least 1')
  }
  if (!Number.isSafeInteger(config.heartbeatInterval) || config.heartbeatInterval < 0) {
    throw bad('heartbeatInterval', 'must be a whole number of milliseconds, or 0 for no pings')
  }
  if (config.authenticate !== undefined && typeof config.authenticate !== 'function') throw bad('authenticate', 'must be a function')
  if (config.authenticate === undefined && !config.publicAccess) {
    // Secure by default: a connection could never authenticate, and a silent endpoint hides the mistake.
    throw bad('authenticate', 'is needed unless publicAccess is true: without it no connection could authenticate')
  }
  return config
}
