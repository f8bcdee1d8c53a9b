// The parent's side of the load child (bench/load.ts): the benches send it an order and wait for its report,
// so that making requests and reading answers never runs on the event loop being measured.
import { fork, type ChildProcess } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import type { DialectName } from '../lib/dialects'
import { selectedDialects } from '../spec/support/databases'
import type { LoadOrder, LoadReport } from './load'

export class LoadGenerator {
  private readonly child: ChildProcess = fork(path.join(__dirname, 'load.ts'), {
    execArgv: ['-r', 'ts-node/register/transpile-only'],
    stdio: 'inherit',
  })
  /** The number the next request's `{n}` becomes. */
  next = 0

  run(order: LoadOrder): Promise<LoadReport> {
    return new Promise((resolve, reject) => {
      this.child.once('message', (report: LoadReport | { error: string }) =>
        'error' in report ? reject(new Error(report.error)) : resolve(((this.next = report.next), report)),
      )
      this.child.send(order)
    })
  }

  stop(): void {
    this.child.kill()
  }
}

/**
 * The sections `bench` writes for each database BENCH_DIALECTS selects, in order, all loaded by one generator,
 * which stops however they end.
 */
export async function eachDialect(bench: (name: DialectName, load: LoadGenerator) => Promise<string[]>): Promise<string[]> {
  const load = new LoadGenerator()
  const sections: string[] = []
  try {
    for (const name of selectedDialects('BENCH_DIALECTS')) sections.push(...(await bench(name, load)))
  } finally {
    load.stop()
  }
  return sections
}

/** The machine's load average now, as a report states it: "1.2, 0.9, 0.7". */
export const loadAverage = (): string =>
  os
    .loadavg()
    .map((each) => each.toFixed(1))
    .join(', ')
