// Where a statement runs when the host gives a read replica: the one place that decides primary or replica.
import type { Request } from 'express'
import type { Knex } from 'knex'
import { currentRequest, StateSlot, type StateSetup } from '../request-state'

/** Methods whose requests only read: everything else (writes, promotes, saves) runs wholly on the primary. */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'SEARCH'])

/** The header a client sends to read its own writes: `Items-Consistency: strong` reads from the primary. */
export const CONSISTENCY_HEADER = 'Items-Consistency'

/** By default, a request that names strong consistency in the header reads from the primary. */
export const strongByHeader = (req: Request): boolean => req.get(CONSISTENCY_HEADER)?.trim().toLowerCase() === 'strong'

/** Requests whose reads may go to the replica; any other request, and work outside a request, uses the primary. */
const onReplica = new StateSlot<true>('onReplica')

/**
 * Picks the connection of each statement. Writes and transactions always take the primary (`primary`); a read
 * takes the replica only inside a read request (GET, HEAD, SEARCH) that did not ask for the primary. So the
 * read-back after a write, the reads of a version save or promote and the idempotency store never see a lagging
 * replica: they belong to a write request. Without a replica every statement runs on the primary.
 */
export class ReadRouting {
  constructor(
    readonly primary: Knex,
    readonly replica: Knex | null = null,
    private readonly readsPrimary: (req: Request) => boolean = strongByHeader,
  ) {}

  /** The knex instance an untransacted read of the current request runs on. */
  reader(): Knex {
    const state = currentRequest()
    return this.replica !== null && state !== undefined && onReplica.get(state) === true ? this.replica : this.primary
  }

  /** The request state's setup that lets a read request's reads go to the replica; null without a replica. */
  stateSetup(): StateSetup | null {
    if (this.replica === null) return null
    return (req, state) => {
      if (READ_METHODS.has(req.method) && !this.readsPrimary(req)) onReplica.set(state, true)
    }
  }
}
