// Reads the fenced code blocks of README.md and every Markdown file under docs/, with the marker before each:
// `<!-- runs: name -->` (a spec or the consumer matrix executes it), `<!-- fragment -->` (TypeScript compiled as
// a piece of a larger program) or `<!-- queries: collection -->` (query strings sent to a router).
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

export interface DocBlock {
  /** The file, relative to the repository: `README.md`, `docs/guide/writes.md`. */
  readonly file: string
  /** `runs: <name>`, `fragment`, `queries: <collection>`, or null when the block carries no marker. */
  readonly marker: string | null
  readonly language: string
  readonly code: string
  /** 1-based line of the opening fence. */
  readonly line: number
}

const root = join(__dirname, '..', '..')

/** README.md, then every Markdown file under docs/, in a stable order. */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => (entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : []))
  return [join(root, 'README.md'), ...walk(join(root, 'docs'))].map((file) => relative(root, file))
}

export function blocksOf(file: string, text = readFileSync(join(root, file), 'utf8')): DocBlock[] {
  const lines = text.split('\n')
  const blocks: DocBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`)
    // The marker sits on the closest non-blank line above the fence.
    let above = i - 1
    while (above >= 0 && lines[above]!.trim() === '') above--
    const marker = /^<!-- (runs: [\w-]+|fragment|queries: \w+) -->$/.exec(lines[above]?.trim() ?? '')?.[1] ?? null
    blocks.push({ file, marker, language: open[1] ?? '', code: lines.slice(i + 1, end).join('\n') + '\n', line: i + 1 })
    i = end
  }
  return blocks
}

export function docBlocks(): DocBlock[] {
  return docFiles().flatMap((file) => blocksOf(file))
}

/**
 * The block marked `runs: <name>`. A name may mark several blocks (the install lines stand in the README and in
 * the guide) as long as they are the same text.
 */
export function runnableBlock(name: string): DocBlock {
  const found = docBlocks().filter((block) => block.marker === `runs: ${name}`)
  if (found.length === 0) throw new Error(`No block is marked "runs: ${name}"`)
  const differing = found.filter((block) => block.code !== found[0]!.code)
  if (differing.length > 0) {
    const where = found.map((block) => `${block.file}:${block.line}`).join(', ')
    throw new Error(`The blocks marked "runs: ${name}" differ: ${where}`)
  }
  return found[0]!
}

/**
 * A TypeScript block evaluated as a CommonJS module. `modules` answers its run-time imports (type-only imports
 * vanish when it is transpiled); any other import fails, so a block cannot depend on something unlisted.
 */
export function loadBlockModule<T>(name: string, modules: Readonly<Record<string, unknown>>): T {
  const { outputText } = ts.transpileModule(runnableBlock(name).code, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  })
  const exports: Record<string, unknown> = {}
  const load = (module: string): unknown => {
    if (module in modules) return modules[module]
    throw new Error(`The block "runs: ${name}" imports ${module} at run time`)
  }
  new Function('require', 'exports', outputText)(load, exports)
  return exports as T
}

// `ts-node spec/docs/doc-blocks.ts <name>` prints a block, for spec/external/run.sh.
if (require.main === module) process.stdout.write(runnableBlock(process.argv[2] ?? '').code)
