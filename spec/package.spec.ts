// The built package loads by name, as a consumer would load it: CommonJS require, ESM import, and types.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(__dirname, '..')

function runNode(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' }).trim()
}

describe('package', () => {
  beforeAll(() => {
    // `npm test` runs the build first (pretest); a missing dist/ means that step was skipped.
    if (!existsSync(join(root, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first')
  })

  it('is required by name through package.json exports', () => {
    const output = runNode([
      '-e',
      "const m = require('express-items-router'); console.log(typeof m.createItemsRouter, typeof m.ItemsError)",
    ])
    expect(output).toBe('function function')
  })

  it('is imported by name from an ES module', () => {
    const output = runNode([
      '--input-type=module',
      '-e',
      "import { createItemsRouter, NotFoundError } from 'express-items-router'; console.log(typeof createItemsRouter, new NotFoundError().status)",
    ])
    expect(output).toBe('function 404')
  })

  it('exports the SQLite connection helper', () => {
    const output = runNode(['-e', "console.log(typeof require('express-items-router').prepareSqliteConnection)"])
    expect(output).toBe('function')
  })

  it('ships type declarations for the public surface', () => {
    const declarations = readFileSync(join(root, 'dist', 'index.d.ts'), 'utf8')
    expect(declarations).toContain('createItemsRouter')
    expect(declarations).toContain('ItemsRouterOptions')
    expect(declarations).toContain('CollectionDefinition')
  })
})
