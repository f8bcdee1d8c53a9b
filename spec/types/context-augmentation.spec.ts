// The host declares its user and role types once, by augmenting `ItemsTypes`; access rules, hooks, the context
// option and events then see them. Compiled apart, since an augmentation would retype every other spec.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'

const root = join(__dirname, '..', '..')

const HOST = `
import type { Request } from 'express'
import knexFactory from 'knex'
import { createItemsRouter, defineCollection } from 'express-items-router'

interface AppUser { id: number; tenant: number }
declare module 'express-items-router' {
  interface ItemsTypes { user: AppUser; role: 'admin' | 'editor' }
}
// The README's declaration of what the host's authentication puts on the request.
declare global {
  namespace Express { interface Request { user?: AppUser & { role: 'admin' | 'editor' } } }
}

const projects = defineCollection({
  fields: { id: { type: 'integer', primaryKey: true }, tenant: { type: 'integer', nullable: false } },
  access: { read: (ctx) => ctx.role === 'admin' || { filter: { tenant: { _eq: ctx.user?.tenant } } } },
  hooks: { afterCreate: (event) => { const tenant: number | undefined = event.context.user?.tenant; void tenant } },
})
const knex = knexFactory({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true })
createItemsRouter({
  knex,
  collections: { projects },
  context: (req: Request) => ({ user: req.user, role: req.user?.role }),
})
// @ts-expect-error: the role is one of the declared ones.
createItemsRouter({ knex, collections: { projects }, context: () => ({ role: 'owner' }) })
`

function diagnostics(source: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'items-augmentation-'))
  try {
    const file = join(dir, 'host.ts')
    writeFileSync(file, source)
    const program = ts.createProgram([file], {
      strict: true,
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
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('declaring the user type once', () => {
  it('types the context everywhere, and the README declaration makes req.user compile', () => {
    expect(diagnostics(HOST)).toEqual([])
  })

  it('fails to compile a context that does not fit the declared types', () => {
    const wrong = HOST.replace('ctx.user?.tenant } } }', 'ctx.user?.name } } }')
    expect(diagnostics(wrong).join('\n')).toMatch(/Property 'name' does not exist on type 'AppUser'/)
  })
})
