// Keeps each read statement's SQL as a template under its plan's key (plan/), and a one-item UPDATE's
// (`write`). A key holds everything that decides a statement's SQL text: the table, the columns, the filter's
// tree with its fields and operators, the sort, the groups and aggregates, the joins and folded lists, whether
// there is a limit and an offset; for an UPDATE, the fields it sets. Requests of one key differ only in their
// values, so the first one's SQL is kept (bounded, per router) and later ones bind their own values into it,
// past the query builder, and run it past knex's runner too (run-statement.ts).
//
// Where a value can change the text (null turns `_eq` into IS NULL, a list's length its placeholders, a
// non-ASCII pattern on SQLite another expression), the key cannot know it up front. So each comparison's own
// fragment is compiled again for every request (cheap: no builder, no subquery), its values taken from there, and
// its text checked against the kept one: a different text compiles the statement afresh. The few other values a
// statement binds (a key list, a window's rank bounds) are passed beside the key, and the compile binds them
// through `ValueSlots.list`; a statement with a value bound anywhere else (a search, a cursor's keys) is not kept
// at all. A compile is handed how to bind (value-slots.ts): the request's own values, or slots while a template
// is recorded.
import type { Knex } from 'knex'
import type { ComparisonNode, QueryKey } from '../query/query-key'
import { compileComparison, type ComparisonTarget } from './compile-comparison'
import type { SqlFragment } from '../dialects'
import { checkingCaches } from '../cache-checks'
import { LruMap } from '../lru-map'
import { OWN_VALUES, type ValueSlots } from './value-slots'
import type { Page } from '../plan/read-plan'
import { inKnexTransaction, runBuilder, runStatement } from '../execute/run-statement'
import type { Db } from '../execute/db'

type Row = Record<string, unknown>

/** Most keys one loader keeps: a router's requests' keys, each with its relations' statements. */
export const TEMPLATES_KEPT = 512

/** Slot calls of the values a statement binds besides its comparisons'. */
const PAGE = -1
const BOUND = -2

/**
 * A value bound in a kept statement: the `position`-th binding of its `call`-th comparison fragment, the
 * `position`-th of the page's values (limit, offset) with `call` PAGE, of the statement's bound list with BOUND.
 */
class Slot {
  constructor(
    readonly call: number,
    readonly position: number,
  ) {}
}

/** One comparison compiled into a kept statement: which node of the queryKey, against what, and its text. */
interface Call {
  readonly node: number
  readonly target: ComparisonTarget
  readonly sql: string
}

interface Template {
  readonly sql: string
  readonly bindings: readonly Slot[]
  readonly calls: readonly Call[]
  /** knex's name for what the statement does ('select', 'update'): how a write's result is read. */
  readonly method: string
}

/** The slots of one template being compiled: each comparison fragment's values, and the bound list's. */
class Recording implements ValueSlots {
  readonly calls: Call[] = []
  keepable = true

  constructor(private readonly queryKey: QueryKey) {}

  /** The fragment with each bound value a slot; a comparison the queryKey does not hold makes the statement unkeepable. */
  comparison(node: ComparisonNode, target: ComparisonTarget, fragment: SqlFragment): SqlFragment {
    const index = this.queryKey.indexOf(node)
    const tokens = fragment.sql.match(/\?\??/g) ?? []
    if (index < 0 || tokens.length !== fragment.bindings.length) {
      this.keepable = false
      return fragment
    }
    const call = this.calls.length
    this.calls.push({ node: index, target, sql: fragment.sql })
    // `??` binds an identifier and a subquery binds its own slots; every other `?` binds a value.
    const bindings = fragment.bindings.map((binding, position) =>
      tokens[position] === '?' && !isBuilder(binding) ? (new Slot(call, position) as unknown as Knex.RawBinding) : binding,
    )
    return { sql: fragment.sql, bindings }
  }

  list<T>(values: readonly T[]): readonly T[] {
    return values.map((_, position) => new Slot(BOUND, position) as unknown as T)
  }
}

