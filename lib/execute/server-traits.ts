// What the server behind each knex instance supports where servers of a dialect differ (Dialect.serverTraits),
// asked in the router's ready gate, so that reads and writes find plain values and never wait for them.
import type { Knex } from 'knex'
import type { Dialect, ServerTraits } from '../dialects'

/** What every server can do: the traits of a server that could not be asked (no connection yet, say). */
const UNKNOWN: ServerTraits = { insertReturnsRows: false, foldedKeys: 0, autocommits: false }

export class KnownTraits {
  private readonly known = new WeakMap<Knex, ServerTraits>()
  /** The asks under way, so requests that arrive together ask once. */
  private readonly asking = new WeakMap<Knex, Promise<boolean>>()
  /** The traits of a dialect whose servers do not differ. */
  private readonly fixed: ServerTraits | null

  constructor(private readonly dialect: Dialect) {
    this.fixed =
      dialect.serverTraits === null
        ? { insertReturnsRows: dialect.returnsRows, foldedKeys: Number.POSITIVE_INFINITY, autocommits: true }
        : null
  }

  /**
   * Asks the server behind each instance not known yet; resolves to whether every one is known now. An error
   * (no connection yet, say) is not kept: until the next ask succeeds, `of` answers what every server can do
   * (a read brings its key lists by statements of their own, a create reads its items back, a lone write keeps
   * its transaction).
   */
  learn(instances: readonly Knex[]): Promise<boolean> {
    const ask = this.dialect.serverTraits
    if (ask === null) return Promise.resolve(true)
    const pending = instances.filter((knex) => !this.known.has(knex))
    return Promise.all(
      pending.map((knex) => {
        let asked = this.asking.get(knex)
        if (asked === undefined) {
          asked = ask(knex).then(
            (traits) => (this.known.set(knex, traits), this.asking.delete(knex), true),
            () => (this.asking.delete(knex), false),
          )
          this.asking.set(knex, asked)
        }
        return asked
      }),
    ).then((answers) => answers.every(Boolean))
  }

  /** The traits of the server behind `knex` (a read's: a replica may differ from the primary). */
  of(knex: Knex): ServerTraits {
    return this.fixed ?? this.known.get(knex) ?? UNKNOWN
  }
}
