// Exports a 1M-row, 6-column table as CSV through the router (`export=csv&limit=-1`) and through the database's
// own command-line client, per database; writes peak RSS, time to first byte and total time to bench/EXPORT.md.
// Run by hand after `npm run build`: `npm run bench:export` (BENCH_DIALECTS=sqlite narrows it, BENCH_ROWS resizes).
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import type { DialectName } from '../lib/dialects'
import { probe, selectedDialects } from '../spec/support/databases'
import { benchDatabase, openTable, ROWS, serve, SQLITE_FILE, TABLE } from './big-table'

interface Timing {
  firstByteMs: number
  totalMs: number
  bytes: number
  /** User + system CPU time of the process that wrote the CSV (for the CLI, /usr/bin/time's figures). */
  cpuMs?: number
}

/** The client's command line that writes the table as CSV to stdout, as its manual suggests. */
function cliCommand(name: DialectName): [string, string[]] {
  const select = `select * from ${TABLE} order by id`
  switch (name) {
    case 'sqlite':
      return ['sqlite3', ['-csv', '-header', SQLITE_FILE, select]]
    case 'postgres':
      return ['psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', benchDatabase(), '-c', `\\copy (${select}) to stdout csv header`]]
    case 'mysql':
      return ['mysql', ['-h', '127.0.0.1', '-u', 'root', '--batch', '-e', select, benchDatabase()]]
  }
}

function timeCli(name: DialectName): Promise<Timing> {
  const [command, args] = cliCommand(name)
  const started = performance.now()
  let firstByteMs = 0
  let bytes = 0
  let errors = ''
  return new Promise((resolve, reject) => {
    // GNU time reports the client's CPU time on stderr: wall clock alone is noise on a shared machine.
    const child = spawn('/usr/bin/time', ['-f', 'CPU %U %S', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', (data: Buffer) => {
      if (bytes === 0) firstByteMs = performance.now() - started
      bytes += data.length
    })
    child.stderr.on('data', (data: Buffer) => (errors += data.toString()))
    child.on('error', reject)
    child.on('close', (code) => {
      const cpu = /CPU ([\d.]+) ([\d.]+)/.exec(errors)
      if (code !== 0 || !cpu) return reject(new Error(`${command} exited ${code}: ${errors}`))
      resolve({ firstByteMs, totalMs: performance.now() - started, bytes, cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 })
    })
  })
}

