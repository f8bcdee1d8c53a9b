// Strict parsers for the date and time forms the API accepts, returning the canonical API form or null.

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?$/

interface Parts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  millisecond: number
  /** Minutes east of UTC, or null when the text names no zone. */
  offset: number | null
  hasTime: boolean
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0')

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

/** Days in `month` (1-12) of `year`, in the proleptic Gregorian calendar every supported database uses. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

/** The number the `length` digits at `start` spell, or -1 when one of them is not a digit. */
function digitsAt(text: string, start: number, length: number): number {
  let value = 0
  for (let index = start; index < start + length; index++) {
    const digit = text.charCodeAt(index) - 48
    if (digit < 0 || digit > 9) return -1
    value = value * 10 + digit
  }
  return value
}

/**
 * `YYYY-MM-DDTHH:mm:ss` or `YYYY-MM-DD HH:mm:ss`, the forms a database hands a wall clock back in, read without
 * the regular expression: a list reads one per row and cell, an export a million. undefined when the text is not
 * exactly that form (`parseParts` decides then); null when it is, but names no real date or time.
 */
function plainWallClock(text: string): string | null | undefined {
  if (text.length !== 19) return undefined
  const separator = text[10]
  if (text[4] !== '-' || text[7] !== '-' || (separator !== 'T' && separator !== ' ') || text[13] !== ':' || text[16] !== ':') {
    return undefined
  }
  const year = digitsAt(text, 0, 4)
  const month = digitsAt(text, 5, 2)
  const day = digitsAt(text, 8, 2)
  const hour = digitsAt(text, 11, 2)
  const minute = digitsAt(text, 14, 2)
  const second = digitsAt(text, 17, 2)
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return undefined
  const valid =
    year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 59
  if (!valid) return null
  return separator === 'T' ? text : `${text.slice(0, 10)}T${text.slice(11)}`
}

function parseOffset(zone: string | undefined): number | null {
  if (zone === undefined) return null
  if (zone.toUpperCase() === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  const digits = zone.slice(1).replace(':', '')
  const hours = Number(digits.slice(0, 2))
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0
  if (hours > 23 || minutes > 59) return Number.NaN
  return sign * (hours * 60 + minutes)
}

function parseParts(text: string): Parts | null {
  const match = DATE_TIME.exec(text.trim())
  if (!match) return null
  const [, y, mo, d, h, mi, s, fraction, zone] = match
  const parts: Parts = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    millisecond: fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0,
    offset: parseOffset(zone),
    hasTime: h !== undefined,
  }
  // Years 1 to 9999 are the range every database stores: PostgreSQL has no year 0, MySQL none past 9999.
  const validDate =
    parts.year >= 1 && parts.month >= 1 && parts.month <= 12 && parts.day >= 1 && parts.day <= daysInMonth(parts.year, parts.month)
  const validTime = parts.hour <= 23 && parts.minute <= 59 && parts.second <= 59
  if (!validDate || !validTime || Number.isNaN(parts.offset)) return null
  return parts
}

const datePart = (p: Parts): string => `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`

/** `YYYY-MM-DD`. A date-time without a zone is cut to its date; anything with a zone is refused. */
export function parseDate(text: string): string | null {
  const parts = parseParts(text)
  if (!parts || parts.offset !== null) return null
  return datePart(parts)
}

/** Wall-clock `YYYY-MM-DDTHH:mm:ss`; a bare date means midnight. A zone would make it an instant: refused. */
export function parseDateTime(text: string): string | null {
  const plain = plainWallClock(text)
  if (plain !== undefined) return plain
  const parts = parseParts(text)
  if (!parts || parts.offset !== null) return null
  return `${datePart(parts)}T${pad(parts.hour)}:${pad(parts.minute)}:${pad(parts.second)}`
}

/** An instant as ISO-8601 UTC with milliseconds. Text without a zone is read as UTC. */
export function parseTimestamp(text: string): string | null {
  const parts = parseParts(text)
  if (!parts) return null
  const utc =
    Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, parts.millisecond) -
    (parts.offset ?? 0) * 60_000
  const date = new Date(utc)
  // Years 0-99 would be shifted by Date.UTC's two-digit-year rule; setUTCFullYear puts them back.
  if (parts.year < 100) date.setUTCFullYear(date.getUTCFullYear() - 1900)
  return inStoredRange(date) ? date.toISOString() : null
}

/** An instant whose UTC year lies in 1..9999, the range every supported database stores. */
const inStoredRange = (date: Date): boolean => !Number.isNaN(date.getTime()) && date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999

/** `HH:mm:ss`; seconds are optional in the input, fractions are dropped. */
export function parseTime(text: string): string | null {
  const match = TIME.exec(text.trim())
  if (!match) return null
  const [, h, m, s] = match
  if (Number(h) > 23 || Number(m) > 59 || Number(s ?? 0) > 59) return null
  return `${h}:${m}:${s ?? '00'}`
}

/** A driver's Date for a wall-clock column was built in the process's zone: its local fields are the wall clock. */
export function localDateTime(date: Date): string {
  return (
    `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  )
}

const RELATIVE_NOW = /^\$NOW(?:\(\s*([+-]?\d+)\s*(millisecond|second|minute|hour|day|week|month|year)s?\s*\))?$/i

/**
 * Resolves `$NOW` and `$NOW(-1 day)` to an ISO instant, or returns null when the text is not such a token.
 * Months and years move the calendar (Jan 31 + 1 month = Mar 2/3, as `Date` does); the rest move the clock.
 */
export function resolveNow(text: string, now: Date): string | null {
  const match = RELATIVE_NOW.exec(text.trim())
  if (!match) return null
  const date = new Date(now.getTime())
  const amount = Number(match[1] ?? 0)
  switch ((match[2] ?? 'second').toLowerCase()) {
    case 'millisecond':
      date.setTime(date.getTime() + amount)
      break
    case 'second':
      date.setTime(date.getTime() + amount * 1000)
      break
    case 'minute':
      date.setTime(date.getTime() + amount * 60_000)
      break
    case 'hour':
      date.setTime(date.getTime() + amount * 3_600_000)
      break
    case 'day':
      date.setTime(date.getTime() + amount * 86_400_000)
      break
    case 'week':
      date.setTime(date.getTime() + amount * 604_800_000)
      break
    case 'month':
      date.setUTCMonth(date.getUTCMonth() + amount)
      break
    case 'year':
      date.setUTCFullYear(date.getUTCFullYear() + amount)
      break
  }
  // `$NOW(-999999999 year)` leaves the range a Date (or any database) can hold: no such instant.
  return inStoredRange(date) ? date.toISOString() : null
}
