// Caller variables in filter values and presets: `$CURRENT_USER`, `$CURRENT_USER.<field>`, `$CURRENT_ROLE`.
import { InvalidQueryError } from '../errors'
import { isPlainObject } from '../is-plain-object'

/** A variable the caller's context does not carry: a comparison with it matches nothing. */
export const ABSENT: unique symbol = Symbol('absent variable')

/** Resolves one variable to its value, or ABSENT; throws INVALID_QUERY for a name that is no variable. */
export type Variables = (name: string) => unknown

const PREFIX = '$CURRENT_'

export const isVariable = (value: unknown): value is string => typeof value === 'string' && value.startsWith(PREFIX)

/**
 * The variables of one caller. `user` may be a key (`$CURRENT_USER` is it) or an object (`$CURRENT_USER` is
 * its `id`, `$CURRENT_USER.tenant` its `tenant`); `role` is `$CURRENT_ROLE`. Missing values are ABSENT.
 */
export function callerVariables(caller: { user?: unknown; role?: unknown }): Variables {
  const present = (value: unknown): unknown => (value === undefined || value === null ? ABSENT : value)
  const user = caller.user
  return (name) => {
    if (name === '$CURRENT_ROLE') return present(caller.role)
    if (name === '$CURRENT_USER') return present(isPlainObject(user) ? user.id : user)
    if (name.startsWith('$CURRENT_USER.')) {
      const property = name.slice('$CURRENT_USER.'.length)
      return isPlainObject(user) && Object.hasOwn(user, property) ? present(user[property]) : ABSENT
    }
    throw new InvalidQueryError(`Unknown variable "${name}"; use $CURRENT_USER, $CURRENT_USER.<field> or $CURRENT_ROLE`)
  }
}