const isBuilder = (binding: unknown): boolean =>
  typeof binding === 'object' && binding !== null && typeof (binding as { toSQL?: unknown }).toSQL === 'function'

/** A statement's compile, handed how to bind the request's values (see value-slots.ts). */
export type Compile = (values: ValueSlots) => Knex.QueryBuilder

const placeholders = (sql: string): number => sql.split('?').length - 1

/**
 * The statement that runs around a paged one (a join to the page after its LIMIT), binding nothing of its own:
 * given the paged statement, or while a template is recorded the text that stands for it.
 */
export type Around = (paged: Knex.QueryBuilder | string) => Knex.QueryBuilder

/** Where the paged statement's text goes in a recorded `Around`: a word no SQL of the router's holds. */
const PAGED = '__items_paged_statement__'

export class StatementTemplates {
  private readonly templates: LruMap<Template | null>

  constructor(
    private readonly rowsOf: (result: unknown) => Row[],
    capacity = TEMPLATES_KEPT,
    /** Off when the host's knex post-processes results, which would see raw results where it expects rows. */
    private readonly enabled = true,
  ) {
    this.templates = new LruMap(true, capacity)
  }

  /**
   * The rows of the statement `compile` builds (without LIMIT and OFFSET, which `page` gives), run from the kept
   * template of `queryKey` when there is one; null for `queryKey`: a statement that is never kept. `compile` binds
   * `bound`, if any, through `values.list`; `around`, when given, is the statement run around the paged one.
   */
  select(
    db: Db,
    queryKey: QueryKey | null,
    page: Page,
    compile: Compile,
    bound: readonly unknown[] = [],
    around: Around | null = null,
  ): Promise<Row[]> {
    // Not async, to spare two promises per statement (see is-promise-like.ts); so a compile's error is a
    // rejection, as from any promise-returning function, not a throw.
    try {
      return this.run(db, queryKey, page, compile, bound, around)
    } catch (error) {
      return Promise.reject(error)
    }
  }

  private run(
    db: Db,
    queryKey: QueryKey | null,
    page: Page,
    compile: Compile,
    bound: readonly unknown[],
    around: Around | null,
  ): Promise<Row[]> {
    if (queryKey === null || !this.enabled || (page.limit === null && page.offset > 0)) return rowsOfFresh(compile, page, around)
    const key = `${queryKey.key},${bound.length},${page.limit === null},${page.offset > 0}`
    const kept = this.kept(key, queryKey, page, compile, around, { page: [page.limit, page.offset], bound })
    if (kept === null) return rowsOfFresh(compile, page, around)
    return runStatement(db, kept.template.sql, kept.bindings).then(this.rowsOf)
  }

  /**
   * What awaiting the write `compile` builds gives (an UPDATE's count of changed rows), run from the kept template of
   * `queryKey` when there is one. `compile` binds every value of its own, the SET values included, through
   * `values.list(bound)`; a write that returns rows, or binds a value elsewhere, is compiled each time.
   */
  write<T>(db: Db, queryKey: QueryKey, compile: Compile, bound: readonly unknown[]): Promise<T> {
    try {
      // A value knex would write as SQL (a raw expression) has no slot.
      const keepable = this.enabled && !inKnexTransaction(db) && !bound.some(isBuilder)
      const kept = keepable ? this.kept(`${queryKey.key},${bound.length}`, queryKey, UNPAGED, compile, null, { page: [], bound }) : null
      if (kept === null) return runBuilder<T>(db, compile(OWN_VALUES))
      return runStatement(db, kept.template.sql, kept.bindings, kept.template.method) as Promise<T>
    } catch (error) {
      return Promise.reject(error)
    }
  }

