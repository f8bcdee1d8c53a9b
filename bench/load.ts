// The load generator of `npm run bench`, in a child process of its own so that the server's CPU time per request
// (process.cpuUsage in the parent) holds the server's work only. Answers each `{ url, method, body, ms,
// concurrency, requests? }` message with how many requests completed and their median latency: for `ms`, or
// exactly `requests` of them when given. A `{n}` in the URL becomes a number new to each request, so that no two
// requests send the same URL.
export interface LoadOrder {
  readonly url: string
  readonly method: string
  readonly body?: string
  readonly ms: number
  readonly concurrency: number
  /** Send this many requests and stop, however long they take, instead of sending for `ms`. */
  readonly requests?: number
}

export interface LoadReport {
  readonly requests: number
  readonly seconds: number
  readonly p50: number
  readonly failed: number
  /** The number the next `{n}` becomes. */
  readonly next: number
}

/** Requests sent by this process, for the URLs' `{n}`: runs never repeat a number. */
let sent = 0

async function run(order: LoadOrder): Promise<LoadReport> {
  const headers: Record<string, string> = order.body === undefined ? {} : { 'content-type': 'application/json' }
  const latencies: number[] = []
  let failed = 0
  const end = performance.now() + order.ms
  const [head, tail] = order.url.split('{n}')
  const url = (): string => (tail === undefined ? order.url : `${head}${sent++}${tail}`)
  let left = order.requests ?? Number.POSITIVE_INFINITY
  const more = (): boolean => (order.requests === undefined ? performance.now() < end : left-- > 0)
  const worker = async (): Promise<void> => {
    while (more()) {
      const start = performance.now()
      const response = await fetch(url(), { method: order.method, headers, body: order.body })
      await response.arrayBuffer()
      if (!response.ok) failed += 1
      latencies.push(performance.now() - start)
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: order.concurrency }, worker))
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return { requests: latencies.length, seconds, p50: latencies[Math.floor(latencies.length / 2)] ?? Number.NaN, failed, next: sent }
}

process.on('message', (order: LoadOrder) => {
  run(order).then(
    (report) => process.send?.(report),
    (error: unknown) => process.send?.({ error: String(error) }),
  )
})
