// How many exports a router streams at once (`maxConcurrentExports`): a download past it answers 503
// `TOO_MANY_EXPORTS`, so slow or stalled clients cannot pile up downloads, each holding a chunk in memory.
import type { Response } from 'express'
import { TooManyExportsError } from '../errors'

export class ExportBudget {
  private running = 0

  constructor(readonly limit: number) {}

  /** Exports holding a place now. */
  get size(): number {
    return this.running
  }

  /**
   * Takes a place for the export `res` answers, or throws `TooManyExportsError` when none is left. The place is
   * given back once, by whichever comes first: the returned release (the export's end, however it ends) or the
   * response's `close` (sent, or its client gone), so that neither an error nor an abort keeps it.
   */
  claim(res: Response): () => void {
    if (this.running >= this.limit) throw new TooManyExportsError(this.limit)
    this.running++
    let held = true
    const release = (): void => {
      if (!held) return
      held = false
      this.running--
      res.off('close', release)
    }
    res.on('close', release)
    return release
  }
}
