// The success envelope: `{ data }`, plus `meta` when the read asked for it.
import type { Response } from 'express'

export function sendData(res: Response, data: unknown, meta?: object): void {
  // Rather than res.status(200), which checks its argument on every call.
  res.statusCode = 200
  res.json(meta === undefined ? { data } : { data, meta })
}

export function sendNoContent(res: Response): void {
  res.status(204).end()
}
