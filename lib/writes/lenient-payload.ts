// A payload as a client built for Directus sends it, made strict: keys that name no field the caller can see are
// dropped, and numeric strings (`"4"`, from HTML forms) become numbers. Only for `lenientPayloads` collections.
import { isPlainObject } from '../is-plain-object'
import type { Collection } from '../schema/collection'

/**
 * `data` without the keys `known` refuses, and with the numeric strings of number fields read as numbers; any
 * other value is returned as it is, for the strict checks to refuse. A string that is not a number stays a string,
 * so the field's own check names it.
 */
export function lenientPayload(collection: Collection, data: unknown, known: (name: string) => boolean): unknown {
  if (!isPlainObject(data)) return data
  const kept: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(data)) {
    if (!known(name)) continue
    const member = collection.members.get(name)
    const number =
      member?.kind === 'field' && member.spec.family === 'number' && typeof value === 'string' ? member.spec.fromText(value) : undefined
    kept[name] = number ?? value
  }
  return kept
}