  /**
   * The kept template under `key` with the request's values bound: recorded now when there is none, or when a value
   * changed its comparison's text. null: the statement is compiled afresh.
   */
  private kept(
    key: string,
    queryKey: QueryKey,
    page: Page,
    compile: Compile,
    around: Around | null,
    values: Values,
  ): { readonly template: Template; readonly bindings: unknown[] } | null {
    let template = this.templates.get(key)
    let bindings = template ? bind(template, queryKey, values) : null
    if (template === undefined || (template !== null && bindings === null)) {
      template = record(queryKey, page, compile, around)
      this.templates.keep(key, template)
      bindings = template && bind(template, queryKey, values)
    } else if (template !== null && checkingCaches()) check(template, bindings!, queryKey, page, compile, around)
    return template === null || bindings === null ? null : { template, bindings }
  }
}

/** A statement without LIMIT or OFFSET (a write, a read by keys). */
export const UNPAGED: Page = { limit: null, offset: 0 }

const rowsOfFresh = (compile: Compile, page: Page, around: Around | null): Promise<Row[]> =>
  Promise.resolve(fresh(compile, page, around) as PromiseLike<Row[]>)

function paged(qb: Knex.QueryBuilder, { limit, offset }: Page): Knex.QueryBuilder {
  if (limit !== null) qb.limit(limit)
  if (offset > 0) qb.offset(offset)
  return qb
}

/** The statement compiled afresh, its values bound by knex. */
function fresh(compile: Compile, page: Page, around: Around | null): Knex.QueryBuilder {
  const inner = paged(compile(OWN_VALUES), page)
  return around ? around(inner) : inner
}

/** Compiles the statement with slots for its values; null when some value has no slot. */
function record(queryKey: QueryKey, page: Page, compile: Compile, around: Around | null): Template | null {
  const recorder = new Recording(queryKey)
  const compiled = compile(recorder).toSQL()
  let sql = compiled.sql
  const bindings = [...compiled.bindings] as unknown[]
  // A write's returned rows are read through what knex compiled with it, which a template does not keep.
  const { returning, output } = compiled as Knex.Sql & { returning?: unknown; output?: unknown }
  if (page.limit !== null) {
    sql += ' limit ?'
    bindings.push(new Slot(PAGE, 0))
  }
  if (page.offset > 0) {
    sql += ' offset ?'
    bindings.push(new Slot(PAGE, 1))
  }
  let keepable =
    recorder.keepable &&
    returning === undefined &&
    output === undefined &&
    bindings.every((binding) => binding instanceof Slot) &&
    placeholders(sql) === bindings.length
  if (around) {
    const outer = around(PAGED).toSQL()
    keepable &&= outer.bindings.length === 0 && placeholders(outer.sql) === 0
    const inner = sql
    sql = outer.sql.replace(PAGED, () => inner)
  }
  return keepable ? { sql, bindings: bindings as Slot[], calls: recorder.calls, method: compiled.method } : null
}

interface Values {
  readonly page: readonly unknown[]
  readonly bound: readonly unknown[]
}

/** The request's values in the template's slots; null when one of its comparisons compiles to another text. */
function bind(template: Template, queryKey: QueryKey, values: Values): unknown[] | null {
  const fragments: (readonly unknown[])[] = []
  for (const call of template.calls) {
    const fragment = compileComparison(queryKey.comparisons[call.node]!, call.target)
    if (fragment.sql !== call.sql) return null
    fragments.push(fragment.bindings)
  }
  return template.bindings.map(({ call, position }) =>
    call === PAGE ? values.page[position] : call === BOUND ? values.bound[position] : fragments[call]![position],
  )
}

/** Throws when the kept template does not give what a fresh compile gives (see checkCaches). */
function check(
  template: Template,
  bindings: readonly unknown[],
  queryKey: QueryKey,
  page: Page,
  compile: Compile,
  around: Around | null,
): void {
  const expected = fresh(compile, page, around).toSQL()
  const kept = JSON.stringify({ sql: template.sql, bindings }, bigints)
  const compiled = JSON.stringify({ sql: expected.sql, bindings: expected.bindings }, bigints)
  if (kept !== compiled) throw new Error(`A kept template differs from a fresh compile of key ${queryKey.key}:\n${kept}\n${compiled}`)
}

const bigints = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? `${value}n` : value)
