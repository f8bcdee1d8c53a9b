// Resolves one caller's access rules, once per request: the SchemaView the parser reads through, and the
// rule of each write. Rule filters are the host's own: they may name hidden fields and are not narrowed.
import { ConfigError, ForbiddenError, InvalidQueryError } from '../errors'
import type { FilterLimits } from '../query/parse-filter'
import { parseFilter } from '../query/parse-filter'
import type { FilterNode } from '../query/filter-node'
import { OPERATORS } from '../query/operators'
import { ABSENT, callerVariables, isVariable, type Variables } from '../query/variables'
import type { Collection, Member, Schema } from '../schema/collection'
import { fullView, openView, type SchemaView } from '../query/schema-view'
import { NO_ROWS } from '../query/filter-node'
import { QueryKey } from '../query/query-key'
import { isPromiseLike } from '../is-promise-like'
import { LruMap } from '../lru-map'
import type { AccessDecision, AccessEntry, AccessRule, ItemsContext, WriteAction } from '../types'
import { checkDecision, READ_ONLY_BY_DEFAULT, type Action } from './access-config'

/** What an allowed write may touch. */
export interface WriteRule {
  /** The fields a payload may set; null: all. */
  readonly fields: ReadonlySet<string> | null
  /** update / delete: the rows it may change; null: all. */
  readonly scope: FilterNode | null
  /** Values written underneath the payload, variables resolved. */
  readonly presets: Readonly<Record<string, unknown>>
  /** A filter the written values must satisfy (comparisons on the collection's own fields only). */
  readonly validation: FilterNode | null
}

interface ReadGrant {
  /** null: every field. */
  readonly fields: ReadonlySet<string> | null
  readonly scope: FilterNode | null
}

/** The router's side: the rules as configured, and what resolving them needs. */
export interface AccessSetup {
  readonly schema: Schema
  readonly entries: ReadonlyMap<Collection, Readonly<Record<Action, AccessEntry>>>
  readonly reachable: ReadonlyMap<Collection, readonly Collection[]>
  readonly limits: Omit<FilterLimits, 'schema' | 'variables'>
}

/** Per router: the limits of the rules' own filters (every field), with a place for the caller's variables. */
const ruleLimitsBase = new WeakMap<AccessSetup, FilterLimits>()

/**
 * The limits of the rules' own filters for a caller with these variables, on every request: a copy of one base
 * per setup, its `variables` replaced.
 */
function ruleLimits(setup: AccessSetup, variables: Variables): FilterLimits {
  let base = ruleLimitsBase.get(setup)
  if (base === undefined) ruleLimitsBase.set(setup, (base = { ...setup.limits, schema: fullView(setup.schema), variables: undefined }))
  return { ...base, variables }
}

/**
 * Names the setting to change, since a new host's first write meets this default. It reveals no rule: any caller
 * can learn that a collection refuses their writes by trying one.
 */
const closedByDefault = (collection: Collection, action: WriteAction): string =>
  `Writes are closed by default: "${collection.name}" has no access rule allowing ${action}. ` +
  "Open writes with the router option defaultAccess or the collection's access."

const where = (collection: Collection, action: Action): string => `collections.${collection.name}.access.${action}`

/** A rule's filter, parsed against every field of the collection; a mistake in it is the host's (500, logged). */
function ruleFilter(raw: unknown, collection: Collection, label: string, limits: FilterLimits, now: Date): FilterNode | null {
  if (raw === undefined) return null
  try {
    return parseFilter(raw, collection, limits, now)
  } catch (error) {
    if (error instanceof InvalidQueryError) throw new ConfigError('CONFIG_BAD_ACCESS', `${label}: ${error.reason}`)
    throw error
  }
}

