// Writes collections as a TypeScript module: one `defineCollection` per table, each field commented with the
// column's database type, and every table or column left out listed with the reason. Used by `introspect`.
import type { CatalogTable } from '../introspect/read-catalog'
import type { DatabaseDescription, FieldDefinition } from '../types'

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

const key = (name: string): string => (IDENTIFIER.test(name) ? name : quote(name))

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`
}

/** A JSON-like value as a TypeScript literal, on one line. */
function literal(value: unknown): string {
  if (typeof value === 'string') return quote(value)
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined)
    return entries.length === 0 ? '{}' : `{ ${entries.map(([name, item]) => `${key(name)}: ${literal(item)}`).join(', ')} }`
  }
  return String(value)
}

/** The comment after a field: its column's type and a computed default, or the relation an alias reads. */
function fieldComment(name: string, field: FieldDefinition, table: CatalogTable | undefined): string {
  if (field.type === 'o2m') return `${field.collection}.${field.foreignKey} pointing here`
  const column = table?.columns.find((candidate) => candidate.name === name)
  if (!column) return ''
  const notes = [column.dbType]
  if (column.defaultExpression !== undefined) notes.push(`default ${column.defaultExpression}`)
  return notes.join(', ')
}

/** The module's text; `source` says where it was read from (no password), for its header. */
export function collectionsSource(description: DatabaseDescription, catalog: readonly CatalogTable[], source: string): string {
  const lines = [
    `// Collections read from ${source} by \`express-items-router introspect\`.`,
    '// This file is yours to edit. Check it against the database at startup: `await checkCollections(knex, collections)`.',
    "import { defineCollection } from 'express-items-router'",
    '',
  ]
  const leftOut = description.skipped.filter((entry) => entry.column === undefined)
  if (leftOut.length > 0) {
    lines.push('// Tables left out:')
    for (const entry of leftOut) lines.push(`// - ${entry.table}: ${entry.reason}`)
    lines.push('')
  }
  lines.push('export const collections = {')
  for (const [name, collection] of Object.entries(description.collections)) {
    const table = catalog.find((candidate) => candidate.name === name)
    lines.push(`  /** The ${table?.view ? 'view' : 'table'} ${name}. */`)
    lines.push(`  ${key(name)}: defineCollection({`)
    if (collection.access) lines.push(`    access: ${literal(collection.access)}, // a view: read-only`)
    lines.push('    fields: {')
    for (const [fieldName, field] of Object.entries(collection.fields)) {
      const comment = fieldComment(fieldName, field, table)
      // Above the field, not after it: a formatter that breaks a long field across lines keeps it in place.
      if (comment) lines.push(`      // ${comment}`)
      lines.push(`      ${key(fieldName)}: ${literal(field)},`)
    }
    for (const entry of description.skipped.filter((skip) => skip.table === name && skip.column !== undefined)) {
      lines.push(`      // ${entry.column}: ${entry.reason}`)
    }
    lines.push('    },')
    lines.push('  }),')
  }
  lines.push('}', '')
  return lines.join('\n')
}
