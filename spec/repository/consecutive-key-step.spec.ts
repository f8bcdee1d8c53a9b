// When a MySQL-protocol server's batch INSERT may have its keys counted from the first (Dialect.insertKeyStep).
import { consecutiveKeyStep } from '../../lib/repository/dialects/mysql'

describe('consecutiveKeyStep', () => {
  it.each([
    [{ mode: 0, step: 1, version: '8.0.36' }, 1],
    [{ mode: 1, step: 1, version: '10.11.19-MariaDB-0+deb12u1' }, 1],
    [{ mode: '1', step: '3', version: '10.11.19-MariaDB-log' }, 3],
  ])('counts keys on InnoDB in lock mode 0 or 1, by auto_increment_increment: %j', (settings, step) => {
    expect(consecutiveKeyStep(settings)).toBe(step)
  })

  it.each([
    ['InnoDB in the interleaved lock mode', { mode: 2, step: 1, version: '8.0.36' }],
    ['a server that answers no lock mode', { mode: null, step: 1, version: '8.0.36' }],
    ['TiDB, whose keys come from per-server caches', { mode: 1, step: 1, version: '8.0.11-TiDB-v7.5.1' }],
    ['Vitess, whose keys come from sequences', { mode: 1, step: 1, version: '8.0.30-Vitess' }],
  ])('does not count keys on %s', (_server, settings) => {
    expect(consecutiveKeyStep(settings)).toBeNull()
  })
})