/** Validation filters are checked against the payload itself, so they compare the collection's own fields. */
function checkOwnFields(node: FilterNode, label: string): void {
  if (node.kind === 'and' || node.kind === 'or') node.children.forEach((child) => checkOwnFields(child, label))
  else if (node.kind !== 'comparison') throw new ConfigError('CONFIG_BAD_ACCESS', `${label} may only compare the collection's own fields`)
  else if (OPERATORS[node.operator].on.includes('geometry') && node.field.type === 'geometry')
    throw new ConfigError('CONFIG_BAD_ACCESS', `${label} cannot hold "${node.operator}": spatial conditions belong in \`filter\``)
}

/** A rule's `filter` and `validation`, parsed and checked: per request, and once at creation for fixed rules. */
function ruleFilters(
  rule: AccessRule,
  collection: Collection,
  action: Action,
  limits: FilterLimits,
  now: Date,
): { filter: FilterNode | null; validation: FilterNode | null } {
  const label = where(collection, action)
  const validation = ruleFilter(rule.validation, collection, `${label}.validation`, limits, now)
  if (validation) checkOwnFields(validation, `${label}.validation`)
  return { filter: ruleFilter(rule.filter, collection, `${label}.filter`, limits, now), validation }
}

const fieldSet = (fields: AccessRule['fields'], always: readonly string[]): ReadonlySet<string> | null =>
  fields === undefined || fields === '*' || fields.includes('*') ? null : new Set([...fields, ...always])

function readGrant(collection: Collection, decision: AccessDecision, limits: FilterLimits, now: Date): ReadGrant | null {
  if (decision === false) return null
  if (decision === true) return { fields: null, scope: null }
  return {
    fields: fieldSet(
      decision.fields,
      collection.key.map((field) => field.name),
    ),
    scope: ruleFilters(decision, collection, 'read', limits, now).filter,
  }
}

/** What a caller may read: a grant per collection the request can reach, and the view the parser reads through. */
class ReadAccess {
  readonly view: SchemaView
  private signatureText: string | undefined

  constructor(
    schema: Schema,
    readonly grants: ReadonlyMap<Collection, ReadGrant | null>,
  ) {
    this.view = readView(schema, grants)
  }

  /** See CallerAccess.signature. */
  get signature(): string {
    if (this.signatureText === undefined) {
      const viewKey = new QueryKey('view', true)
      for (const [collection, grant] of this.grants) {
        viewKey.schema(collection)
        if (grant == null) viewKey.word('none')
        else viewKey.text(grant.fields === null ? '*' : JSON.stringify([...grant.fields].sort())).filter(grant.scope)
      }
      this.signatureText = viewKey.key
    }
    return this.signatureText
  }
}

/** Read access patterns kept per router: one per collection and combination of plain true/false decisions. */
const FIXED_READS_KEPT = 256
const fixedReads = new WeakMap<AccessSetup, LruMap<ReadAccess>>()

/**
 * The read access these decisions give. Decisions that are all plain `true` or `false` (fixed entries, or
 * functions answering booleans) give the same to every caller, so that access is built once and shared; a rule
 * object has filters and variables of its caller and instant, and is resolved per request.
 */
function readAccess(
  setup: AccessSetup,
  collection: Collection,
  reachable: readonly Collection[],
  decisions: readonly AccessDecision[],
  limits: FilterLimits,
  now: Date,
): ReadAccess {
  const build = (): ReadAccess =>
    new ReadAccess(setup.schema, new Map(reachable.map((each, index) => [each, readGrant(each, decisions[index]!, limits, now)])))
  if (!decisions.every((decision) => typeof decision === 'boolean')) return build()
  let kept = fixedReads.get(setup)
  if (kept === undefined) fixedReads.set(setup, (kept = new LruMap(true, FIXED_READS_KEPT)))
  let key = `${collection.name}:`
  for (const decision of decisions) key += decision ? '1' : '0'
  let read = kept.get(key)
  if (read === undefined) kept.keep(key, (read = build()))
  return read
}

/** Per router and collection: the read access when no entry it reaches decides per caller; null when one does. */
const constantReads = new WeakMap<AccessSetup, Map<Collection, ReadAccess | null>>()

