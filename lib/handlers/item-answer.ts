// The answer to a write of one item: the item as the caller may read it, or 204 when they may not.
import type { Item } from '../types'
import type { Answer } from './idempotent'

export const itemAnswer = ([item]: readonly Item[]): Answer => (item ? { status: 200, body: { data: item } } : { status: 204 })
