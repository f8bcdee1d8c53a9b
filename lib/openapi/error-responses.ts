// The error envelope and one response per HTTP status, with the codes errors.ts answers with at that status.
import { errorStatuses } from '../errors'

type Json = Record<string, unknown>

const DESCRIPTIONS: Readonly<Record<number, string>> = Object.freeze({
  400: 'Bad request: the query, the payload or a value the database refused',
  403: 'An access rule denies the action',
  404: 'No such item, content version or route (or one the caller may not see)',
  409: 'The write kept colliding with concurrent writes after every retry; nothing was written',
  412: "`If-Match` names none of the item's current ETags; nothing was written",
  413: 'The body is larger than `bodyLimit`',
  422: 'A content version conflict, or an `Idempotency-Key` used for a different request',
  500: 'Unexpected; the message is generic and the error goes to the logger',
  503: 'The database is out of reach or no pooled connection came free in time; sent with `Retry-After`',
  504: 'A statement ran past `statementTimeout` or a hook past `hookTimeout`; a write rolled back',
})

/** `components.responses` name for a status. */
export const errorResponseName = (status: number): string => `Error${status}`

/** The `Errors` schema and the `ErrorNNN` responses: each status lists exactly the codes answered with it. */
export function errorComponents(): { schemas: Json; responses: Json } {
  const byStatus = new Map<number, string[]>()
  for (const [code, status] of errorStatuses()) byStatus.set(status, [...(byStatus.get(status) ?? []), code])
  const schemas: Json = {
    Errors: {
      type: 'object',
      required: ['errors'],
      properties: {
        errors: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['message', 'extensions'],
            properties: {
              message: { type: 'string' },
              extensions: {
                type: 'object',
                required: ['code'],
                // Beside `code`: `reason`, `field`, `type`, `item`, `collection`, `keys`, ... (see the README's error table).
                properties: { code: { type: 'string', enum: errorStatuses().map(([code]) => code) } },
              },
            },
          },
        },
      },
    },
  }
  const responses: Json = {}
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[errorResponseName(status)] = {
      description: `${DESCRIPTIONS[status] ?? 'Error'}. Codes: ${codes.join(', ')}.`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Errors' } } },
    }
  }
  return { schemas, responses }
}

/** The error responses an operation may answer, by status. */
export function errorResponses(statuses: readonly number[]): Json {
  return Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/${errorResponseName(status)}` }]))
}