/**
 * The read access of `collection` when every read entry it reaches is a plain `true` or `false`: the same for
 * every caller, so a request neither runs the entries nor keys the pattern (readAccess) to find it.
 */
function constantRead(setup: AccessSetup, collection: Collection, reachable: readonly Collection[]): ReadAccess | null {
  let byCollection = constantReads.get(setup)
  if (byCollection === undefined) constantReads.set(setup, (byCollection = new Map()))
  let read = byCollection.get(collection)
  if (read === undefined) {
    const entries = reachable.map((each) => setup.entries.get(each)!.read)
    const fixed = entries.every((entry): entry is boolean => typeof entry === 'boolean')
    // Boolean decisions use neither the limits nor the instant (see readGrant).
    read = fixed ? readAccess(setup, collection, reachable, entries, ruleLimits(setup, callerVariables({})), new Date()) : null
    byCollection.set(collection, read)
  }
  return read
}

/** The access of one caller. Collections a request cannot reach are treated as unreadable. */
export class CallerAccess {
  private constructor(
    private readonly setup: AccessSetup,
    readonly context: ItemsContext,
    private readonly reads: ReadAccess,
    /** For the rules' own filters: every field, the caller's variables. */
    private readonly limits: FilterLimits,
    /** The request's instant: `$NOW`, and the `onCreate` / `onUpdate: 'now'` values. */
    readonly now: Date,
  ) {}

  /** What the caller may read: the parser resolves every name of the request through it. */
  get view(): SchemaView {
    return this.reads.view
  }

  /**
   * The caller's view as text: the fields and rows they may read in each collection the request can reach,
   * values included. Two callers with one signature see the same (see query/query-cache.ts).
   */
  get signature(): string {
    return this.reads.signature
  }

  /** The caller's `$CURRENT_USER` and friends, for the filters of the request. */
  get variables(): Variables {
    return this.limits.variables!
  }

  /**
   * Resolves the read rules of `collection` and of every collection its relations reach: at once when every
   * entry decides at once (fixed entries, functions answering plainly), so most requests make no promise here.
   */
  static resolve(
    setup: AccessSetup,
    collection: Collection,
    context: ItemsContext,
    now = new Date(),
  ): CallerAccess | Promise<CallerAccess> {
    const reachable = setup.reachable.get(collection)!
    const constant = constantRead(setup, collection, reachable)
    if (constant !== null) return new CallerAccess(setup, context, constant, ruleLimits(setup, callerVariables(context)), now)
    const pending = reachable.map((each) => decide(setup, each, 'read', context))
    const access = (decisions: readonly AccessDecision[]): CallerAccess => {
      const limits = ruleLimits(setup, callerVariables(context))
      return new CallerAccess(setup, context, readAccess(setup, collection, reachable, decisions, limits, now), limits, now)
    }
    return pending.some((decision) => decision instanceof Promise)
      ? Promise.all(pending.map((decision) => Promise.resolve(decision))).then(access)
      : access(pending as readonly AccessDecision[])
  }

  /**
   * As `resolve`, for the caller the host's `context` option answered, at once or later: at once when both the
   * option and the access entries answer at once (see is-promise-like.ts).
   */
  static forCaller(
    setup: AccessSetup,
    collection: Collection,
    caller: ItemsContext | PromiseLike<ItemsContext>,
  ): CallerAccess | Promise<CallerAccess> {
    if (!isPromiseLike(caller)) return CallerAccess.resolve(setup, collection, caller)
    return Promise.resolve(caller).then((context) => CallerAccess.resolve(setup, collection, context))
  }

  /** Whether the caller may read `collection` at all. */
  canRead(collection: Collection): boolean {
    return this.reads.grants.get(collection) != null
  }

  /** The rule of a write, at once when the entry decides at once; 403 `FORBIDDEN` when the action is denied. */
  write(collection: Collection, action: WriteAction): WriteRule | Promise<WriteRule> {
    const decision = decide(this.setup, collection, action, this.context)
    return isPromiseLike(decision)
      ? decision.then((decided) => this.writeRule(collection, action, decided))
      : this.writeRule(collection, action, decision)
  }

