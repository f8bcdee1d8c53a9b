// The answers of the schema endpoints for one caller's sight of the schema, and the snapshot built from them.
import { NotFoundError } from '../errors'
import type { Field } from '../schema/collection'
import { describeCollection } from './describe-collections'
import { describeField, FieldIds } from './describe-fields'
import { describeRelation, relationFields, visibleRelations } from './describe-relations'
import type { DirectusCollection, DirectusField, DirectusRelation, DirectusSnapshot, Json } from './directus-shapes'
import type { VisibleSchema } from './visible-schema'

/** The Directus release whose answers these follow (docs/reference/directus-schema.md). */
export const DIRECTUS_VERSION = '12.4.1'

/** Objects with their keys sorted at every depth, as Directus writes a snapshot. */
function sortedKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value === null || typeof value !== 'object') return value
  const object = value as { readonly [key: string]: Json }
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, sortedKeys(object[key]!)]),
  )
}

const withoutId = (meta: { readonly [key: string]: Json }): { [key: string]: Json } => {
  const { id: _id, ...rest } = meta
  return rest
}

export class SchemaAnswers {
  private readonly fieldIds: FieldIds
  private readonly relationIds: Map<Field, number>

  constructor(
    private readonly sight: VisibleSchema,
    /** The snapshot's `vendor`: the database the router talks to. */
    private readonly vendor: string,
  ) {
    this.fieldIds = new FieldIds(sight)
    this.relationIds = new Map(visibleRelations(sight).map((field, index) => [field, index + 1]))
  }

  collections(): DirectusCollection[] {
    return this.sight.collections.map(describeCollection)
  }

  collection(name: string): DirectusCollection {
    return describeCollection(this.known(name))
  }

  fields(): DirectusField[] {
    return this.sight.collections.flatMap((collection) => this.fieldsOf(collection.name))
  }

  fieldsOf(name: string): DirectusField[] {
    const collection = this.known(name)
    return this.sight.members(collection).map((member) => describeField(member, this.sight, this.fieldIds))
  }

  /** One field: Directus puts `meta` before `schema` here, unlike in its lists. */
  field(name: string, fieldName: string): DirectusField {
    const collection = this.known(name)
    const member = this.sight.members(collection).find((each) => each.name === fieldName)
    if (!member) throw new NotFoundError(`No field "${fieldName}" in collection "${name}".`)
    const { collection: owner, field, type, meta, schema } = describeField(member, this.sight, this.fieldIds)
    return { collection: owner, field, type, meta, schema }
  }

  relations(): DirectusRelation[] {
    return [...this.relationIds].map(([field, id]) => describeRelation(field, id, this.sight))
  }

  /** The relations whose many side is the collection, as Directus lists them. */
  relationsOf(name: string): DirectusRelation[] {
    return relationFields(this.known(name), this.sight).map((field) => describeRelation(field, this.relationIds.get(field)!, this.sight))
  }

  relation(name: string, fieldName: string): DirectusRelation {
    const field = relationFields(this.known(name), this.sight).find((each) => each.name === fieldName)
    if (!field) throw new NotFoundError(`No relation on field "${fieldName}" of collection "${name}".`)
    return describeRelation(field, this.relationIds.get(field)!, this.sight)
  }

  /** The schema as `GET /schema/snapshot` answers it: no row ids, keys sorted, aliases without `schema`. */
  snapshot(): DirectusSnapshot {
    return {
      version: 1,
      directus: DIRECTUS_VERSION,
      vendor: this.vendor,
      collections: this.collections().map((collection) => sortedKeys(collection as unknown as Json)),
      fields: this.fields().map(({ schema, meta, ...rest }) =>
        sortedKeys({ ...rest, meta: withoutId(meta), ...(schema === null ? {} : { schema: schema as unknown as Json }) }),
      ),
      systemFields: [],
      relations: this.relations().map(({ meta, ...rest }) => sortedKeys({ ...rest, meta: withoutId(meta) } as unknown as Json)),
    }
  }

  /** A collection the caller can see; one it cannot is answered like one that does not exist. */
  private known(name: string) {
    const collection = this.sight.collection(name)
    if (!collection) throw new NotFoundError(`No collection "${name}".`)
    return collection
  }
}
