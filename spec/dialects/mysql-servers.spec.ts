// What the MySQL dialect reads from a MySQL-protocol server's own answers: whether a batch INSERT may have its
// keys counted from the first (Dialect.insertKeyStep), whether an INSERT returns its rows, and how many keys a
// folded key list may hold (Dialect.serverTraits).
import { aggregatesJsonArrays, consecutiveKeyStep, foldedKeys, insertReturnsRows } from '../../lib/dialects/mysql/mysql'

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

describe('insertReturnsRows', () => {
  it.each(['10.5.0-MariaDB', '10.11.19-MariaDB-0+deb12u1', '11.4.2-MariaDB-log', '5.5.5-10.6.16-MariaDB'])(
    'is true for MariaDB 10.5 and later: %s',
    (version) => {
      expect(insertReturnsRows(version)).toBe(true)
    },
  )

  it.each(['10.4.32-MariaDB', '5.5.68-MariaDB', '8.0.36', '8.4.0-log', '8.0.11-TiDB-v7.5.1', '8.0.30-Vitess', 'undefined'])(
    'is false for MySQL, older MariaDB and other servers: %s',
    (version) => {
      expect(insertReturnsRows(version)).toBe(false)
    },
  )
})

describe('aggregatesJsonArrays', () => {
  it.each([
    '10.5.0-MariaDB',
    '10.11.19-MariaDB-0+deb12u1',
    '5.5.5-10.6.16-MariaDB',
    '5.7.22-log',
    '8.0.36',
    '8.0.11-TiDB-v7.5.1',
    '8.0.30-Vitess',
  ])('is true for MariaDB 10.5 and later, and MySQL 5.7.22 and later: %s', (version) => {
    expect(aggregatesJsonArrays(version)).toBe(true)
  })

  it.each(['10.4.32-MariaDB', '5.5.68-MariaDB', '5.7.21', 'undefined'])('is false before them, and for unknown servers: %s', (version) => {
    expect(aggregatesJsonArrays(version)).toBe(false)
  })
})

describe('foldedKeys', () => {
  it("leaves MariaDB's JSON_ARRAYAGG within group_concat_max_len, which would cut it short", () => {
    expect(foldedKeys('10.11.19-MariaDB', 1_048_576)).toBe(32_767)
    expect(foldedKeys('10.11.19-MariaDB', 1024)).toBe(31)
  })

  it('is unbounded on MySQL and 0 without the aggregate', () => {
    expect(foldedKeys('8.0.36', 1024)).toBe(Number.POSITIVE_INFINITY)
    expect(foldedKeys('10.4.32-MariaDB', 1_048_576)).toBe(0)
  })
})
