// The clients of bench/stall.ts's export scenarios, in a process of their own so that reading 50 downloads does
// not run on the server's event loop: concurrent exports read to the end beside a health probe, and clients that
// never read. Driven over IPC by bench/stall.ts; not run by itself.
import net from 'node:net'

/** What the parent asks for. */
export type LoadCommand =
  | { kind: 'exports'; base: string; exportPath: string; probePath: string; exports: number; probeEveryMs: number; windowMs: number }
  | { kind: 'stall'; base: string; exportPath: string; clients: number }
  | { kind: 'release' }

/** What the child answers. */
export type LoadReport =
  | { kind: 'exports'; statuses: Record<string, number>; probeMs: number[]; exportMs: number[]; bytes: number }
  | { kind: 'stalled'; statuses: Record<string, number> }
  | { kind: 'released' }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const count = (statuses: Record<string, number>, status: number | string): void => {
  statuses[status] = (statuses[status] ?? 0) + 1
}

/**
 * `exports` downloads read as they come, and one probe every `probeEveryMs` while they run: the probes'
 * latencies. Downloads still running after `windowMs` are dropped (counted as "cut at the window's end"), so that
 * a slow machine measures the same window rather than taking an hour.
 */
async function exportsWithProbe(command: Extract<LoadCommand, { kind: 'exports' }>): Promise<LoadReport> {
  const statuses: Record<string, number> = {}
  const exportMs: number[] = []
  let running = true
  let bytes = 0
  const window = new AbortController()
  const timer = setTimeout(() => window.abort(), command.windowMs)
  const downloads = Array.from({ length: command.exports }, async () => {
    const started = performance.now()
    try {
      const response = await fetch(command.base + command.exportPath, { signal: window.signal })
      // Read and dropped chunk by chunk, as a client saving the file would.
      for await (const chunk of response.body ?? []) bytes += (chunk as Uint8Array).length
      count(statuses, response.status)
      exportMs.push(performance.now() - started)
    } catch (error) {
      count(statuses, window.signal.aborted ? "cut at the window's end" : failure(error))
    }
  })
  const probeMs: number[] = []
  const probing = (async () => {
    while (running) {
      const started = performance.now()
      try {
        const response = await fetch(command.base + command.probePath)
        await response.arrayBuffer()
        probeMs.push(performance.now() - started)
        if (response.status !== 200) count(statuses, `probe ${response.status}`)
      } catch (error) {
        count(statuses, `probe ${failure(error)}`)
      }
      await sleep(command.probeEveryMs)
    }
  })()
  await Promise.all(downloads)
  clearTimeout(timer)
  running = false
  await probing
  return { kind: 'exports', statuses, probeMs, exportMs, bytes }
}

/** A failed request's reason, as counted beside the statuses. */
const failure = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string } }).cause
  return cause?.code ?? String(error)
}

const stalled: net.Socket[] = []

/** Status line of an answer's first bytes. */
const statusOf = (head: string): string => /^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 'none'

/** `clients` downloads that read their first bytes and then nothing: their sockets stay open until `release`. */
async function stall(command: Extract<LoadCommand, { kind: 'stall' }>): Promise<LoadReport> {
  const statuses: Record<string, number> = {}
  const { hostname, port } = new URL(command.base)
  await Promise.all(
    Array.from(
      { length: command.clients },
      () =>
        new Promise<void>((resolve) => {
          const socket = net.connect(Number(port), hostname, () => {
            socket.write(`GET ${command.exportPath} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`)
          })
          stalled.push(socket)
          socket.once('data', (data: Buffer) => {
            socket.pause()
            count(statuses, statusOf(data.toString('latin1', 0, 20)))
            resolve()
          })
          socket.on('error', () => resolve())
        }),
    ),
  )
  return { kind: 'stalled', statuses }
}

process.on('message', (command: LoadCommand) => {
  const reply = (report: LoadReport): void => void process.send?.(report)
  if (command.kind === 'exports') void exportsWithProbe(command).then(reply)
  else if (command.kind === 'stall') void stall(command).then(reply)
  else {
    for (const socket of stalled.splice(0)) socket.destroy()
    reply({ kind: 'released' })
  }
})
