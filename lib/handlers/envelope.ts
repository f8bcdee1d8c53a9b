// The success envelope: `{ data }`, plus `meta` when the read asked for it.
import type { Response } from 'express'

export function sendData(res: Response, data: unknown, meta?: object): void {
  sendOk(res, meta === undefined ? { data } : { data, meta })
}

/** 200 with `body` as JSON; the status set directly, since Express 5's res.status checks its argument on every call. */
export function sendOk(res: Response, body: unknown): void {
  res.statusCode = 200
  res.json(body)
}

export function sendNoContent(res: Response): void {
  res.status(204).end()
}
