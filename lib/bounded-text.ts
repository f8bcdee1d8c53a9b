// Bounds what an error answer echoes of the request, so that a name of 500,000 characters costs the client a
// short error and not a copy of itself: each name is cut, each text is cut, and the list of errors is cut.

/** The longest name (a quoted part, or a run without spaces) an error repeats whole. */
export const MAX_ECHOED_NAME = 100
/** The longest message or string extension an error carries. */
export const MAX_ERROR_TEXT = 500
/** The most errors one answer lists; the first ones are the ones a client fixes first. */
export const MAX_ERRORS = 20

const ELLIPSIS = '…'
const cut = (text: string, length: number): string => (text.length > length ? `${text.slice(0, length)}${ELLIPSIS}` : text)

const LONG_QUOTED = new RegExp(`"([^"]{${MAX_ECHOED_NAME + 1},})"`, 'g')
const LONG_WORD = new RegExp(`[^\\s"]{${MAX_ECHOED_NAME + 1},}`, 'g')

/** `text` with every long quoted name and every long run without spaces cut, and the whole cut after that. */
export function boundedText(text: string): string {
  if (text.length <= MAX_ECHOED_NAME) return text
  const names = text.replace(LONG_QUOTED, (_quoted, name: string) => `"${cut(name, MAX_ECHOED_NAME)}"`)
  return cut(
    names.replace(LONG_WORD, (word) => cut(word, MAX_ECHOED_NAME)),
    MAX_ERROR_TEXT,
  )
}

/** A value of an error's extensions, its strings bounded (one level of arrays: lists of names). */
export function boundedValue(value: unknown): unknown {
  if (typeof value === 'string') return boundedText(value)
  if (Array.isArray(value)) return value.slice(0, MAX_ERRORS).map((each) => (typeof each === 'string' ? boundedText(each) : each))
  return value
}
