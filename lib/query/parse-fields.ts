// Parses ?fields (dot paths, wildcards, aliases) and ?deep into the tree of response entries.
import { InvalidQueryError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { anyTarget, isRelation, relatedOf, type Collection, type Field, type Member } from '../schema/collection'
import type { SchemaView } from './schema-view'
import { both } from './filter-node'
import { parseFilter, type FilterLimits } from './parse-filter'
import { parseList } from './parse-list'
import { parseObjectParam } from './parse-object-param'
import { parsePagination } from './parse-pagination'
import { parseSearch } from './parse-search'
import { parseSort } from './parse-sort'
import { functionOutput, isFunctionCall, parseFunction } from './parse-function'
import type { AnyTarget, FieldNode, FunctionOperand, Selection } from './query'

export interface FieldsOptions extends FilterLimits {
  readonly schema: SchemaView
  /** Most relations one path may cross (`a.b.c` crosses two). */
  readonly maxRelationalDepth: number
  /** Most relation nodes one request may expand: each one costs a statement, and `*.*.*` grows fast. */
  readonly maxRelations: number
}

/** The walk over `fields`: the options, request-wide settings and the relations expanded so far. */
interface FieldsState extends FieldsOptions {
  readonly backlink: boolean
  readonly now: Date
  relations: number
}

const DEEP_KEYS = new Set(['_filter', '_sort', '_limit', '_offset', '_page', '_search'])

interface Entry {
  readonly output: string
  /** The member listed, or the function computed (`year(published_at)`). */
  readonly member: Member | FunctionOperand
  /** The rest of every path through this member; null when it is only listed, not expanded. */
  paths: string[][] | null
  /** A many-to-any's paths through one of its collections (`item:block_text.*`), by collection. */
  scoped?: Map<Collection, string[][]>
}

/** A many-to-any's item field, which paths cross into each of its collections. */
const isAnyItem = (member: Member): member is Field & { referencesAny: NonNullable<Field['referencesAny']> } =>
  member.kind === 'field' && member.referencesAny !== undefined

/**
 * `item:block_text`: a many-to-any's field and the one collection a path goes on in. A segment without a colon
 * answers null.
 */
function scopedSegment(collection: Collection, segment: string, schema: SchemaView): { member: Member; related: Collection } | null {
  const colon = segment.indexOf(':')
  if (colon < 0) return null
  const name = segment.slice(0, colon)
  const target = segment.slice(colon + 1)
  const member = schema.member(collection, name)
  if (!member) throw new InvalidQueryError(`Field "${name}" does not exist in collection "${collection.name}"`)
  if (!isAnyItem(member)) {
    throw new InvalidQueryError(`"${segment}": only a many-to-any field takes a collection after ":", and "${name}" is not one`)
  }
  const related = anyTarget(member, target)
  if (!related) {
    const allowed = member.referencesAny.collections.map((each) => each.name).join(', ')
    throw new InvalidQueryError(`"${segment}": "${name}" of collection "${collection.name}" holds items of ${allowed}, not "${target}"`)
  }
  return { member, related }
}

/** The member of `related` that leads back to where a relation came from, for `backlink=false`. */
function backMember(from: Member, related: Collection): Member | undefined {
  if (from.kind === 'o2m') return from.foreignKey
  return [...related.members.values()].find((member) => member.kind === 'o2m' && member.foreignKey === from)
}

function deepOf(deep: unknown, output: string): Record<string, unknown> {
  const value = isPlainObject(deep) ? deep[output] : undefined
  if (value === undefined) return {}
  if (!isPlainObject(value)) throw new InvalidQueryError(`"deep" for "${output}" must be an object`)
  return value
}

/**
 * Checks a whole `deep` tree against the schema, also where `fields` does not reach, so that a typo is a 400
 * and not a silently ignored setting: list options only on one-to-many relations, other keys only relations.
 */
function checkDeep(
  deep: Record<string, unknown>,
  collection: Collection,
  state: FieldsOptions,
  where: string,
  onList: boolean,
  aliases: Readonly<Record<string, string>> = {},
  depth = 0,
): void {
  // A JSON `deep` (a SEARCH body may hold a megabyte of it) could otherwise nest deeper than the stack goes.
  if (depth > state.maxRelationalDepth) {
    throw new InvalidQueryError(`"deep" crosses more than ${state.maxRelationalDepth} relations`)
  }
  const schema = state.schema
  for (const [key, value] of Object.entries(deep)) {
    if (key.startsWith('_')) {
      if (!DEEP_KEYS.has(key)) throw new InvalidQueryError(`"deep" does not know "${key}"${where}`)
      if (!onList) throw new InvalidQueryError(`"deep" option "${key}"${where} applies to one-to-many relations only`)
      continue
    }
    const member = schema.member(collection, aliases[key] ?? key)
    if (!member || !isRelation(member)) {
      throw new InvalidQueryError(`"deep" names "${key}", which is not a relation of collection "${collection.name}"`)
    }
    if (!isPlainObject(value)) throw new InvalidQueryError(`"deep" for "${key}" must be an object`)
    checkDeep(value, relatedOf(member)!, state, ` (under "${key}")`, member.kind === 'o2m', {}, depth + 1)
  }
}

/** The per-parent list shape of an o2m (`deep[rel][_limit]=5` ...); the related collection's defaults otherwise. */
function parseDeepSelection(deep: Record<string, unknown>, related: Collection, state: FieldsState): Selection {
  return {
    filter: both(state.schema.scope(related), parseFilter(deep._filter, related, state, state.now)),
    search: parseSearch(deep._search, related, state.schema),
    sort: parseSort(deep._sort, related, state.schema),
    ...parsePagination({ limit: deep._limit, offset: deep._offset, page: deep._page }, related.limits),
  }
}

/**
 * A many-to-any's item expanded in each collection a path reaches: a path without a collection (`item.*`) in
 * every one of them, `item:block_text.*` in that one. Each collection expanded is a relation node.
 */
function toAnyNode(
  entry: Entry,
  member: Field & { referencesAny: NonNullable<Field['referencesAny']> },
  depth: number,
  state: FieldsState,
): FieldNode {
  const targets: AnyTarget[] = []
  for (const related of member.referencesAny.collections) {
    const paths = [...(entry.paths ?? []), ...(entry.scoped?.get(related) ?? [])]
    if (paths.length === 0) continue
    if (++state.relations > state.maxRelations) {
      throw new InvalidQueryError(`"fields" expands more than ${state.maxRelations} relations`)
    }
    targets.push({ related, children: resolveLevel(related, paths, depth + 1, undefined, {}, state), scope: state.schema.scope(related) })
  }
  return { kind: 'm2a', output: entry.output, field: member, targets }
}

function toNode(entry: Entry, depth: number, deep: unknown, state: FieldsState): FieldNode {
  const { member, output, paths } = entry
  if (member.kind === 'datePart' || member.kind === 'count') return { kind: 'function', output, operand: member }
  if (isAnyItem(member) && (paths !== null || entry.scoped !== undefined)) return toAnyNode(entry, member, depth, state)
  if (member.kind === 'field' && (paths === null || member.references === undefined)) return { kind: 'field', output, field: member }
  if (++state.relations > state.maxRelations) {
    throw new InvalidQueryError(`"fields" expands more than ${state.maxRelations} relations`)
  }
  const related = relatedOf(member)!
  const nested = deepOf(deep, output)
  const children = paths === null ? null : resolveLevel(related, paths, depth + 1, backMember(member, related), nested, state)
  if (member.kind === 'field')
    return { kind: 'm2o', output, field: member, related, children: children!, scope: state.schema.scope(related) }
  return { kind: 'o2m', output, relation: member, related, children, selection: parseDeepSelection(nested, related, state) }
}

function resolveLevel(
  collection: Collection,
  paths: readonly string[][],
  depth: number,
  back: Member | undefined,
  deep: unknown,
  state: FieldsState,
  aliases: Readonly<Record<string, string>> = {},
): FieldNode[] {
  const entries = new Map<string, Entry>()
  const add = (output: string, member: Entry['member'], rest: string[] | null): void => {
    const entry = entries.get(output) ?? { output, member, paths: null }
    entries.set(output, entry)
    if (rest !== null) (entry.paths ??= []).push(rest)
  }
  for (const [head = '', ...rest] of paths) {
    if (head === '*') {
      for (const member of state.schema.members(collection)) {
        // Bytes can be large, and a list would load them for every row: they are read when named.
        if (member.kind === 'field' && member.type === 'binary') continue
        // A wildcard expands relations; with backlink=false not the one leading back to the parent.
        const expand = rest.length > 0 && (isRelation(member) || isAnyItem(member)) && !(member === back && !state.backlink)
        add(member.name, member, expand ? rest : null)
      }
      continue
    }
    if (isFunctionCall(head) && rest.length === 0) {
      add(functionOutput(head), parseFunction(head, collection, state.schema), null)
      continue
    }
    const scoped = scopedSegment(collection, head, state.schema)
    if (scoped !== null) {
      if (rest.length === 0) throw new InvalidQueryError(`"fields" path "${head}" must name fields of "${scoped.related.name}" after it`)
      const name = scoped.member.name
      const entry = entries.get(name) ?? { output: name, member: scoped.member, paths: null }
      entries.set(name, entry)
      const byCollection = (entry.scoped ??= new Map())
      byCollection.set(scoped.related, [...(byCollection.get(scoped.related) ?? []), rest])
      continue
    }
    const member = state.schema.member(collection, aliases[head] ?? head)
    if (!member) throw new InvalidQueryError(`Field "${head}" does not exist in collection "${collection.name}"`)
    if (rest.length > 0 && !isRelation(member) && !isAnyItem(member)) {
      throw new InvalidQueryError(
        `Field "${head}" of collection "${collection.name}" is not a relation, so "${[head, ...rest].join('.')}" cannot go through it`,
      )
    }
    add(head, member, rest.length > 0 ? rest : null)
  }
  return [...entries.values()].map((entry) => toNode(entry, depth, deep, state))
}

/** `alias[newName]=field`: extra names for members of the queried collection. */
function parseAliases(raw: unknown, collection: Collection, schema: SchemaView): Record<string, string> {
  const given = parseObjectParam(raw, 'alias', 'alias[newName]=field')
  const aliases: Record<string, string> = Object.create(null)
  for (const [name, target] of Object.entries(given ?? {})) {
    if (typeof target !== 'string' || !schema.member(collection, target)) {
      throw new InvalidQueryError(`Alias "${name}" must name a field of collection "${collection.name}"`)
    }
    if (name.includes('.') || schema.member(collection, name)) {
      throw new InvalidQueryError(`Alias "${name}" cannot contain a dot or reuse a field's name`)
    }
    aliases[name] = target
  }
  return aliases
}

export interface FieldsInput {
  readonly fields: unknown
  readonly deep?: unknown
  readonly alias?: unknown
  readonly backlink: boolean
}

export function parseFields(input: FieldsInput, collection: Collection, options: FieldsOptions, now = new Date()): FieldNode[] {
  const paths = parseList(input.fields, 'fields').map((path) => path.split('.'))
  if (paths.length === 0) paths.push(['*'])
  for (const path of paths) {
    if (path.some((segment) => segment === '')) throw new InvalidQueryError(`"fields" has an empty segment in "${path.join('.')}"`)
    if (path.length - 1 > options.maxRelationalDepth) {
      throw new InvalidQueryError(`"fields" path "${path.join('.')}" crosses more than ${options.maxRelationalDepth} relations`)
    }
  }
  const state: FieldsState = { ...options, backlink: input.backlink, now, relations: 0 }
  const aliases = parseAliases(input.alias, collection, options.schema)
  const deep = parseObjectParam(input.deep, 'deep') ?? {}
  checkDeep(deep, collection, options, '', false, aliases)
  return resolveLevel(collection, paths, 0, undefined, deep, state, aliases)
}
