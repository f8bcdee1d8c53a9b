// What realtime/ takes from the router that attaches it: the services handlers use, a way to run work as the
// router runs a request's, and the router's reading of errors.
import type { ItemsError } from '../errors'
import type { Services } from '../handlers/services'

export interface RealtimeSeam {
  readonly services: Services
  /**
   * Runs `work` once the router's setup checks have passed, in a scope of its own so the statement time limit
   * applies. Reads go to the primary: a write's event must find the write.
   */
  readonly run: <T>(work: () => Promise<T>) => Promise<T>
  /** The API error a thrown value stands for (a database fault, a statement timeout), or null when unexpected. */
  readonly recognise: (error: unknown) => ItemsError | null
}
