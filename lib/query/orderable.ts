// Which members `sort` and `groupBy` accept: fields whose values every database orders and compares alike.
import type { Field, Member } from '../schema/collection'

/** A field that is not JSON, an array or SET, bytes or a geometry (relations are never orderable). */
export function isOrderable(member: Member): member is Field {
  return (
    member.kind === 'field' &&
    member.type !== 'json' &&
    member.spec.family !== 'array' &&
    member.type !== 'binary' &&
    member.type !== 'geometry'
  )
}
