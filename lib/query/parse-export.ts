// Parses ?export: the file format a list is streamed as.
import { InvalidQueryError } from '../errors'
import { parseSingle } from './parse-list'
import type { ExportFormat } from './query'

const EXPORT_FORMATS: readonly ExportFormat[] = ['json', 'csv', 'ndjson']

export function parseExport(raw: unknown): ExportFormat | null {
  const format = parseSingle(raw, 'export')
  if (format === undefined) return null
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new InvalidQueryError('"export" must be json, csv or ndjson')
  return format as ExportFormat
}
