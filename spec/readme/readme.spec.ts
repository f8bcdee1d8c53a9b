// The README runs as written: every code block is marked as run (here or by spec/external/run.sh) or as a
// fragment, and the testing guide's three files run under jest as they stand.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { readmeBlocks, runnableBlock } from '../external/readme-blocks'

const root = join(__dirname, '..', '..')

/** Who runs each `runs:` block. */
const RUN_BY: Readonly<Record<string, string>> = Object.freeze({
  usage: 'spec/external/run.sh (CommonJS + Express 4, ESM + Express 5, strict TypeScript)',
  'usage-curl': 'spec/external/run.sh, against the usage program',
  'versions-curl': 'spec/external/run.sh, against the demo',
  'sdk-client': 'spec/clients/readme-example.spec.ts (the block is examples/sdk-client.ts, verbatim)',
  'server-managed': 'spec/existing-databases/server-managed.spec.ts (transpiles and mounts the block)',
  testing: 'this spec',
  'testing-jest-config': 'this spec',
  'testing-tsconfig': 'this spec',
})

describe('README', () => {
  it('marks every code block as run or as a fragment', () => {
    const unmarked = readmeBlocks()
      .filter((block) => block.marker === null)
      .map((block) => `README.md:${block.line}`)
    expect(unmarked).toEqual([])
    const runs = readmeBlocks()
      .flatMap((block) => (block.marker?.startsWith('runs: ') ? [block.marker.slice('runs: '.length)] : []))
      .sort()
    expect(runs).toEqual(Object.keys(RUN_BY).sort())
  })

  it('runs the testing guide: its spec file under its jest configuration', () => {
    // Inside the repository, so jest, ts-jest and supertest resolve from its node_modules; the package itself
    // (its dist/, as `npm install` would give it) through a link, as an installed dependency.
    const dir = join(root, 'tmp', `readme-testing-${process.pid}`)
    mkdirSync(join(dir, 'node_modules'), { recursive: true })
    try {
      symlinkSync(root, join(dir, 'node_modules', 'express-items-router'), 'dir')
      writeFileSync(join(dir, 'projects.spec.ts'), runnableBlock('testing').code)
      writeFileSync(join(dir, 'jest.config.js'), runnableBlock('testing-jest-config').code)
      writeFileSync(join(dir, 'tsconfig.json'), runnableBlock('testing-tsconfig').code)
      const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js')
      const output = execFileSync(process.execPath, [jest, '--config', join(dir, 'jest.config.js'), '--ci'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, TZ: 'UTC' },
      })
      expect(output).toBe('')
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string }
      throw new Error(`The README's testing guide failed:\n${stdout ?? ''}${stderr ?? String(error)}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
