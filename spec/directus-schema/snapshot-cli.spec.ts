// `express-items-router snapshot` writes the snapshot GET /schema/snapshot answers, for each database's client.
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import express from 'express'
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { createItemsRouter } from '../../lib'
import type { DialectName } from '../../lib/dialects'
import { runnableBlock } from '../docs/doc-blocks'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'

const root = join(__dirname, '..', '..')
const run = promisify(execFile)
const CLIENTS: Readonly<Record<DialectName, string>> = { sqlite: 'better-sqlite3', postgres: 'pg', mysql: 'mysql2' }

/** The CLI from its source, as `npx express-items-router` runs it from dist/; ts-node lets it load the fixtures' module. */
async function cli(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, ['-r', 'ts-node/register/transpile-only', join(root, 'lib', 'cli', 'main.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
  })
}

/** Each run starts Node and ts-node afresh, which a loaded machine can stretch past jest's default. */
const CLI_TIMEOUT = 120_000

forEachDialect((ctx) => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'items-snapshot-'))
  })
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it(
    'writes to a file what the endpoint answers a caller who may read everything (the CLI reference’s command)',
    async () => {
      const out = join(dir, `${ctx.name}.json`)
      const words = runnableBlock('cli-snapshot').code.trim().split(/\s+/)
      expect(words.slice(0, 3)).toEqual(['npx', 'express-items-router', 'snapshot'])
      const args = words.slice(2)
      // This database's client, the fixtures' module, and a file of the spec's own.
      const replaced = [
        ['--client', CLIENTS[ctx.name]],
        ['--collections', 'fixtures/schema.ts'],
        ['--out', out],
      ] as const
      for (const [flag, value] of replaced) args[args.indexOf(flag) + 1] = value
      await cli(args)
      const written = JSON.parse(readFileSync(out, 'utf8')) as { vendor: string }
      const app = express()
      app.use('/api', createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger(), schemaEndpoints: true }))
      const served = await request(app).get('/api/schema/snapshot')
      expect(served.status).toBe(200)
      expect(written.vendor).toBe(ctx.name)
      expect(written).toEqual(served.body.data)
    },
    CLI_TIMEOUT,
  )

  it(
    'writes to standard output without --out, and answers usage for a missing source',
    async () => {
      const { stdout } = await cli(['snapshot', '--client', CLIENTS[ctx.name], '--collections', 'fixtures/schema.ts'])
      expect(JSON.parse(stdout)).toEqual(expect.objectContaining({ version: 1, vendor: ctx.name }))
      await expect(cli(['snapshot', '--client', CLIENTS[ctx.name]])).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining('Usage'),
      })
    },
    CLI_TIMEOUT,
  )
})
