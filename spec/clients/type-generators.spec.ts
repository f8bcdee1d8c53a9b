// directus-sdk-typegen and directus-typeforge, run as their users run them against a router serving the fixtures: the types they write compile and say what the schema says.
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import express from 'express'
import ts from 'typescript'
import { collections } from '../../fixtures/schema'
import { createItemsRouter, type FieldDefinition } from '../../lib'
import { runnableBlock } from '../docs/doc-blocks'
import { recordingLogger } from '../support/app'
import { forEachDialect } from '../support/dialects'

const root = join(__dirname, '..', '..')
const run = promisify(execFile)
/** Each tool starts Node afresh and tsc checks two generated modules: minutes on a loaded machine. */
const TIMEOUT = 240_000

type Name = keyof typeof collections
const NAMES = Object.keys(collections) as Name[]
const fieldsOf = (name: Name): [string, FieldDefinition][] =>
  Object.entries(collections[name].fields as Record<string, FieldDefinition>).filter(
    ([, field]) => !(field.type !== 'o2m' && field.hidden === true),
  )
const union = (names: readonly string[]): string => (names.length === 0 ? 'never' : names.map((name) => `'${name}'`).join(' | '))

/** What a create must name, which typegen makes the non-optional keys (with the primary key). */
function required(name: Name): string[] {
  return fieldsOf(name)
    .filter(([, field]) => field.type !== 'o2m' && (field.primaryKey === true || (field.nullable === false && field.default === undefined)))
    .map(([field]) => field)
}

/**
 * A module of type assertions over a generated schema type `Root`: each collection's keys, a singleton as one
 * object and the others as lists, each relation's type holding the related item; with `optionality`, which keys
 * are optional. It fails to compile where the generated types say otherwise.
 */
function assertions(module: string, root: string, optionality: boolean): string {
  const lines = [
    `import type { ${root} as Root } from './${module}'`,
    "import { expectTypeOf } from 'expect-type'",
    'type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T]',
    'type Item<N extends keyof Root> = Root[N] extends readonly (infer I)[] ? I : Root[N]',
  ]
  for (const name of NAMES) {
    const definition = collections[name] as { singleton?: boolean }
    lines.push(`expectTypeOf<Root['${name}']>().${definition.singleton ? 'not.' : ''}toBeArray()`)
    lines.push(`expectTypeOf<keyof Item<'${name}'>>().toEqualTypeOf<${union(fieldsOf(name).map(([field]) => field))}>()`)
    if (optionality) lines.push(`expectTypeOf<RequiredKeys<Item<'${name}'>>>().toEqualTypeOf<${union(required(name))}>()`)
    for (const [field, definition] of fieldsOf(name)) {
      if (definition.type === 'o2m')
        lines.push(`expectTypeOf<Item<'${definition.collection}'>[]>().toMatchTypeOf<NonNullable<Item<'${name}'>['${field}']>>()`)
      else if (definition.references !== undefined)
        lines.push(`expectTypeOf<Item<'${definition.references}'>>().toMatchTypeOf<NonNullable<Item<'${name}'>['${field}']>>()`)
    }
  }
  return `${lines.join('\n')}\n`
}

function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    types: [],
    baseUrl: root,
    paths: { '*': ['node_modules/*'] },
  })
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'))
}

/** The documented command with the server and output replaced; `npx <tool>` run as the tool's own bin. */
function command(line: string, replace: Readonly<Record<string, string>>): { bin: string; args: string[] } {
  const words = line.trim().split(/\s+/)
  expect(words[0]).toBe('npx')
  const args = words.slice(2)
  for (const [flag, value] of Object.entries(replace)) {
    expect(args).toContain(flag)
    args[args.indexOf(flag) + 1] = value
  }
  return { bin: join(root, 'node_modules', '.bin', words[1]!), args }
}

forEachDialect((ctx) => {
  let server: Server
  let origin: string
  let dir: string
  beforeAll(async () => {
    const router = createItemsRouter({ knex: ctx.knex, collections, logger: recordingLogger(), schemaEndpoints: true })
    const app = express()
    // typegen reads under the URL it is given; typeforge asks at the host's root.
    app.use('/api', router)
    app.use('/', router)
    server = app.listen(0, '127.0.0.1')
    await once(server, 'listening')
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    mkdirSync(join(root, 'tmp'), { recursive: true })
    // Inside the project, so that the checks resolve expect-type from its node_modules.
    dir = mkdtempSync(join(root, 'tmp', `generators-${ctx.name}-`))
  })
  afterAll(async () => {
    server.closeAllConnections()
    server.close()
    await once(server, 'close')
    rmSync(dir, { recursive: true, force: true })
  })

  const [typegenLine, typeforgeLine] = runnableBlock('generators').code.trim().split('\n') as [string, string]

  it(
    'directus-sdk-typegen: the types it writes from /collections, /fields and /relations compile and match the schema',
    async () => {
      const { bin, args } = command(typegenLine, { '--url': `${origin}/api`, '--output': join(dir, 'typegen.ts') })
      await run(bin, args, { cwd: dir })
      writeFileSync(join(dir, 'typegen-check.ts'), assertions('typegen', 'Schema', true))
      expect(typeErrors(join(dir, 'typegen-check.ts'))).toEqual([])
    },
    TIMEOUT,
  )

  it(
    'directus-typeforge: the types it writes from /schema/snapshot compile and match the schema',
    async () => {
      const { bin, args } = command(typeforgeLine, { '--host': origin, '--outFile': join(dir, 'typeforge.ts') })
      await run(bin, args, { cwd: dir })
      // typeforge makes every key required by default (its --makeRequired), so optionality is typegen's to show.
      writeFileSync(join(dir, 'typeforge-check.ts'), assertions('typeforge', 'ApiCollections', false))
      expect(typeErrors(join(dir, 'typeforge-check.ts'))).toEqual([])
    },
    TIMEOUT,
  )

  it(
    'the assertions can fail: a collection whose fields they do not name does not compile',
    async () => {
      writeFileSync(join(dir, 'wrong.ts'), 'export interface Schema { settings: { id: number }[] }\n')
      writeFileSync(join(dir, 'wrong-check.ts'), assertions('wrong', 'Schema', true))
      expect(typeErrors(join(dir, 'wrong-check.ts')).length).toBeGreaterThan(0)
    },
    TIMEOUT,
  )
})
