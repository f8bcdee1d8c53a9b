// Parses field functions such as `year(published_at)` and `count(comments)` into FunctionOperands.
import { InvalidQueryError } from '../errors'
import type { Collection } from '../schema/collection'
import type { SchemaView } from './schema-view'
import type { DatePart, FunctionOperand } from './query'

/** Which half of a temporal value each part is taken from (see FieldTypeSpec.parts). */
const DATE_PARTS: Readonly<Record<DatePart, 'date' | 'time'>> = Object.freeze({
  year: 'date',
  month: 'date',
  week: 'date',
  day: 'date',
  weekday: 'date',
  hour: 'time',
  minute: 'time',
  second: 'time',
})

const CALL = /^(\w+)\(([^()]*)\)$/

/** True when the text has the shape of a function call, so a caller can tell it apart from a field name. */
export const isFunctionCall = (text: string): boolean => CALL.test(text)

/** The key a function's value has in a response: `year(published_at)` → `published_at_year`. */
export const functionOutput = (text: string): string => {
  const [, name = '', argument = ''] = CALL.exec(text) ?? []
  return `${argument.trim()}_${name}`
}

/** Resolves `name(field)` against `collection`; only fields of the right type that the view shows qualify. */
export function parseFunction(text: string, collection: Collection, schema: SchemaView): FunctionOperand {
  const [, name, rawArgument = ''] = CALL.exec(text) ?? []
  if (name === undefined) throw new InvalidQueryError(`"${text}" is not a function call`)
  if (name !== 'count' && !Object.hasOwn(DATE_PARTS, name)) {
    throw new InvalidQueryError(`Unknown function in "${text}"; use count() or one of ${Object.keys(DATE_PARTS).join(', ')}`)
  }
  const argument = rawArgument.trim()
  const member = schema.member(collection, argument)
  if (!member) throw new InvalidQueryError(`"${text}": field "${argument}" does not exist in collection "${collection.name}"`)
  if (name === 'count') {
    if (member.kind !== 'o2m') throw new InvalidQueryError(`"${text}": count() takes a one-to-many field`)
    return {
      kind: 'count',
      related: member.related,
      foreignKey: member.foreignKey,
      parentKey: collection.primaryKey,
      scope: schema.scope(member.related),
    }
  }
  const part = name as DatePart
  if (member.kind !== 'field' || !member.spec.parts[DATE_PARTS[part]]) {
    throw new InvalidQueryError(`"${text}": ${part}() does not apply to a field of type ${member.kind === 'o2m' ? 'o2m' : member.type}`)
  }
  return { kind: 'datePart', part, field: member }
}
