#!/usr/bin/env node
// The `express-items-router` command: `introspect` writes the collections of an existing database as a TypeScript module.
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import knexFactory, { type Knex } from 'knex'
import { readCatalog } from '../introspect/read-catalog'
import { describeDatabase } from '../introspect/read-collections'
import { collectionsSource } from './collections-source'

const USAGE = `Usage: express-items-router introspect --client <better-sqlite3|pg|mysql2> --connection <url or file> [options]

Writes the collections of an existing database as a TypeScript module (defineCollection per table).

  --client       better-sqlite3, pg or mysql2
  --connection   a postgres:// or mysql:// URL, or the SQLite file
  --out          the file to write (default: standard output)
  --schema       PostgreSQL: the schema to read (default: current_schema())
  --include      tables to read, comma-separated (default: all)
  --exclude      tables to leave out, comma-separated
`

const CLIENTS = ['better-sqlite3', 'pg', 'mysql2']

/** knex's own connection forms: a file for better-sqlite3, a URL for the servers. */
function knexConfig(client: string, connection: string): Knex.Config {
  if (client === 'better-sqlite3') return { client, connection: { filename: connection }, useNullAsDefault: true }
  return { client, connection, pool: { min: 0, max: 2 } }
}

/** Where the file says it was read from: the URL without its password. */
function describeSource(client: string, connection: string): string {
  if (client === 'better-sqlite3') return `the SQLite file ${connection}`
  try {
    const url = new URL(connection)
    url.password = ''
    return `${client} ${url.toString()}`
  } catch {
    return client
  }
}

/** Formats with the project's own prettier and its configuration when the project has them; as written otherwise. */
async function format(source: string, file: string): Promise<string> {
  let prettier: { format(source: string, options: object): Promise<string>; resolveConfig(file: string): Promise<object | null> }
  try {
    // The project's own copy, from where the command runs: prettier is no dependency of this package.
    prettier = createRequire(join(process.cwd(), 'package.json'))('prettier') as typeof prettier
  } catch {
    return source
  }
  const config = (await prettier.resolveConfig(file)) ?? {}
  return prettier.format(source, { ...config, filepath: file })
}

const list = (value: string | undefined): string[] | undefined => value?.split(',').map((name) => name.trim())

async function introspect(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      client: { type: 'string' },
      connection: { type: 'string' },
      out: { type: 'string' },
      schema: { type: 'string' },
      include: { type: 'string' },
      exclude: { type: 'string' },
    },
  })
  if (!values.client || !CLIENTS.includes(values.client) || !values.connection) throw new UsageError()
  const knex = knexFactory(knexConfig(values.client, values.connection))
  try {
    const options = { schema: values.schema, include: list(values.include), exclude: list(values.exclude) }
    const description = await describeDatabase(knex, options)
    const catalog = await readCatalog(knex, values.schema)
    const file = resolve(values.out ?? 'collections.ts')
    const source = await format(collectionsSource(description, catalog, describeSource(values.client, values.connection)), file)
    if (values.out) writeFileSync(file, source)
    else process.stdout.write(source)
    for (const entry of description.skipped) {
      process.stderr.write(`left out ${entry.table}${entry.column ? `.${entry.column}` : ''}: ${entry.reason}\n`)
    }
  } finally {
    await knex.destroy()
  }
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  try {
    if (command !== 'introspect') throw new UsageError()
    await introspect(rest)
    return 0
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(USAGE)
      return 2
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    return 1
  }
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code
})
