// Parses ?limit, ?offset and ?page against the collection's limits.
import { InvalidQueryError } from '../errors'
import type { Limits } from '../schema/collection'
import { parseSingle } from './parse-list'

/** Largest limit or offset accepted at all: keeps every database's LIMIT/OFFSET arithmetic exact. */
const LARGEST = 2_147_483_647

function parseInteger(raw: unknown, parameter: string, minimum: number): number | undefined {
  const text = parseSingle(typeof raw === 'number' ? String(raw) : raw, parameter)
  if (text === undefined || text === '') return undefined
  if (!/^-?\d+$/.test(text.trim()) || Number(text) < minimum || Number(text) > LARGEST) {
    const range = minimum === -1 ? `-1 or a whole number up to ${LARGEST}` : `a whole number from ${minimum} to ${LARGEST}`
    throw new InvalidQueryError(`"${parameter}" must be ${range}`)
  }
  return Number(text)
}

export interface Pagination {
  /** null: every row. */
  readonly limit: number | null
  readonly offset: number
}

/**
 * Reads limit, offset and page. A read's default is the collection's page size; a by-query write passes
 * `-1` (every matching row), and the batch limit guards it instead of `maxLimit`.
 */
export function parsePagination(
  raw: { limit?: unknown; offset?: unknown; page?: unknown },
  limits: Limits,
  purpose: 'read' | 'write' = 'read',
  /** The option that set `limits.maxLimit`, as errors name it: `maxExportRows` for an export. */
  bound = 'maxLimit',
): Pagination {
  const requested = parseInteger(raw.limit, 'limit', -1) ?? (purpose === 'read' ? limits.defaultLimit : -1)
  const maxLimit = purpose === 'read' ? limits.maxLimit : undefined
  if (maxLimit !== undefined && requested > maxLimit) {
    throw new InvalidQueryError(`"limit" may be at most ${maxLimit} (${bound}); -1 asks for that many`)
  }
  const limit = requested === -1 ? (maxLimit ?? null) : requested
  const page = parseInteger(raw.page, 'page', 0)
  if (page !== undefined) {
    // Every row fits on page 1 when there is no limit.
    if (limit === null) return { limit: page <= 1 ? null : 0, offset: 0 }
    return { limit, offset: (Math.max(page, 1) - 1) * limit }
  }
  return { limit, offset: parseInteger(raw.offset, 'offset', 0) ?? 0 }
}
