// `express-items-router introspect` run as users run it, against each database: the module it writes is
// prettier-clean, compiles under the project's strict settings, is accepted by createItemsRouter, and holds
// what readCollections reads; and the CLI reference's commands run, each on its database.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { Knex } from 'knex'
import ts from 'typescript'
import { createItemsRouter, describeDatabase, type Collections } from '../../lib'
import type { DialectName } from '../../lib/dialects'
import { runnableBlock } from '../docs/doc-blocks'
import { workerDatabase } from '../support/databases'
import { forEachDialect } from '../support/dialects'
import { closeLegacyDatabase, legacyMysqlDatabase, openLegacyDatabase } from './legacy-database'

const root = join(__dirname, '..', '..')
const run = promisify(execFile)

/** Each command of the CLI reference, as its words, keyed by the knex client it names. */
function documentedCommands(): Map<string, string[]> {
  const commands = new Map<string, string[]>()
  for (const line of runnableBlock('cli-introspect').code.split('\n')) {
    const words = line.replace(/#.*$/, '').trim().split(/\s+/).filter(Boolean)
    if (words.length === 0) continue
    expect(words.slice(0, 3)).toEqual(['npx', 'express-items-router', 'introspect'])
    commands.set(words[words.indexOf('--client') + 1]!, words.slice(3))
  }
  return commands
}

/** A documented command with its connection (the flags `--client` and `--connection`) replaced by `connection`. */
function withConnection(words: readonly string[], connection: readonly string[]): string[] {
  const rest = [...words]
  for (const flag of ['--client', '--connection']) rest.splice(rest.indexOf(flag), 2)
  return [...connection, ...rest]
}

function connectionArgs(name: DialectName, sqliteFile: string): string[] {
  switch (name) {
    case 'sqlite':
      return ['--client', 'better-sqlite3', '--connection', sqliteFile]
    case 'postgres': {
      const url = new URL(process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432')
      url.pathname = `/${workerDatabase()}`
      return ['--client', 'pg', '--connection', url.toString(), '--schema', 'legacy']
    }
    case 'mysql': {
      const url = new URL(process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306')
      url.pathname = `/${legacyMysqlDatabase()}`
      return ['--client', 'mysql2', '--connection', url.toString()]
    }
  }
}

/** Type-checks `file` with the project's strict options, the package name mapped to lib/. */
function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noUncheckedIndexedAccess: true,
    noUnusedLocals: true,
    noEmit: true,
    skipLibCheck: true,
    esModuleInterop: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    typeRoots: [join(root, 'node_modules', '@types')],
    baseUrl: root,
    paths: { 'express-items-router': ['lib/index.ts'], '*': ['node_modules/*', 'node_modules/@types/*'] },
  })
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
}

/** The module's `collections`, evaluated with the package name pointing at the built library. */
function evaluate(source: string): Collections {
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } })
  const exports: { collections?: Collections } = {}
  const requireHere = createRequire(__filename)
  const load = (name: string): unknown => requireHere(name === 'express-items-router' ? join(root, 'dist') : name)
  new Function('require', 'exports', outputText)(load, exports)
  return exports.collections!
}

forEachDialect((ctx) => {
  describe(`${ctx.name}: introspect`, () => {
    const scratch = mkdtempSync(join(tmpdir(), 'items-introspect-'))
    // Inside the project, so the project's prettier configuration applies to the file written.
    const outDir = join(root, 'tmp', `introspect-${ctx.name}-${process.pid}`)
    let knex: Knex | undefined

    beforeAll(async () => {
      mkdirSync(outDir, { recursive: true })
      knex = await openLegacyDatabase(ctx.name, ctx.knex, join(scratch, 'legacy.db'))
    })
    afterAll(async () => {
      await closeLegacyDatabase(ctx.name, knex)
      rmSync(scratch, { recursive: true, force: true })
      rmSync(outDir, { recursive: true, force: true })
    })

    it('writes a commented, formatted module that compiles and holds what readCollections reads', async () => {
      const out = join(outDir, 'collections.ts')
      const { stderr } = await run(
        process.execPath,
        [join(root, 'dist', 'cli', 'main.js'), 'introspect', ...connectionArgs(ctx.name, join(scratch, 'legacy.db')), '--out', out],
        {
          cwd: root,
        },
      )
      expect(stderr).not.toContain('post_tags')
      const source = readFileSync(out, 'utf8')
      expect(source).toContain("import { defineCollection } from 'express-items-router'")
      expect(source).toContain('// - audit_log: no primary key')
      expect(source).toMatch(/\/\/ (numeric|decimal|NUMERIC)\(10, ?2\)\n\s+price: \{ type: 'decimal', precision: 10, scale: 2 \},/)
      // prettier's own command line: its API loads ES modules, which jest cannot.
      await expect(run(join(root, 'node_modules', '.bin', 'prettier'), ['--check', out], { cwd: root })).resolves.toBeDefined()

      const host = join(outDir, 'host.ts')
      const hostSource = [
        "import knexFactory from 'knex'",
        "import { createItemsRouter } from 'express-items-router'",
        "import { collections } from './collections'",
        "createItemsRouter({ knex: knexFactory({ client: 'pg' }), collections })",
        '',
      ].join('\n')
      writeFileSync(host, hostSource)
      expect(typeErrors(host)).toEqual([])

      const collections = evaluate(source)
      expect(collections).toEqual((await describeDatabase(knex!)).collections)
      expect(() => createItemsRouter({ knex: knex!, collections })).not.toThrow()
      // A child process and a whole TypeScript program: slow on a busy machine.
    }, 120_000)

    it("runs the CLI reference's command for this database", async () => {
      const connection = connectionArgs(ctx.name, join(scratch, 'legacy.db'))
      const documented = documentedCommands().get(connection[1]!)
      expect(documented).toBeDefined()
      const args = withConnection(documented!, connection)
      const out = args.indexOf('--out')
      if (out >= 0) args[out + 1] = join(outDir, `documented-${args[out + 1]}`)
      const { stdout } = await run(process.execPath, [join(root, 'dist', 'cli', 'main.js'), 'introspect', ...args], { cwd: root })
      const source = out >= 0 ? readFileSync(args[out + 1]!, 'utf8') : stdout
      expect(source).toContain('defineCollection({')
    }, 120_000)

    it('answers a usage message and status 2 for a bad command line', async () => {
      await expect(run(process.execPath, [join(root, 'dist', 'cli', 'main.js'), 'introspect', '--client', 'oracle'])).rejects.toMatchObject(
        {
          code: 2,
          stderr: expect.stringContaining('Usage: express-items-router introspect'),
        },
      )
    })
  })
})
