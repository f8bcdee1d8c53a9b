// Exports take turns at the database: at most a few of them read a chunk at any moment, so another request
// never queues for a connection behind more than that many export statements, however many exports run. On
// SQLite, whose one connection serves every request, this is what keeps a plain read answering during exports.
/**
 * Exports reading a chunk at once, per router. Two, not one: while one chunk's rows are written out, the next
 * export's statement can run. Small, because it is also how many export statements another request may find
 * ahead of it in the pool's queue (`npm run bench:stall`, "concurrent exports": the probe's p99).
 */
export const EXPORT_TURNS = 2

export class ExportTurns {
  private reading = 0
  private readonly waiting: Array<() => void> = []

  constructor(readonly width: number) {}

  /** Runs `read` when fewer than `width` other reads of exports are running; they start in the order they asked. */
  async take<T>(read: () => Promise<T>): Promise<T> {
    if (this.reading >= this.width) await new Promise<void>((resolve) => this.waiting.push(resolve))
    else this.reading++
    try {
      return await read()
    } finally {
      // The place passes straight to the next in line, so a newcomer cannot overtake those waiting.
      const next = this.waiting.shift()
      if (next) next()
      else this.reading--
    }
  }
}
