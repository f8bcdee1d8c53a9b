// What a MariaDB Galera node answers that a single server does not: a certification failure is a conflict to
// retry, a node without quorum (or still joining) is unavailable. The errors are as mysql2 builds them.
import { mysql } from '../../lib/dialects/mysql/mysql'
import { faultOf } from '../../lib/execute/map-db-error'

const driverError = (code: string, errno: number, message: string): Error =>
  Object.assign(new Error(message), { code, errno, fatal: false })

describe('mysql dialect on a Galera cluster', () => {
  it('retries a commit that lost certification, as a deadlock', () => {
    const certification = driverError(
      'ER_LOCK_DEADLOCK',
      1213,
      'WSREP detected deadlock/conflict and aborted the transaction. Try restarting the transaction',
    )
    expect(faultOf(certification, mysql)).toBe('conflict')
  })

  it('answers 503 while a node is not part of a primary component', () => {
    const notReady = driverError('ER_UNKNOWN_COM_ERROR', 1047, 'WSREP has not yet prepared node for application use')
    expect(faultOf(notReady, mysql)).toBe('unavailable')
  })

  it('still takes an unknown command for what it is elsewhere', () => {
    expect(faultOf(driverError('ER_UNKNOWN_COM_ERROR', 1047, 'Unknown command'), mysql)).toBeNull()
  })
})
