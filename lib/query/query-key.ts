// A request's query written out as text: everything about it that decides the SQL the router sends, without the
// values (a statement template's key, see sql/statement-templates.ts), or with them (the key of a caller's view
// among parsed queries, see query-cache.ts). Schema objects are written by identity, since one router's schema
// never changes.
import type { FilterNode } from './filter-node'
import type { AggregateQuery, FieldNode, FunctionOperand, GroupNode, SortNode } from './query'

/** A comparison: the nodes whose values a statement binds. */
export type ComparisonNode = Extract<FilterNode, { kind: 'comparison' | 'function' }>

/** A query written out as text (`key`), without its values or with them, its comparisons in the order written. */
export class QueryKey {
  private readonly parts: string[] = []
  readonly comparisons: ComparisonNode[] = []
  /** Nodes already written: a node met again writes a back-reference, since identity can matter (CountJoins). */
  private readonly written = new Map<object, number>()
  private readonly comparisonIndex = new Map<ComparisonNode, number>()

  /** `values`: comparisons write their values too. */
  constructor(
    kind: string,
    private readonly values = false,
  ) {
    this.parts.push(kind)
  }

  get key(): string {
    return this.parts.join(',')
  }

  /** The index of `node` among the comparisons, or -1 when the key does not hold it. */
  indexOf(node: ComparisonNode): number {
    return this.comparisonIndex.get(node) ?? -1
  }

  /** A word of the router's own (a kind, an operator, a direction), which never holds the separator. */
  word(word: string): this {
    this.parts.push(word)
    return this
  }

  /** Text a request chose (a computed field's output name), quoted. */
  text(value: string): this {
    this.parts.push(JSON.stringify(value))
    return this
  }

  /** A schema object (a collection, a field), by identity: one router's schema never changes. */
  schema(object: object): this {
    this.parts.push(`#${identity(object)}`)
    return this
  }

  /** Whether `object` was written before; if so, writes the back-reference. */
  private again(object: object): boolean {
    const first = this.written.get(object)
    if (first !== undefined) this.parts.push(`@${first}`)
    else this.written.set(object, this.written.size)
    return first !== undefined
  }

  filter(node: FilterNode | null): this {
    if (node === null) return this.word('null')
    if (this.again(node)) return this
    switch (node.kind) {
      case 'and':
      case 'or':
        this.parts.push(`${node.kind}(`)
        node.children.forEach((child) => this.filter(child))
        this.parts.push(')')
        return this
      case 'comparison':
        this.comparison(node)
        return this.word('comparison').schema(node.field).word(node.operator)
      case 'function':
        this.comparison(node)
        return this.word('function').operand(node.operand).word(node.operator)
      case 'm2o':
        return this.word('m2o').schema(node.field).schema(node.related).filter(node.filter)
      case 'o2m':
        return this.word('o2m')
          .word(node.quantifier)
          .schema(node.parentKey)
          .schema(node.related)
          .schema(node.foreignKey)
          .filter(node.filter)
      default: {
        const unreachable: never = node
        throw new Error(`Unhandled filter node ${JSON.stringify(unreachable)}`)
      }
    }
  }

  private comparison(node: ComparisonNode): void {
    this.comparisonIndex.set(node, this.comparisons.length)
    this.comparisons.push(node)
    if (this.values) this.parts.push(JSON.stringify(node.value))
  }

  operand(operand: FunctionOperand): this {
    if (operand.kind === 'datePart') return this.word(operand.part).schema(operand.field)
    return this.word('count').schema(operand.related).schema(operand.foreignKey).schema(operand.parentKey).filter(operand.scope)
  }

  /**
   * What `fields` adds to a statement's columns: fields, many-to-one keys, a many-to-any's key and collection, and
   * computed values by output name.
   */
  columns(fields: readonly FieldNode[]): this {
    for (const node of fields) {
      if (node.kind === 'field' || node.kind === 'm2o') this.word(node.kind).schema(node.field)
      else if (node.kind === 'm2a') this.word('m2a').schema(node.field).schema(node.field.referencesAny!.collectionField)
      else if (node.kind === 'function') this.word('function').text(node.output).operand(node.operand)
    }
    return this.word('end')
  }

  /** What a grouped statement reads: its groups, its aggregates, and its order (an aggregate's by its place). */
  aggregate(query: AggregateQuery): this {
    const group = (node: GroupNode): this => (node.operand ? this.operand(node.operand) : this.word('field').schema(node.field))
    for (const node of query.groupBy) group(node)
    this.word('aggregates')
    for (const node of query.aggregates) {
      this.word(node.fn)
      if (node.field === null) this.word('*')
      else this.schema(node.field)
    }
    this.word('order')
    for (const { target, direction } of query.sort) {
      this.word(direction)
      if (target.kind === 'group') group(target.group)
      else this.word(String(query.aggregates.indexOf(target.aggregate)))
    }
    return this.word('end')
  }

  sort(nodes: readonly SortNode[]): this {
    for (const node of nodes) {
      this.word('sort').schema(node.field).word(node.direction)
      for (const hop of node.path) this.schema(hop.field).schema(hop.related).filter(hop.scope)
      if (node.operand) this.operand(node.operand)
      this.word('end')
    }
    return this.word('end')
  }
}

const identities = new WeakMap<object, number>()
let nextIdentity = 0

function identity(object: object): number {
  let id = identities.get(object)
  if (id === undefined) identities.set(object, (id = nextIdentity++))
  return id
}
