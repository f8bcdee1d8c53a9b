// Answers a write, honouring an `Idempotency-Key` header: the first request with a key writes and records its
// answer; a retry with the same key and request gets that answer again and writes nothing.
import { createHash } from 'node:crypto'
import type { Request, Response } from 'express'
import { InvalidPayloadError, ItemsError } from '../errors'
import { IdempotencyKeyTaken, type IdempotencyRecord, type IdempotencyStore } from '../repository/idempotency-store'
import type { ItemsContext, Logger, PrimaryKey } from '../types'
import type { WriteOptions } from '../writes/items-writer'
import { sendOk } from './envelope'

export const IDEMPOTENCY_HEADER = 'Idempotency-Key'
const MAX_KEY_LENGTH = 255

/** A write's answer: 200 with a body, or 204 when the caller may not read what they wrote. */
export type Answer = { readonly status: 200; readonly body: unknown } | { readonly status: 204 }

export interface IdempotentWrite {
  readonly req: Request
  readonly res: Response
  readonly store: IdempotencyStore
  readonly context: ItemsContext
  readonly logger: Logger
  /** Runs the write with the options that claim the key in its transaction. */
  write(options: WriteOptions): Promise<PrimaryKey[]>
  /** The answer for the written keys (read back after commit). */
  answer(keys: readonly PrimaryKey[]): Promise<Answer>
}

function send(res: Response, answer: Answer): void {
  if (answer.status === 204) res.status(204).end()
  else sendOk(res, answer.body)
}

/**
 * Who asks what: the method, the URL, the body and the caller's context. A retry must match it exactly, so
 * a key reused for another request, or by another caller, is refused instead of answered with someone else's result.
 */
function fingerprint(req: Request, context: ItemsContext): string {
  let caller: string
  try {
    caller = JSON.stringify(context) ?? ''
  } catch {
    caller = ''
  }
  return createHash('sha256')
    .update(JSON.stringify([req.method, req.originalUrl ?? req.url, req.body ?? null, caller]))
    .digest('hex')
}

export async function idempotent(write: IdempotentWrite): Promise<void> {
  const { req, res, store } = write
  const key = req.get(IDEMPOTENCY_HEADER)
  if (key === undefined) {
    send(res, await write.answer(await write.write({})))
    return
  }
  if (key === '' || key.length > MAX_KEY_LENGTH) {
    throw new InvalidPayloadError(`The ${IDEMPOTENCY_HEADER} header must be 1 to ${MAX_KEY_LENGTH} characters`)
  }
  // Refused before anything is written: the client asked for a guarantee this server cannot give.
  if (!(await store.own.available())) {
    throw new ItemsError(
      'INVALID_PAYLOAD',
      `This server does not accept the ${IDEMPOTENCY_HEADER} header (its records table does not exist). Nothing was written.`,
      { header: IDEMPOTENCY_HEADER },
    )
  }
  const asked = fingerprint(req, write.context)
  const replay = async (record: IdempotencyRecord): Promise<void> => {
    if (record.fingerprint !== asked) {
      throw new ItemsError('UNPROCESSABLE_CONTENT', `This ${IDEMPOTENCY_HEADER} was used for a different request.`, {
        header: IDEMPOTENCY_HEADER,
      })
    }
    res.set('Idempotent-Replayed', 'true')
    // A record without its answer: the write committed but the answer was never stored. Read it back now.
    if (record.status === null) send(res, await write.answer(record.keys ?? []))
    else send(res, record.status === 204 ? { status: 204 } : { status: 200, body: record.response })
  }
  const found = await store.find(key)
  if (found) return replay(found)
  let keys: PrimaryKey[]
  try {
    keys = await write.write({
      guard: (trx) => store.claim(trx, key, asked),
      written: (trx, written) => store.recordKeys(trx, key, written),
    })
  } catch (error) {
    const record = error instanceof IdempotencyKeyTaken ? await store.find(key) : null
    if (record) return replay(record)
    throw error
  }
  const answer = await write.answer(keys)
  // Stored before it is sent: a client that got the answer and retries anyway must get the same one back.
  await store
    .recordResponse(key, answer.status, answer.status === 200 ? answer.body : undefined)
    .catch((error: unknown) => write.logger.error(`express-items-router: storing the answer for an ${IDEMPOTENCY_HEADER} failed`, error))
  send(res, answer)
}
