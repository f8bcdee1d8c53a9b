// The values the router writes itself (`onCreate` / `onUpdate`): the request's instant or the caller's user.
import { ABSENT, callerVariables } from '../query/variables'
import type { Collection } from '../schema/collection'
import type { ItemsContext } from '../types'
import type { PayloadAction } from '../schema/payload-validator'

/**
 * The declarative values of a create or an update, by field name, in the JSON form a payload carries. `now`
 * is the request's instant (the one `$NOW` stands for), so every item of a batch gets the same one.
 */
export function managedValues(collection: Collection, action: PayloadAction, context: ItemsContext, now: Date): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const field of collection.fields) {
    const managed = action === 'create' ? field.onCreate : field.onUpdate
    if (managed === 'now') values[field.name] = field.spec.fromNow!(now.toISOString())
    else if (managed === 'user') {
      const user = callerVariables(context)('$CURRENT_USER')
      values[field.name] = user === ABSENT ? null : user
    }
  }
  return values
}
