// How a version shows its item: the delta laid over the item as read, field by field and level by level. A plain
// value replaces the one read; a nested value (a many-to-one object, a one-to-many list in either form) is shown
// as the promote would leave it, as far as the draft says: the related items it keeps, links, updates and creates.
// The related rows are read in one statement per relation and level, for every item of a page at once.
import { isPlainObject } from '../is-plain-object'
import { both, fieldIn } from '../query/filter-node'
import { parseBodyKey, splitKey } from '../query/parse-key'
import type { FieldNode } from '../query/query'
import { keyId } from '../repository/item-loader'
import type { ItemsRepository } from '../repository/items-repository'
import type { Collection } from '../schema/collection'
import { keyComponents, keyOfValues, listedKey } from '../schema/item-key'
import type { Item, PrimaryKey } from '../types'

/** One item to show: as read, its key (null for an item the draft creates), and the changes laid over it. */
export interface Layer {
  readonly item: Item
  readonly key: PrimaryKey | null
  readonly delta: Readonly<Record<string, unknown>>
}

type O2MNode = Extract<FieldNode, { kind: 'o2m' }>
type M2ONode = Extract<FieldNode, { kind: 'm2o' }>
type M2ANode = Extract<FieldNode, { kind: 'm2a' }>

/** An item the draft creates, before its fields are laid over it: nothing set, no related items. */
export function blank(fields: readonly FieldNode[]): Item {
  return Object.fromEntries(fields.map((node) => [node.output, node.kind === 'o2m' ? [] : null]))
}

/** Keys in ascending order, as a list read without a sort answers them; a composite key component by component. */
function byKey(collection: Collection, a: PrimaryKey, b: PrimaryKey): number {
  const one = (x: unknown, y: unknown): number =>
    typeof x === 'number' && typeof y === 'number' ? x - y : String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0
  if (collection.key.length === 1) return one(a, b)
  const [left, right] = [keyComponents(collection, a), keyComponents(collection, b)]
  for (let index = 0; index < left.length; index++) {
    const order = one(left[index], right[index])
    if (order !== 0) return order
  }
  return 0
}

/** A child the draft keeps, links or updates (`rest` its changes, null for none). */
interface KeptChild {
  readonly key: PrimaryKey
  rest: Record<string, unknown> | null
}

export class VersionOverlay {
  constructor(private readonly repository: ItemsRepository) {}

  /** Each item as its delta shows it, shaped by `fields`; a delta value for a field `fields` leaves out is not shown. */
  async apply(layers: readonly Layer[], fields: readonly FieldNode[]): Promise<Item[]> {
    const shown = layers.map(({ item }): Item => ({ ...item }))
    for (const node of fields) {
      if (node.kind === 'function') continue
      const name = node.kind === 'o2m' ? node.relation.name : node.field.name
      const changed = layers.flatMap(({ delta }, index) => (Object.hasOwn(delta, name) ? [index] : []))
      if (changed.length === 0) continue
      const values = changed.map((index) => layers[index]!.delta[name])
      // A many-to-one read as its key shows the draft's value as saved (an object for an item to create or update).
      const results =
        node.kind === 'field'
          ? values
          : node.kind === 'm2o'
            ? await this.toOne(node, values)
            : node.kind === 'm2a'
              ? await this.toAny(
                  node,
                  changed.map((index) => layers[index]!.delta),
                )
              : await this.toMany(
                  node,
                  changed.map((index) => layers[index]!.key),
                  values,
                )
      changed.forEach((index, n) => {
        shown[index]![node.output] = results[n]
      })
    }
    return shown
  }

  /** A many-to-one expanded: the item a key names, or an object's changes over the item it names (or a new one). */
  private async toOne(node: M2ONode, values: readonly unknown[]): Promise<unknown[]> {
    const { related } = node
    const keys: PrimaryKey[] = []
    for (const value of values) {
      if (isPlainObject(value)) {
        const [key] = splitKey(related, value)
        if (key !== null) keys.push(key)
      } else if (value !== null && value !== undefined) keys.push(parseBodyKey(related, value))
    }
    const read = await this.read(related, keys, node.children, node.scope)
    const layers: Layer[] = []
    const slots: number[] = []
    const results = values.map((value, index): unknown => {
      if (value === null || value === undefined) return null
      if (!isPlainObject(value)) return read.get(keyId(parseBodyKey(related, value))) ?? null
      const [key, rest] = splitKey(related, value)
      const base = key === null ? blank(node.children) : read.get(keyId(key))
      if (base === undefined) return null
      slots.push(index)
      layers.push({ item: base, key, delta: rest })
      return base
    })
    const overlaid = await this.apply(layers, node.children)
    slots.forEach((slot, index) => {
      results[slot] = overlaid[index]
    })
    return results
  }

  /**
   * A many-to-any's item: for each collection the request expands, as a many-to-one to it would show; the value
   * as saved where the draft names another collection (the draft always names it beside the item).
   */
  private async toAny(node: M2ANode, deltas: readonly Readonly<Record<string, unknown>>[]): Promise<unknown[]> {
    const name = node.field.referencesAny!.collectionField.name
    const results: unknown[] = deltas.map((delta) => delta[node.field.name])
    for (const target of node.targets) {
      const slots = deltas.flatMap((delta, index) => (delta[name] === target.related.name ? [index] : []))
      if (slots.length === 0) continue
      const shown = await this.toOne(
        { kind: 'm2o', output: node.output, field: node.field, ...target },
        slots.map((index) => results[index]),
      )
      slots.forEach((slot, index) => (results[slot] = shown[index]))
    }
    return results
  }

