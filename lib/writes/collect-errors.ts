// Runs one check per input and reports every refusal together, so one answer names each bad item.
import { ItemsError, ItemsErrorList } from '../errors'

/** Runs every check before throwing, so one response reports every problem of every item. */
export function collectErrors<T, R>(inputs: readonly T[], check: (input: T, index: number) => R): R[] {
  const errors: ItemsError[] = []
  const results = inputs.map((input, index) => {
    try {
      return check(input, index)
    } catch (error) {
      if (error instanceof ItemsErrorList) errors.push(...error.errors)
      else if (error instanceof ItemsError) errors.push(error)
      else throw error
      return undefined as R
    }
  })
  if (errors.length > 0) throw new ItemsErrorList(errors)
  return results
}
