// The documentation runs as written: every code block of README.md and docs/ is marked as run (by the spec or
// script named here), as a TypeScript fragment (compiled by fragments.spec.ts) or as query strings (sent by
// queries.spec.ts); and the testing guide's three files run under jest as they stand.
import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { docBlocks, runnableBlock } from './doc-blocks'

const root = join(__dirname, '..', '..')

const CONSUMERS = 'spec/external/run.sh, in a fresh project with the packed package'

/** Who runs each `runs:` block. */
const RUN_BY: Readonly<Record<string, string>> = Object.freeze({
  install: `${CONSUMERS}: the packages installed as written`,
  'install-postgres': CONSUMERS,
  'install-mysql': CONSUMERS,
  'install-testing': CONSUMERS,
  usage: `${CONSUMERS} (tsx on SQLite, PostgreSQL and MariaDB; CommonJS + Express 4; strict TypeScript)`,
  'usage-curl': `${CONSUMERS}, against the usage program on each database`,
  'knex-postgres': `${CONSUMERS}: it replaces the usage program's knex instance`,
  'knex-mysql': `${CONSUMERS}: it replaces the usage program's knex instance`,
  'readme-server': `${CONSUMERS}, over the database the usage program made`,
  'readme-curl': `${CONSUMERS}, against the readme-server program`,
  develop: 'spec/external/run.sh starts the demo with `npm start`; .ci/run runs `npm ci` and `npm test`',
  'export-curl': 'spec/external/run.sh, against the demo',
  'cursor-curl': 'spec/external/run.sh, against the demo',
  'versions-curl': 'spec/external/run.sh, against the demo',
  'sdk-client': 'spec/clients/readme-example.spec.ts (the block is examples/sdk-client.ts, verbatim)',
  'server-managed': 'spec/existing-databases/server-managed.spec.ts (transpiles and mounts the block)',
  cors: 'spec/docs/browser-cors.spec.ts (transpiles and mounts the block)',
  'cli-introspect': 'spec/existing-databases/introspect.spec.ts (each line, on its database)',
  generators: 'spec/clients/type-generators.spec.ts (each line, against a router serving the fixtures)',
  'cli-snapshot': 'spec/directus-schema/snapshot-cli.spec.ts (its module replaced by the fixtures, on every database)',
  testing: `this spec, and ${CONSUMERS}`,
  'testing-jest-config': `this spec, and ${CONSUMERS}`,
  'testing-tsconfig': `this spec, and ${CONSUMERS}`,
})

describe('the documentation', () => {
  it('marks every code block as run, as a fragment or as queries', () => {
    const unmarked = docBlocks()
      .filter((block) => block.marker === null)
      .map((block) => `${block.file}:${block.line}`)
    expect(unmarked).toEqual([])
  })

  it('marks only TypeScript as fragments, and only plain blocks as queries', () => {
    const misplaced = docBlocks()
      .filter(
        (block) =>
          (block.marker === 'fragment' && block.language !== 'ts') || (block.marker?.startsWith('queries: ') && block.language !== ''),
      )
      .map((block) => `${block.file}:${block.line} (${block.marker}, \`\`\`${block.language})`)
    expect(misplaced).toEqual([])
  })

  it('runs every block marked runs:, each name by someone listed here, copies alike', () => {
    const names = [
      ...new Set(docBlocks().flatMap((block) => (block.marker?.startsWith('runs: ') ? [block.marker.slice('runs: '.length)] : []))),
    ]
    expect(names.sort()).toEqual(Object.keys(RUN_BY).sort())
    for (const name of names) expect(() => runnableBlock(name)).not.toThrow()
  })

  it('runs the testing guide: its spec file under its jest configuration', () => {
    // Inside the repository, so jest, ts-jest and supertest resolve from its node_modules; the package itself
    // (its dist/, as `npm install` would give it) through a link, as an installed dependency.
    const dir = join(root, 'tmp', `docs-testing-${process.pid}`)
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
      throw new Error(`The testing guide failed:\n${stdout ?? ''}${stderr ?? String(error)}`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
