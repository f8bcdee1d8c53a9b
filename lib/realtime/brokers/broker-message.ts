// The text a broker carries for one change: the writing process's id, the action, the collection and keys, cut
// into parts under the engine's size limit. Never the values written or the writer's context: each process
// reads the items itself, through each subscriber's access.
import { isPlainObject } from '../../is-plain-object'
import type { PrimaryKey, RealtimeChange } from '../../types'

const ACTIONS: readonly string[] = ['create', 'update', 'delete']

/** The change as one or more messages, each at most `maxBytes` long (a part holds at least one key). */
export function encodeChange(origin: string, change: RealtimeChange, maxBytes: number): string[] {
  const encode = (keys: readonly PrimaryKey[]): string => JSON.stringify({ o: origin, a: change.action, c: change.collection, k: keys })
  const whole = encode(change.keys)
  if (Buffer.byteLength(whole) <= maxBytes || change.keys.length <= 1) return [whole]
  const half = Math.ceil(change.keys.length / 2)
  return [
    ...encodeChange(origin, { ...change, keys: change.keys.slice(0, half) }, maxBytes),
    ...encodeChange(origin, { ...change, keys: change.keys.slice(half) }, maxBytes),
  ]
}

/** A message from the engine as a change, with the process that sent it; null for anything else on the channel. */
export function decodeChange(text: string): { origin: string; change: RealtimeChange } | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  if (!isPlainObject(parsed)) return null
  const { o, a, c, k } = parsed
  if (typeof o !== 'string' || typeof a !== 'string' || !ACTIONS.includes(a) || typeof c !== 'string' || !Array.isArray(k)) return null
  if (!k.every((key) => typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key)))) return null
  return { origin: o, change: { action: a as RealtimeChange['action'], collection: c, keys: k as PrimaryKey[] } }
}
