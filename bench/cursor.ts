// Page 1 against page 40,000 of a 1M-row table, by cursor and by offset, and the counts (`meta=filter_count`,
// `total_count`, `total_count_estimate`), per database; writes the medians to bench/CURSOR.md. Run by hand after
// `npm run build`: `npm run bench:cursor` (BENCH_DIALECTS=sqlite narrows it, BENCH_ROWS resizes).
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import type { DialectName } from '../lib/dialects'
import { probe, selectedDialects } from '../spec/support/databases'
import { openTable, ROWS, serve, TABLE, type Served } from './big-table'

const PAGE = 25
const REPEATS = Number(process.env.BENCH_REPEATS ?? 15)

interface Row {
  name: string
  p50Ms: number
  cpuMs: number
}

/** The median wall time and mean server CPU time of `REPEATS` requests, after one warm-up. */
async function time(server: Served, name: string, path: string, repeats = REPEATS): Promise<Row> {
  const url = `${server.base}/api/items/${TABLE}?${path}`
  const warm = await fetch(url)
  if (warm.status !== 200) throw new Error(`${name}: HTTP ${warm.status} ${await warm.text()}`)
  const walls: number[] = []
  const before = (await server.usage()).cpu
  for (let i = 0; i < repeats; i++) {
    const started = performance.now()
    await (await fetch(url)).arrayBuffer()
    walls.push(performance.now() - started)
  }
  const after = (await server.usage()).cpu
  walls.sort((a, b) => a - b)
  const cpuMs = (after.user + after.system - before.user - before.system) / 1000 / (repeats + 2)
  return { name, p50Ms: walls[Math.floor(walls.length / 2)]!, cpuMs }
}

/** Checks that the page by cursor is the page by offset, before timing either. */
async function samePage(server: Served, byCursor: string, byOffset: string): Promise<void> {
  const read = async (path: string): Promise<string> =>
    JSON.stringify(((await (await fetch(`${server.base}/api/items/${TABLE}?${path}`)).json()) as { data: unknown }).data)
  const [a, b] = [await read(byCursor), await read(byOffset)]
  if (a !== b || a === '[]') throw new Error(`the page by cursor differs from the page by offset: ${a} ${b}`)
}

/** The cursor after the item just before page `page`, asked for once by offset (what a walk would reach). */
async function cursorBefore(server: Served, sort: string, page: number): Promise<string> {
  const url = `${server.base}/api/items/${TABLE}?fields=id&sort=${sort}&limit=1&offset=${(page - 1) * PAGE - 1}&meta=next_cursor`
  const body = (await (await fetch(url)).json()) as { meta: { next_cursor: string } }
  return encodeURIComponent(body.meta.next_cursor)
}

async function measure(name: DialectName): Promise<Row[] | string> {
  const unreachable = await probe(name)
  if (unreachable) return unreachable
  await (await openTable(name)).destroy()
  const server = await serve(name)
  try {
    const last = Math.floor(ROWS / PAGE)
    const rows: Row[] = []
    for (const sort of ['id', '-amount']) {
      // An unindexed sort sorts the whole table for every page, whichever page: fewer repeats.
      const repeats = sort === 'id' ? REPEATS : 5
      const cursor = await cursorBefore(server, sort, last)
      const base = `sort=${sort}&limit=${PAGE}`
      await samePage(server, `${base}&fields=id,amount&cursor=${cursor}`, `${base}&fields=id,amount&offset=${(last - 1) * PAGE}`)
      rows.push(await time(server, `sort=${sort}: page 1 (meta=next_cursor)`, `${base}&meta=next_cursor`, repeats))
      rows.push(await time(server, `sort=${sort}: page ${last} by cursor`, `${base}&cursor=${cursor}`, repeats))
      rows.push(await time(server, `sort=${sort}: page ${last} by offset`, `${base}&offset=${(last - 1) * PAGE}`, repeats))
    }
    rows.push(await time(server, 'meta=filter_count (no filter), limit 1', 'limit=1&meta=filter_count', 5))
    rows.push(await time(server, 'meta=filter_count, filter category = c3', 'limit=1&meta=filter_count&filter[category][_eq]=c3', 5))
    rows.push(await time(server, 'meta=total_count_estimate, limit 1', 'limit=1&meta=total_count_estimate', 5))
    for (const row of rows) console.log(`${name}: ${row.name}: p50 ${row.p50Ms.toFixed(1)} ms, CPU ${row.cpuMs.toFixed(1)} ms`)
    return rows
  } finally {
    server.close()
  }
}

async function main(): Promise<void> {
  const lines = [
    '# Cursor pages and counts on a 1M-row table',
    '',
    `Written by \`npm run bench:cursor\` (bench/cursor.ts) on ${new Date().toISOString()}: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ` +
      `${os.cpus().length} cores (shared with other work), Node ${process.version}.`,
    `${ROWS} rows (bench/big-table.ts), pages of ${PAGE}; the built library in a child process. "p50" is the median wall`,
    `time of ${REPEATS} requests (5 for the unindexed sort and the counts) after a warm-up; "CPU" the server's mean`,
    'user+system time per request. `id` is the primary key; `amount` has no index and every seventh value NULL.',
    '',
  ]
  for (const name of selectedDialects('BENCH_DIALECTS')) {
    const result = await measure(name)
    lines.push(`## ${name}`, '')
    if (typeof result === 'string') {
      lines.push(`skipped: ${result}`, '')
      continue
    }
    lines.push('| request | p50 ms | server CPU ms |', '|---|---|---|')
    for (const row of result) lines.push(`| ${row.name} | ${row.p50Ms.toFixed(1)} | ${row.cpuMs.toFixed(1)} |`)
    lines.push('')
  }
  writeFileSync(new URL('CURSOR.md', `file://${__dirname}/`), lines.join('\n'))
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
