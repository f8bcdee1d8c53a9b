// Exports' turns at the database: at most `width` reads at once, started in the order they asked, a failed
// read passing its turn on like a finished one.
import { ExportTurns } from '../lib/handlers/export-turns'

/** A read that runs until `finish` is called, noting when it starts. */
function pending(started: string[], name: string): { read: () => Promise<string>; finish: (fail?: boolean) => void } {
  let finish: (fail?: boolean) => void = () => undefined
  return {
    read: () => {
      started.push(name)
      return new Promise((resolve, reject) => {
        finish = (fail) => (fail ? reject(new Error(name)) : resolve(name))
      })
    },
    finish: (fail) => finish(fail),
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

describe('ExportTurns', () => {
  it('runs at most `width` reads at once, the others in the order they asked', async () => {
    const turns = new ExportTurns(2)
    const started: string[] = []
    const reads = ['a', 'b', 'c', 'd', 'e'].map((name) => pending(started, name))
    const results = reads.map(({ read }) => turns.take(read).catch((error: Error) => `failed ${error.message}`))
    await settle()
    expect(started).toEqual(['a', 'b'])
    reads[1]!.finish()
    await settle()
    expect(started).toEqual(['a', 'b', 'c'])
    reads[0]!.finish(true)
    await settle()
    expect(started).toEqual(['a', 'b', 'c', 'd'])
    reads[2]!.finish()
    reads[3]!.finish()
    await settle()
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e'])
    reads[4]!.finish()
    expect(await Promise.all(results)).toEqual(['failed a', 'b', 'c', 'd', 'e'])
    // Every turn came back: two new reads start at once.
    const more = [pending(started, 'f'), pending(started, 'g')]
    more.forEach(({ read }) => void turns.take(read))
    await settle()
    expect(started.slice(5)).toEqual(['f', 'g'])
    more.forEach(({ finish }) => finish())
  })
})
