// Every TypeScript fragment of README.md and docs/ compiles under strict settings, as a module of its own, with
// the package name mapped to lib/ and the names a fragment takes from its text declared in PRELUDE.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { docBlocks } from './doc-blocks'

const root = join(__dirname, '..', '..')

/**
 * The names the fragments take from their surrounding text ("your knex instance", "your app"), declared once so
 * that each fragment compiles as the piece of a program it is.
 */
const PRELUDE = `declare const knex: import('knex').Knex
declare const app: import('express').Express
declare const collections: import('express-items-router').Collections
/** The host's own authentication middleware. */
declare const authenticate: import('express').RequestHandler
/** The host's own routes. */
declare const authRoutes: import('express').Router
declare const webhooks: { publish(topic: string, payload: unknown): void }
declare const searchIndex: { add(keys: readonly unknown[], items: readonly unknown[]): Promise<void> }
declare function slugify(text: string): string
declare function reindex(keys: readonly number[]): void
`

it('compiles every TypeScript fragment of the documentation', () => {
  const fragments = docBlocks().filter((block) => block.marker === 'fragment')
  expect(fragments.length).toBeGreaterThan(0)
  // Inside the repository, so the fragments' imports resolve from its node_modules.
  mkdirSync(join(root, 'tmp'), { recursive: true })
  const dir = mkdtempSync(join(root, 'tmp', 'docs-fragments-'))
  try {
    const files = new Map<string, string>()
    for (const block of fragments) {
      const file = join(dir, `${block.file.replace(/[/.]/g, '-')}-${block.line}.ts`)
      // A fragment without imports or exports is still a module: its names must not leak into the others.
      const code = /^(import|export) /m.test(block.code) ? block.code : `${block.code}export {}\n`
      writeFileSync(file, code)
      files.set(file, `${block.file}:${block.line}`)
    }
    const prelude = join(dir, 'prelude.d.ts')
    writeFileSync(prelude, PRELUDE)
    // The typed client's `./api`: what openapi-typescript generates, as the repository keeps it for its fixtures.
    writeFileSync(join(dir, 'api.d.ts'), `export type { paths } from '${join(root, 'spec', 'openapi', 'fixture-api')}'\n`)
    const options: ts.CompilerOptions = {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
      typeRoots: [join(root, 'node_modules', '@types')],
      baseUrl: root,
      paths: { 'express-items-router': ['lib/index.ts'] },
    }
    // Also under exactOptionalPropertyTypes, as a host that turns it on copies the examples. Only the fragments'
    // own diagnostics count there: the library's sources are not written for that flag, and a host compiles
    // against their declarations with skipLibCheck.
    const exact = ts.createProgram([...files.keys(), prelude], { ...options, exactOptionalPropertyTypes: true })
    const exactDiagnostics = ts.getPreEmitDiagnostics(exact).filter((diagnostic) => diagnostic.file && files.has(diagnostic.file.fileName))
    const program = ts.createProgram([...files.keys(), prelude], options)
    const errors = [...ts.getPreEmitDiagnostics(program), ...exactDiagnostics].map((diagnostic) => {
      const where = diagnostic.file
        ? `${files.get(diagnostic.file.fileName) ?? diagnostic.file.fileName} (fragment line ${
            diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
          })`
        : ''
      return `${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`
    })
    expect(errors).toEqual([])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
