// What the parser needs besides the request.
import type { FieldsOptions } from './parse-fields'

/** Everything the parser needs besides the request: the schema and the router's limits. */
export interface ParserOptions extends FieldsOptions {
  /** Most entries in `fields`, `sort`, `groupBy`, `aggregate` and `alias` each (`maxListEntries`). */
  readonly maxListEntries: number
  /** Signs and checks page cursors (`cursorSecret`). */
  readonly cursorSecret: Buffer
  /** Most rows one `export` streams (`maxExportRows`); it replaces `maxLimit` there. */
  readonly maxExportRows: number
}
