// What every export of a router shares, made once by createItemsRouter (see export-items.ts).
import type { ExportBudget } from './export-budget'
import type { ExportTurns } from './export-turns'

export interface ExportSetup {
  /** Its places: `maxConcurrentExports`. */
  readonly budget: ExportBudget
  /** Its turns at the database. */
  readonly turns: ExportTurns
  /** ms a client may take nothing of its download before the connection is cut (`exportIdleTimeout`); 0: never. */
  readonly idleTimeout: number
}
