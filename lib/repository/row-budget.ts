// A read's row budget (`maxLoadedRows`): a 400 when a read would pass it, which an export answers by reading smaller chunks.
import { InvalidQueryError } from '../errors'

/** A read passed `maxLoadedRows`: a 400, which an export answers by reading smaller chunks instead. */
export class RowBudgetError extends InvalidQueryError {}

/**
 * The rows one read may still load (`maxLoadedRows`), shared by every statement of the read. Each statement asks
 * for one row more than what is left, so passing the bound is noticed without ever holding more rows than it.
 */
export class RowBudget {
  constructor(
    private remaining: number,
    private readonly max: number = remaining,
  ) {}

  /** The LIMIT a statement that wants `limit` rows (null: all) may use. */
  cap(limit: number | null): number | null {
    if (!Number.isFinite(this.remaining)) return limit
    return limit === null ? this.remaining + 1 : Math.min(limit, this.remaining + 1)
  }

  spend(rows: number): void {
    this.remaining -= rows
    if (this.remaining < 0) throw new RowBudgetError(`The request would load more than ${this.max} rows (maxLoadedRows)`)
  }
}

/** No bound: for the router's own reads (existing keys, a write's matches, already bounded by maxBatchSize). */
export const unbounded = (): RowBudget => new RowBudget(Number.POSITIVE_INFINITY)