async function timeRouter(url: string): Promise<Timing> {
  const started = performance.now()
  const response = await fetch(url)
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`)
  const reader = response.body!.getReader()
  let firstByteMs = 0
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (bytes === 0) firstByteMs = performance.now() - started
    bytes += value.length
  }
  return { firstByteMs, totalMs: performance.now() - started, bytes }
}

/** Exports per side (BENCH_EXPORT_RUNS): one run alone moves by a third on a shared machine. */
const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 3)

/** The run of median total time. */
const median = <T extends Timing>(runs: readonly T[]): T => [...runs].sort((a, b) => a.totalMs - b.totalMs)[Math.floor(runs.length / 2)]!

interface Figures {
  router: Timing
  cli: Timing
  rssBeforeMiB: number
  maxRssMiB: number
  cpuMs: number
}

async function measure(name: DialectName): Promise<Figures | string> {
  const unreachable = await probe(name)
  if (unreachable) return unreachable
  const knex = await openTable(name)
  await knex.destroy()
  // Router and CLI in turn, RUNS times each, the router in a fresh server child each time (its peak RSS is
  // that export's alone); the run of median total time stands for each side.
  const routerRuns: (Timing & { cpuMs: number; rssBeforeMiB: number; maxRssMiB: number })[] = []
  const cliRuns: Timing[] = []
  for (let run = 0; run < RUNS; run++) {
    const server = await serve(name)
    try {
      // Warm the connection pool and the statement caches with a small export first.
      await timeRouter(`${server.base}/api/items/${TABLE}?export=csv&limit=1000`)
      const before = await server.usage()
      const timing = await timeRouter(`${server.base}/api/items/${TABLE}?export=csv&limit=-1`)
      const after = await server.usage()
      const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000
      routerRuns.push({ ...timing, cpuMs, rssBeforeMiB: before.rssMiB, maxRssMiB: after.maxRssMiB })
    } finally {
      server.close()
    }
    cliRuns.push(await timeCli(name))
  }
  const router = median(routerRuns)
  const figures = { router, cli: median(cliRuns), rssBeforeMiB: router.rssBeforeMiB, maxRssMiB: router.maxRssMiB, cpuMs: router.cpuMs }
  console.log(name, JSON.stringify(figures))
  return figures
}

const loadAverage = (): string =>
  os
    .loadavg()
    .map((load) => load.toFixed(1))
    .join(', ')

async function main(): Promise<void> {
  const loadBefore = loadAverage()
  const lines = [
    '# Export of a 1M-row table as CSV',
    '',
    `Written by \`npm run bench:export\` (bench/export.ts) on ${new Date().toISOString()}: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ` +
      `${os.cpus().length} cores (shared with other work), Node ${process.version}.`,
    `${ROWS} rows of 6 columns (integer key, text, integer with every seventh NULL, decimal(10,2), timestamp, boolean), sorted by id.`,
    'Router: `GET /items/bench_rows?export=csv&limit=-1` served by the built library in a child process of its own;',
    `the client (fetch) reads and discards the body. Router (a new child each time) and CLI export in turn, ${RUNS}`,
    'times each; each side shows its run of median total time. "peak RSS" is that child\'s `resourceUsage().maxRSS`',
    'after the export (its RSS before it beside); "CPU" the child\'s user+system time for the export. CLI: the same rows',
    "written to a pipe by the database's client (`sqlite3 -csv -header`, `psql \\copy (...) to stdout csv header`,",
    '`mysql --batch`, which writes tab-separated text), timed the same way, its CPU time from `/usr/bin/time`. The',
    'machine is shared with other work (load average LOAD), so wall-clock times and',
    'their ratio vary from run to run; CPU times much less. On SQLite both sides do all the work in their own process;',
    "on MariaDB the server formats and sends the rows, so the CLI's CPU is only its copying, while the router also",
    'parses every row. On PostgreSQL both have the server write the CSV (COPY), the router with cells that spell',
    'the values as its own writer does. `created_at` is a `timestamp` there (text before 2026-11-26).',
    '',
    '| database | router first byte ms | router total s | CLI total s | router / CLI (wall) | router CPU s | CLI CPU s | peak RSS MiB (before) | router MB / CLI MB |',
    '|---|---|---|---|---|---|---|---|---|',
  ]
  for (const name of selectedDialects('BENCH_DIALECTS')) {
    const result = await measure(name)
    if (typeof result === 'string') {
      lines.push(`| ${name} | skipped: ${result} | | | | | | | |`)
      continue
    }
    const { router, cli } = result
    lines.push(
      `| ${name} | ${router.firstByteMs.toFixed(0)} | ${(router.totalMs / 1000).toFixed(1)} | ${(cli.totalMs / 1000).toFixed(1)} | ` +
        `${(router.totalMs / cli.totalMs).toFixed(2)} | ${(result.cpuMs / 1000).toFixed(1)} | ${((cli.cpuMs ?? Number.NaN) / 1000).toFixed(1)} | ` +
        `${result.maxRssMiB.toFixed(0)} (${result.rssBeforeMiB.toFixed(0)}) | ${(router.bytes / 1e6).toFixed(0)} / ${(cli.bytes / 1e6).toFixed(0)} |`,
    )
  }
  const text = lines.join('\n').replace('LOAD', `${loadBefore} before the runs, ${loadAverage()} after`)
  writeFileSync(new URL('EXPORT.md', `file://${__dirname}/`), `${text}\n`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