  /**
   * A one-to-many: the children the parent has (those the caller sees), changed as the draft says. The basic form
   * is the whole new list; the detailed form removes `delete`, changes `update` (adopting a child of another
   * parent, as the promote does) and adds `create`. Children with a key come in key order, created ones after them.
   */
  private async toMany(node: O2MNode, parents: readonly (PrimaryKey | null)[], values: readonly unknown[]): Promise<unknown[]> {
    const { related, selection } = node
    const current = await this.childKeys(node, parents)
    const lists = values.map((value, index) => {
      const kept: KeptChild[] = []
      const created: Record<string, unknown>[] = []
      const add = (element: unknown): void => {
        if (!isPlainObject(element)) {
          kept.push({ key: parseBodyKey(related, element), rest: null })
          return
        }
        const [key, rest] = splitKey(related, element)
        if (key === null) created.push(rest)
        else {
          const same = kept.find((child) => keyId(child.key) === keyId(key))
          if (same) same.rest = { ...same.rest, ...rest }
          else kept.push({ key, rest })
        }
      }
      if (value === null) return { kept, created }
      if (Array.isArray(value)) {
        value.forEach(add)
        return { kept, created }
      }
      const detailed = value as { create?: unknown[]; update?: unknown[]; delete?: unknown[] }
      const gone = new Set((detailed.delete ?? []).map((key) => keyId(parseBodyKey(related, key))))
      const parent = parents[index]
      for (const key of parent === null ? [] : (current.get(keyId(parent)) ?? [])) if (!gone.has(keyId(key))) kept.push({ key, rest: null })
      for (const element of detailed.update ?? []) add(element)
      for (const element of detailed.create ?? []) created.push({ ...(element as Record<string, unknown>) })
      return { kept, created }
    })
    const fields = node.children ?? related.key.map((field) => ({ kind: 'field', output: field.name, field }) as const)
    const read = await this.read(
      related,
      lists.flatMap(({ kept }) => kept.map((child) => child.key)),
      fields,
      selection.filter,
    )
    // Every item to show, over all parents, laid over in one pass per level.
    const layers: Layer[] = []
    const shaped = lists.map(({ kept, created }) => {
      const visible = kept.filter((child) => read.has(keyId(child.key))).sort((a, b) => byKey(related, a.key, b.key))
      // A list of keys, as a read answers it: a composite key as an object of its fields.
      if (node.children === null) return [...visible.map((child) => listedKey(related, child.key)), ...created]
      const start = layers.length
      for (const child of visible) layers.push({ item: read.get(keyId(child.key))!, key: child.key, delta: child.rest ?? {} })
      for (const rest of created) layers.push({ item: blank(node.children), key: null, delta: rest })
      return [start, layers.length] as const
    })
    const overlaid = node.children === null ? [] : await this.apply(layers, node.children)
    return shaped.map((shape) => (node.children === null ? shape : overlaid.slice(...(shape as readonly [number, number]))))
  }

  /** The keys of each parent's children the caller may see, by the parent's key id, in key order. */
  private async childKeys(node: O2MNode, parents: readonly (PrimaryKey | null)[]): Promise<Map<string, PrimaryKey[]>> {
    const { related, relation, selection } = node
    const known = parents.filter((key): key is PrimaryKey => key !== null)
    const byParent = new Map<string, PrimaryKey[]>()
    if (known.length === 0) return byParent
    const page = await this.repository.list(related, {
      fields: [
        ...related.key.map((field, index) => ({ kind: 'field', output: `key${index}`, field }) as const),
        { kind: 'field', output: 'parent', field: relation.foreignKey },
      ],
      filter: both(fieldIn(relation.foreignKey, [...new Map(known.map((key) => [keyId(key), key])).values()]), selection.filter),
      scope: null,
      search: null,
      sort: related.key.map((field) => ({ field, direction: 'asc', path: [] }) as const),
      limit: null,
      offset: 0,
      aggregate: null,
      meta: { totalCount: false, filterCount: false },
      backlink: true,
      version: null,
    })
    for (const row of page.items) {
      const parent = keyId(row.parent)
      const key = keyOfValues(related, (field) => row[`key${related.key.indexOf(field)}`])
      byParent.set(parent, [...(byParent.get(parent) ?? []), key])
    }
    return byParent
  }

  /** The items these keys name that the caller may see (`scope`), by key id. */
  private async read(
    collection: Collection,
    keys: readonly PrimaryKey[],
    fields: readonly FieldNode[],
    scope: Parameters<ItemsRepository['readKeyed']>[3],
  ): Promise<Map<string, Item>> {
    if (keys.length === 0) return new Map()
    const read = await this.repository.readKeyed(collection, keys, fields, scope)
    return new Map(read.map(({ key, item }) => [keyId(key), item]))
  }
}
