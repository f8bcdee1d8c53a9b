// The JSON-object test shared by the config checks, the filter parser and the body readers.

/** True for `{...}`, false for arrays, null and scalars. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