  private writeRule(collection: Collection, action: WriteAction, decision: AccessDecision): WriteRule {
    if (decision === false) {
      if (this.setup.entries.get(collection) === READ_ONLY_BY_DEFAULT) throw new ForbiddenError(closedByDefault(collection, action))
      throw new ForbiddenError()
    }
    const rule: AccessRule = decision === true ? {} : decision
    const { filter, validation } = ruleFilters(rule, collection, action, this.limits, this.now)
    return {
      fields: fieldSet(rule.fields, []),
      scope: action === 'create' ? null : filter,
      presets: Object.fromEntries(Object.entries(rule.presets ?? {}).map(([name, value]) => [name, this.resolve(value)])),
      validation,
    }
  }

  /**
   * The rows a write may name without being told they do not exist: those the caller may read or change.
   * Outside them a key is a 404, as a missing one.
   */
  visibleFor(collection: Collection, rule: WriteRule): FilterNode | null {
    const read = this.view.scope(collection)
    if (read === null || rule.scope === null) return null
    return { kind: 'or', children: [read, rule.scope] }
  }

  /** A preset value with its variable resolved; an absent one writes null. */
  private resolve(value: unknown): unknown {
    if (!isVariable(value)) return value
    const resolved = this.variables(value)
    return resolved === ABSENT ? null : resolved
  }
}

/** The schema as a caller with these grants sees it. */
function readView(schema: Schema, grants: ReadonlyMap<Collection, ReadGrant | null>): SchemaView {
  const open = openView(schema)
  // A view shared by every caller of the same access serves many requests: `*` and ETags list members each time.
  const readableMembers = new Map<Collection, readonly Member[]>()
  const readable = (collection: Collection, member: Member | undefined): member is Member => {
    const grant = grants.get(collection)
    return member !== undefined && grant != null && (grant.fields === null || grant.fields.has(member.name))
  }
  return {
    collections: schema.collections,
    member: (collection, name) => {
      const member = open.member(collection, name)
      return readable(collection, member) ? member : undefined
    },
    members: (collection) => {
      let members = readableMembers.get(collection)
      if (members === undefined)
        readableMembers.set(collection, (members = open.members(collection).filter((member) => readable(collection, member))))
      return members
    },
    scope: (collection) => {
      const grant = grants.get(collection)
      return grant == null ? NO_ROWS : grant.scope
    },
  }
}

/** Runs an access entry for the caller and checks what it answered. */
function decide(
  setup: AccessSetup,
  collection: Collection,
  action: Action,
  context: ItemsContext,
): AccessDecision | Promise<AccessDecision> {
  const entry = setup.entries.get(collection)![action]
  if (typeof entry !== 'function') return entry
  const decision = entry(context)
  const checked = (answer: unknown): AccessDecision => checkDecision(answer, collection, `${where(collection, action)}()`)
  return isPromiseLike(decision) ? Promise.resolve(decision).then(checked) : checked(decision)
}

/** Checks the filters of fixed rules once, at creation, with every variable absent. */
export function checkFixedRules(setup: AccessSetup): void {
  // Every variable is absent without a caller; unknown variable names still fail.
  const limits = ruleLimits(setup, callerVariables({}))
  const now = new Date()
  for (const [collection, entries] of setup.entries) {
    for (const [action, entry] of Object.entries(entries)) {
      if (typeof entry !== 'function' && typeof entry !== 'boolean') ruleFilters(entry, collection, action as Action, limits, now)
    }
  }
}

/**
 * Whether the caller may read and update every item and field of `collection` without limits: what
 * managing its content versions takes, since versions hold whole drafts of items.
 */
export async function hasFullAccess(setup: AccessSetup, collection: Collection, context: ItemsContext): Promise<boolean> {
  const [read, update] = await Promise.all([decide(setup, collection, 'read', context), decide(setup, collection, 'update', context)])
  return read === true && update === true
}
