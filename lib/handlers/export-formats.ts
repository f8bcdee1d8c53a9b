// The download formats of `export`: how a stream of items is written as JSON, CSV or newline-delimited JSON.
import type { ExportFormat } from '../query/query'
import type { Item } from '../types'

export interface ExportWriter {
  readonly contentType: string
  readonly extension: string
  /** Text before the first item. */
  start(): string
  /** The text of a chunk of items; `first`: the chunk holds the export's first item. */
  items(items: readonly Item[], first: boolean): string
  /** Text after the last item. */
  end(): string
}

const NEEDS_QUOTES = /[",\r\n]/

/** RFC 4180: a cell holding a comma, a quote or a line break is quoted, its quotes doubled. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Numbers and booleans never need quotes: the common cells skip the scan.
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  // Relations (a related item, a list of items or keys) and json values: their JSON text in one cell.
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

/**
 * One CSV line of `count` cells, `cell(index)` giving each value. Appended cell by cell: an export writes millions
 * of lines, and arrays per line and cell would cost more.
 */
function csvLine(count: number, cell: (index: number) => unknown): string {
  let line = ''
  for (let index = 0; index < count; index++) line += index === 0 ? csvCell(cell(index)) : `,${csvCell(cell(index))}`
  return `${line}\r\n`
}

/**
 * CSV: a header row of the requested top-level fields (`columns`), then a row per item, lines ending in CRLF.
 * A nested value is one cell of JSON text; null is an empty cell.
 */
function csv(columns: readonly string[]): ExportWriter {
  return {
    contentType: 'text/csv; charset=utf-8',
    extension: 'csv',
    start: () => csvLine(columns.length, (index) => columns[index]),
    items: (items) => {
      let text = ''
      for (const item of items) text += csvLine(columns.length, (index) => item[columns[index]!])
      return text
    },
    end: () => '',
  }
}

/** CSV lines of rows given as arrays of their cells in column order: a CSV export of plain fields. */
export function csvLines(rows: readonly (readonly unknown[])[]): string {
  let text = ''
  for (const row of rows) text += csvLine(row.length, (index) => row[index])
  return text
}

const json: ExportWriter = {
  contentType: 'application/json; charset=utf-8',
  extension: 'json',
  start: () => '[',
  items: (items, first) => (first ? '' : ',') + items.map((item) => JSON.stringify(item)).join(','),
  end: () => ']',
}

const ndjson: ExportWriter = {
  contentType: 'application/x-ndjson; charset=utf-8',
  extension: 'ndjson',
  start: () => '',
  items: (items) => items.map((item) => `${JSON.stringify(item)}\n`).join(''),
  end: () => '',
}

export function exportWriter(format: ExportFormat, columns: readonly string[]): ExportWriter {
  switch (format) {
    case 'csv':
      return csv(columns)
    case 'json':
      return json
    case 'ndjson':
      return ndjson
  }
}
