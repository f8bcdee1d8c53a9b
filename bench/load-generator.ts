// The parent's side of the load child (bench/load.ts): the benches send it an order and wait for its report,
// so that making requests and reading answers never runs on the event loop being measured.
import { fork, type ChildProcess } from 'node:child_process'
import path from 'node:path'
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
