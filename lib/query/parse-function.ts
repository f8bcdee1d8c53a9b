// Parses field functions such as `year(published_at)` and `count(comments)` into FunctionOperands.
import { InvalidQueryError } from '../errors'
import type { Collection, Field } from '../schema/collection'
import type { SchemaView } from '../schema/schema-view'
import type { FieldType } from '../types'
import type { DatePart, FunctionOperand } from './query'

const DATE_TYPES: readonly FieldType[] = ['date', 'dateTime', 'timestamp']
const TIME_TYPES: readonly FieldType[] = ['dateTime', 'timestamp', 'time']

/** The field types each date part can be taken from. */
const DATE_PARTS: Readonly<Record<DatePart, readonly FieldType[]>> = Object.freeze({
  year: DATE_TYPES,
  month: DATE_TYPES,
  week: DATE_TYPES,
  day: DATE_TYPES,
  weekday: DATE_TYPES,
  hour: TIME_TYPES,
  minute: TIME_TYPES,
  second: TIME_TYPES,
})

const CALL = /^(\w+)\(([^()]*)\)$/

/** True when the text has the shape of a function call, so a caller can tell it apart from a field name. */
export const isFunctionCall = (text: string): boolean => CALL.test(text)

/** The key a function's value has in a response: `year(published_at)` → `published_at_year`. */
export const functionOutput = (text: string): string => {
  const [, name, argument] = CALL.exec(text)!
  return `${argument.trim()}_${name}`
}

/** Resolves `name(field)` against `collection`; only fields of the right type that the view shows qualify. */
export function parseFunction(text: string, collection: Collection, schema: SchemaView): FunctionOperand {
  const [, name, rawArgument] = CALL.exec(text) ?? []
  if (name === undefined) throw new InvalidQueryError(`"${text}" is not a function call`)
  if (name !== 'count' && !Object.hasOwn(DATE_PARTS, name)) {
    throw new InvalidQueryError(`Unknown function in "${text}"; use count() or one of ${Object.keys(DATE_PARTS).join(', ')}`)
  }
  const argument = rawArgument.trim()
  const member = schema.member(collection, argument)
  if (!member) throw new InvalidQueryError(`"${text}": field "${argument}" does not exist in collection "${collection.name}"`)
  if (name === 'count') {
    if (member.kind !== 'o2m') throw new InvalidQueryError(`"${text}": count() takes a one-to-many field`)
    const related = schema.collections.get(member.related)!
    return {
      kind: 'count',
      related,
      foreignKey: related.members.get(member.foreignKey) as Field,
      parentKey: collection.primaryKey,
      scope: schema.scope(related),
    }
  }
  const part = name as DatePart
  if (member.kind !== 'field' || !DATE_PARTS[part].includes(member.type)) {
    throw new InvalidQueryError(`"${text}": ${part}() does not apply to a field of type ${member.kind === 'o2m' ? 'o2m' : member.type}`)
  }
  return { kind: 'datePart', part, field: member }
}
