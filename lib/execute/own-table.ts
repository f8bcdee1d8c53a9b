// One of the router's own tables (content versions, Idempotency-Key records): created on first use when the host
// asked for that, otherwise looked up, so that a table nobody created is a known state rather than a 500 a request.
import type { Knex } from 'knex'
import type { Logger } from '../types'
import { onceUntilFailure } from './create-table-once'

/** How long a missing table is believed missing before it is looked up again: a migration run later is seen. */
export const MISSING_TABLE_RECHECK_MS = 30_000

export class OwnTable {
  private readonly created: (() => Promise<void>) | null
  private found: boolean | undefined
  private checked = 0
  private lookup: Promise<boolean> | null = null
  private warned = false

  constructor(
    private readonly knex: Knex,
    readonly name: string,
    create: (() => Promise<void>) | null,
    private readonly logger: Logger,
    /** What goes without the table, and how to create it: the one log line. */
    private readonly missing: string,
  ) {
    this.created = create && onceUntilFailure(create)
  }

  /** What the last look found; `undefined` before the first one. A table the router creates counts as there. */
  get known(): boolean | undefined {
    return this.created ? true : this.found
  }

  /**
   * Whether the table is there: created first when the router was asked to (a failure then rejects, and the next
   * call tries again). A missing table is logged once per router, and looked up again after a while.
   */
  async available(): Promise<boolean> {
    if (this.created) {
      await this.created()
      return true
    }
    if (this.found === true || (this.found === false && Date.now() - this.checked < MISSING_TABLE_RECHECK_MS)) return this.found
    this.lookup ??= this.knex.schema.hasTable(this.name).finally(() => (this.lookup = null))
    const found = await this.lookup
    this.found = found
    this.checked = Date.now()
    if (!found && !this.warned) {
      this.warned = true
      this.logger.warn(`express-items-router: table "${this.name}" does not exist; ${this.missing}`)
    }
    return found
  }
}
