// Reads the README's fenced code blocks and the marker before each: `<!-- runs: name -->` (a spec or the consumer
// matrix executes it) or `<!-- fragment -->` (a piece of a larger program, shown for reading).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ReadmeBlock {
  /** `runs: <name>`, `fragment`, or null when the block carries no marker. */
  readonly marker: string | null
  readonly language: string
  readonly code: string
  /** 1-based line of the opening fence. */
  readonly line: number
}

export const README = join(__dirname, '..', '..', 'README.md')

export function readmeBlocks(text = readFileSync(README, 'utf8')): ReadmeBlock[] {
  const lines = text.split('\n')
  const blocks: ReadmeBlock[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!)
    if (!open) continue
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`README.md:${i + 1}: unclosed code block`)
    // The marker sits on the closest non-blank line above the fence.
    let above = i - 1
    while (above >= 0 && lines[above]!.trim() === '') above--
    const marker = /^<!-- (runs: [\w-]+|fragment) -->$/.exec(lines[above]?.trim() ?? '')?.[1] ?? null
    blocks.push({ marker, language: open[1] ?? '', code: lines.slice(i + 1, end).join('\n') + '\n', line: i + 1 })
    i = end
  }
  return blocks
}

/** The one block marked `runs: <name>`. */
export function runnableBlock(name: string): ReadmeBlock {
  const found = readmeBlocks().filter((block) => block.marker === `runs: ${name}`)
  if (found.length !== 1) throw new Error(`README.md has ${found.length} blocks marked "runs: ${name}", expected one`)
  return found[0]!
}

// `ts-node spec/external/readme-blocks.ts <name>` prints a block, for spec/external/run.sh.
if (require.main === module) process.stdout.write(runnableBlock(process.argv[2] ?? '').code)
