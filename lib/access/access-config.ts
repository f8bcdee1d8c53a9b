// Checks the `access` options once, at router creation, and answers which collections a request on one can
// reach through relations (only their rules need resolving per request).
import { ConfigError } from '../errors'
import { isPlainObject } from '../is-plain-object'
import { relatedOf, type Collection, type Schema } from '../schema/collection'
import type { Access, AccessDecision, AccessEntry, WriteAction } from '../types'

/** What an access rule is about. */
export type Action = 'read' | WriteAction

export const ACTIONS: readonly Action[] = ['read', 'create', 'update', 'delete']

const RULE_KEYS = new Set(['filter', 'fields', 'presets', 'validation'])

/** Every action allowed, no limits: `true`. */
const OPEN: Readonly<Record<Action, AccessEntry>> = Object.freeze({ read: true, create: true, update: true, delete: true })
const CLOSED: Readonly<Record<Action, AccessEntry>> = Object.freeze({ read: false, create: false, update: false, delete: false })
/**
 * Collections without `access` under a router without `defaultAccess`: reads only, so that forgetting access
 * rules never opens writes to anyone who can reach the mount path. Its own object, so a denied write can say why.
 */
export const READ_ONLY_BY_DEFAULT: Readonly<Record<Action, AccessEntry>> = Object.freeze({
  read: true,
  create: false,
  update: false,
  delete: false,
})

/**
 * Checks a decision's shape; used at creation for fixed decisions and per request for what a rule function
 * answered. Field names are checked against the collection, since a misspelt one would silently narrow or widen.
 */
export function checkDecision(decision: unknown, collection: Collection, where: string): AccessDecision {
  if (typeof decision === 'boolean') return decision
  if (!isPlainObject(decision)) throw new ConfigError('CONFIG_BAD_ACCESS', `${where} must be true, false or a rule object`)
  for (const key of Object.keys(decision)) {
    if (!RULE_KEYS.has(key))
      throw new ConfigError('CONFIG_BAD_ACCESS', `${where}.${key} is not a rule key (filter, fields, presets, validation)`)
  }
  const { filter, fields, presets, validation } = decision
  for (const [key, value] of Object.entries({ filter, presets, validation })) {
    if (value !== undefined && !isPlainObject(value)) throw new ConfigError('CONFIG_BAD_ACCESS', `${where}.${key} must be an object`)
  }
  if (fields !== undefined && fields !== '*') {
    if (!Array.isArray(fields) || fields.some((name) => typeof name !== 'string')) {
      throw new ConfigError('CONFIG_BAD_ACCESS', `${where}.fields must be '*' or an array of field names`)
    }
    const unknown = fields.find((name) => name !== '*' && !collection.members.has(name))
    if (unknown !== undefined) throw new ConfigError('CONFIG_BAD_ACCESS', `${where}.fields names unknown field "${unknown}"`)
  }
  const unknownPreset = Object.keys(presets ?? {}).find((name) => collection.fields.every((field) => field.name !== name))
  if (unknownPreset !== undefined) throw new ConfigError('CONFIG_BAD_ACCESS', `${where}.presets names unknown field "${unknownPreset}"`)
  return decision
}

function checkAccess(access: unknown, collection: Collection, where: string): Record<Action, AccessEntry> {
  if (typeof access === 'boolean') return access ? OPEN : CLOSED
  if (!isPlainObject(access)) throw new ConfigError('CONFIG_BAD_ACCESS', `${where} must be true, false or an object of actions`)
  for (const key of Object.keys(access)) {
    if (!ACTIONS.includes(key as Action))
      throw new ConfigError('CONFIG_BAD_ACCESS', `${where}.${key} is not an action (read, create, update, delete)`)
  }
  const entries = { ...CLOSED, ...(access as Access) }
  for (const action of ACTIONS) {
    const entry = entries[action]
    if (typeof entry !== 'function') checkDecision(entry, collection, `${where}.${action}`)
  }
  return entries
}

/**
 * The access entries of every collection: its own `access`, the router's `defaultAccess`, or reads only when
 * neither is set.
 */
export function buildAccess(
  schema: Schema,
  definitions: Readonly<Record<string, { access?: unknown }>>,
  defaultAccess: unknown,
): ReadonlyMap<Collection, Readonly<Record<Action, AccessEntry>>> {
  return new Map(
    [...schema.collections.values()].map((collection) => {
      const own = definitions[collection.name]?.access
      if (own !== undefined) return [collection, checkAccess(own, collection, `collections.${collection.name}.access`)]
      if (defaultAccess === undefined) return [collection, READ_ONLY_BY_DEFAULT]
      return [collection, checkAccess(defaultAccess, collection, 'options.defaultAccess')]
    }),
  )
}

/** Each collection with every collection its relations lead to, itself included, at any depth. */
export function reachableCollections(schema: Schema): ReadonlyMap<Collection, readonly Collection[]> {
  const neighbours = (collection: Collection): Collection[] =>
    [...collection.members.values()].flatMap((member) => [
      ...[relatedOf(member) ?? []].flat(),
      ...(member.kind === 'field' ? (member.referencesAny?.collections ?? []) : []),
    ])
  return new Map(
    [...schema.collections.values()].map((start) => {
      const seen = new Set([start])
      for (const collection of seen) for (const next of neighbours(collection)) seen.add(next)
      return [start, [...seen]]
    }),
  )
}
