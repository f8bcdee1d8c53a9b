// The success envelope: `{ data }`, plus `meta` when the read asked for it.
import type { Response } from 'express'

export function sendData(res: Response, data: unknown, meta?: object): void {
  res.status(200).json(meta === undefined ? { data } : { data, meta })
}

export function sendNoContent(res: Response): void {
  res.status(204).end()
}
