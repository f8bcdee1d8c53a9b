// The built package loads by name, as a consumer would load it: CommonJS require, ESM import, and types.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'

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

  describe('what `npm pack` ships', () => {
    // --ignore-scripts: the build already ran (pretest), and prepack would rebuild dist/ under the other workers' feet.
    const packed = (): Set<string> => {
      const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      const [report] = JSON.parse(output) as [{ files: { path: string }[] }]
      return new Set(report.files.map((file) => file.path))
    }
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>

    it('carries the license its package.json names, and says where the project lives', () => {
      const files = packed()
      expect(files.has('LICENSE')).toBe(true)
      expect(manifest.license).toBe('MIT')
      expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} express-items-router contributors/)
      expect(manifest).toMatchObject({
        repository: { type: 'git', url: expect.stringContaining('github.com/express-items-router/express-items-router') },
        bugs: { url: expect.stringContaining('/issues') },
        homepage: expect.stringContaining('github.com/express-items-router/express-items-router'),
      })
    })

    it('ships the introspect command as its bin, runnable by node', () => {
      const files = packed()
      expect(manifest.bin).toEqual({ 'express-items-router': 'dist/cli/main.js' })
      expect(files.has('dist/cli/main.js')).toBe(true)
      expect(readFileSync(join(root, 'dist', 'cli', 'main.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node')
    })

    it('ships the sources every source map and declaration map points at', () => {
      const files = packed()
      const maps = [...files].filter((file) => file.endsWith('.map'))
      expect(maps.length).toBeGreaterThan(10)
      const missing = maps.flatMap((map) => {
        const { sources } = JSON.parse(readFileSync(join(root, map), 'utf8')) as { sources: string[] }
        return sources.map((source) => normalize(join(dirname(map), source))).filter((source) => !files.has(source))
      })
      expect(missing).toEqual([])
    })

    it('declares @types/express, which its declarations import, as an optional peer', () => {
      expect(readFileSync(join(root, 'dist', 'types.d.ts'), 'utf8')).toMatch(/from 'express'/)
      expect(manifest).toMatchObject({
        peerDependencies: { '@types/express': expect.any(String) },
        peerDependenciesMeta: { '@types/express': { optional: true } },
      })
    })
  })
})
