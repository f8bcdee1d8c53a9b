// The statements one connection keeps by SQL text, bounded: what a dialect's statement reuse and the SQLite
// reader's threads prepare once and run again.
import { LruMap } from '../lru-map'
import type { KeptStatements } from './dialect'

/** Most statements one connection keeps: a router's statements, one per key, with room for a host's hooks. */
export const KEPT_PER_CONNECTION = 256

/** A connection's kept statements by SQL text (see LruMap); with `evicts`, the least recently used makes room. */
export class StatementCache extends LruMap<NonNullable<unknown>> implements KeptStatements {
  constructor(evicts: boolean, capacity = KEPT_PER_CONNECTION) {
    super(evicts, capacity)
  }
}
