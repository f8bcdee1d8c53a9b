// CSV exports written by PostgreSQL itself: each chunk's SELECT runs as COPY ... TO STDOUT (FORMAT csv), whose
// rows the server formats and quotes in C and pg hands over as bytes. The cells are SQL that spells each value
// exactly as the router's own CSV writer would (export-formats.ts), so the two paths answer byte for byte alike.
import { acquireConnection } from '../../knex-adapter'
import type { Field } from '../../schema/collection'
import type { CopiedColumn, CsvCopy, SqlFragment } from '../dialect'

/** pg's type ids of the column types whose text the cells below know. */
const TYPE = {
  bool: 16,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  float4: 700,
  float8: 701,
  varchar: 1043,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  uuid: 2950,
  numeric: 1700,
} as const

/** The scale of a numeric column from its type modifier; null for a numeric without one. */
const numericScale = (modifier: number): number | null => (modifier < 4 ? null : (modifier - 4) & 0xffff)

/** `template` with each `%v` replaced by `value`, its bindings repeated as often. */
function around(template: string, value: SqlFragment): SqlFragment {
  const parts = template.split('%v')
  return {
    sql: parts.join(value.sql),
    bindings: parts.slice(1).flatMap(() => value.bindings),
  }
}

/** What a cell raises for a value only the router can spell (see jsNumber): the chunk is then written by it. */
const WRITER_NEEDED = 'items_router_copy: the router writes this value'

/** SQL that fails with WRITER_NEEDED, naming `value` so that no plan folds it into a constant error. */
const writerNeeded = (value: string): string => `CAST(CAST('${WRITER_NEEDED} ' || CAST(${value} AS TEXT) AS INTEGER) AS TEXT)`

/**
 * A float as JavaScript's String() writes it. Below 2^53, PostgreSQL's text has the same (shortest) digits, and
 * uses fixed notation in a narrower range: from 1e-4 to below 1e15 (float8) or 1e6 (float4) both agree, and
 * elsewhere the digits and exponent of PostgreSQL's `d.ddde±XX` are laid out again by JavaScript's rules. From
 * 2^53 on, a value halfway between two decimals may get a longer one from PostgreSQL (1.2300000000000001e+22
 * where JavaScript writes 1.23e+22): there the cell fails, naming the value so that no plan folds it away, and
 * the chunk is left to the router. NaN and ±Infinity are spelt alike; -0 is written `0`, as String(-0) is.
 */
function jsNumber(value: SqlFragment, fixedBelow: string): SqlFragment {
  const relaid =
    "(select case when f.n between f.k and 21 then f.sign || f.digits || repeat('0', f.n - f.k) " +
    "when f.n between 1 and 21 then f.sign || left(f.digits, f.n) || '.' || substr(f.digits, f.n + 1) " +
    "when f.n between -5 and 0 then f.sign || '0.' || repeat('0', -f.n) || f.digits " +
    "else f.sign || f.lead || (case when f.rest = '' then '' else '.' || f.rest end) || 'e' || (case when f.n > 0 then '+' else '-' end) " +
    '|| abs(f.n - 1) end ' +
    'from (select m[1] as sign, m[2] as lead, m[3] as rest, m[2] || m[3] as digits, length(m[2] || m[3]) as k, m[4]::int + 1 as n ' +
    // No question mark in the pattern: knex would take it for a placeholder.
    "from regexp_match(CAST(%v AS TEXT), '^(-{0,1})([0-9])[.]{0,1}([0-9]*)e([-+][0-9]+)$') as m) as f)"
  return around(
    `case when %v = 0 then '0' when abs(%v) >= 1e-4 and abs(%v) < ${fixedBelow} then CAST(%v AS TEXT) ` +
      `when abs(%v) >= 9007199254740992 and abs(%v) < 'Infinity' then ${writerNeeded('%v')} ` +
      `else coalesce(${relaid}, CAST(%v AS TEXT)) end`,
    value,
  )
}

/**
 * The cell of one column, or null when its text is not known to match. Text goes through `nullif(..., '')`:
 * COPY quotes an empty string to tell it from NULL, where the router writes both as an empty cell.
 */
function cell({ field, value, type }: CopiedColumn): SqlFragment | null {
  const is = (...types: number[]): boolean => types.includes(type.id)
  // An enum's value is read through a text cast (storage.ts's columnValue), whatever its column's type.
  if (field.enum !== undefined) return around("nullif(%v, '')", value)
  switch (field.type) {
    case 'string':
    case 'text':
      return is(TYPE.text, TYPE.varchar) ? around("nullif(%v, '')", value) : null
    // The router reads an int8 as a JavaScript number for an integer field, which rounds beyond 2^53.
    case 'integer':
      return is(TYPE.int2, TYPE.int4) ? value : null
    case 'bigInteger':
      return is(TYPE.int2, TYPE.int4, TYPE.int8) ? value : null
    // numeric(p, s) writes exactly s digits after the point, as the router does for a field of that scale. It
    // may hold NaN (not infinity), which the router spells its own way: that chunk is left to it.
    case 'decimal':
      return is(TYPE.numeric) && field.scale !== undefined && numericScale(type.modifier) === field.scale
        ? around(`case when %v = 'NaN' then ${writerNeeded('%v')} else CAST(%v AS TEXT) end`, value)
        : null
    case 'float':
      return is(TYPE.float8) ? jsNumber(value, '1e15') : is(TYPE.float4) ? jsNumber(value, '1e6') : null
    case 'boolean':
      return is(TYPE.bool) ? around("case when %v then 'true' when not %v then 'false' end", value) : null
    // With DateStyle ISO (see columnTypes), the text the router parses: a date as it is; a wall clock cut to
    // seconds with a `T`, a time cut to seconds, except where the router's parsers refuse the text and pass it
    // on as it is (years outside 1-9999, BC, infinity, 24:00:00).
    case 'date':
      return is(TYPE.date) ? value : null
    case 'dateTime':
      return is(TYPE.timestamp)
        ? around(
            "case when %v >= '0001-01-01' and %v < '10000-01-01' then replace(left(CAST(%v AS TEXT), 19), ' ', 'T') else CAST(%v AS TEXT) end",
            value,
          )
        : null
    case 'time':
      return is(TYPE.time) ? around("case when %v < '24:00:00' then left(CAST(%v AS TEXT), 8) else CAST(%v AS TEXT) end", value) : null
    case 'uuid':
      return is(TYPE.uuid) ? value : null
    default:
      return null
  }
}

/** Text cells: a single one of them could hold `\.`, which COPY quotes when it is a line's only cell. */
const isText = (field: Field): boolean => field.enum !== undefined || field.type === 'string' || field.type === 'text'

/**
 * The statement's `$n` parameters, outside quoted names and literals, as `current_setting` reads of the values
 * set in the same transaction (COPY takes no parameters, so the values travel this way, still bound); a null
 * value as a typed NULL, since a setting cannot hold one.
 */
function settingsFor(sql: string, types: readonly string[], values: readonly unknown[]): string {
  return sql.replace(/"(?:[^"]|"")*"|'(?:[^']|'')*'|\$(\d+)/g, (token, index: string | undefined) => {
    if (index === undefined) return token
    const position = Number(index) - 1
    const type = types[position]!
    return values[position] === null || values[position] === undefined
      ? `CAST(NULL AS ${type})`
      : `CAST(current_setting('items_router.p${index}') AS ${type})`
  })
}

/** The part of pg's Client a COPY needs: its query method, which also takes a submittable (see CopyOut). */
interface PgClient {
  query(query: CopyOut): void
  query(text: string | { text: string; values: readonly unknown[] }): Promise<{ rows: Record<string, unknown>[] }>
}

/**
 * COPY TO STDOUT as pg runs it: a submittable query whose data messages this collects. Each message's bytes are
 * copied at once, since pg reuses the buffer they point into. The server sends each row in a message of its
 * own (the protocol says so), ending in LF where the router's CSV ends lines in CRLF: the row's last byte is
 * replaced as it is copied, and line breaks inside quoted cells stay as they are.
 */
class CopyOut {
  private bytes = Buffer.allocUnsafe(64 * 1024)
  private length = 0
  /** The connection's socket, paused for a turn of the event loop after every YIELD_BYTES (see handleCopyData). */
  private stream: Pausable | undefined
  private sinceYield = 0
  private settle!: { resolve: (csv: Buffer) => void; reject: (error: Error) => void }
  readonly done = new Promise<Buffer>((resolve, reject) => (this.settle = { resolve, reject }))

  constructor(private readonly text: string) {}

  submit(connection: { query(text: string): void; stream?: Pausable }): void {
    this.stream = connection.stream
    connection.query(this.text)
  }

  /**
   * Lets the event loop serve other sockets before this one is read on: Node reads a socket that has data many
   * times in one turn, and each read's rows are parsed at once, so a chunk's rows arriving fast would hold the
   * loop for the whole chunk, and a request beside the exports wait for its answer behind them
   * (`npm run bench:stall`, concurrent exports on PostgreSQL).
   */
  private yieldTurn(): void {
    const stream = this.stream
    if (stream === undefined || stream.isPaused()) return
    stream.pause()
    setImmediate(() => stream.resume())
  }

  handleCopyData({ chunk: row }: { chunk: Buffer }): void {
    const needed = this.length + row.length + 1
    if (needed > this.bytes.length) {
      const larger = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, needed))
      this.bytes.copy(larger, 0, 0, this.length)
      this.bytes = larger
    }
    // The typed array's own copy, LF and all, then CR LF over the LF: Buffer's copy() costs far more per call,
    // and this runs once per row.
    this.sinceYield += row.length
    if (this.sinceYield >= YIELD_BYTES) {
      this.sinceYield = 0
      this.yieldTurn()
    }
    this.bytes.set(row, this.length)
    this.length += row.length - 1
    this.bytes[this.length++] = CR
    this.bytes[this.length++] = LF
  }

  // pg lets go of a query that failed at once: no handleReadyForQuery follows.
  handleError(error: Error): void {
    this.settle.reject(error)
  }

  handleReadyForQuery(): void {
    this.settle.resolve(this.bytes.subarray(0, this.length))
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
}

/** The part of pg's socket a COPY pauses. */
interface Pausable {
  pause(): void
  resume(): void
  isPaused(): boolean
}

/** Bytes of rows parsed before the COPY's socket is paused for a turn of the event loop: about one socket read. */
const YIELD_BYTES = 64 * 1024

const CR = 0x0d
const LF = 0x0a

/** The statement name a COPY's parameter types are learnt under, deallocated at once. */
const PROBE = 'items_router_copy_types'

export const postgresCsvCopy: CsvCopy = {
  columnTypes: async (db, select) => {
    const style = (await db.raw('select current_setting(?) as style', ['DateStyle'])) as { rows: { style: string }[] }
    if (!style.rows[0]?.style.startsWith('ISO')) return null
    const { sql, bindings } = select.clone().limit(0).toSQL()
    const probe = (await db.raw(sql, bindings)) as { fields: { dataTypeID: number; dataTypeModifier: number }[] }
    return probe.fields.map((field) => ({ id: field.dataTypeID, modifier: field.dataTypeModifier }))
  },

  cells: (columns) => {
    if (columns.length === 1 && isText(columns[0]!.field)) return null
    const cells = columns.map(cell)
    return cells.every((one) => one !== null) ? (cells as SqlFragment[]) : null
  },

  needsWriter: (error) => error instanceof Error && error.message.includes(WRITER_NEEDED),

  copy: async (trx, select, known, limits) => {
    const { sql, bindings } = select.toSQL().toNative()
    // A transaction's client lends its own connection, for as long as the transaction.
    const connection = (await acquireConnection(trx)) as unknown as PgClient
    let types = known.get(sql)
    if (types === undefined) {
      // PREPARE infers each parameter's type as a bound statement would get it.
      await connection.query(`prepare ${PROBE} as ${sql}`)
      const probe = await connection.query({
        text: 'select parameter_types::text[] as types from pg_prepared_statements where name = $1',
        values: [PROBE],
      })
      await connection.query(`deallocate ${PROBE}`)
      types = probe.rows[0]!.types as string[]
      known.set(sql, types)
    }
    const { marker, statementTimeout } = limits
    const settings = bindings.map((_, index) => `set_config('items_router.p${index + 1}', $${index + 2}, true)`)
    await connection.query({
      text: `select ${["set_config('statement_timeout', $1, true)", ...settings].join(', ')}`,
      values: [String(statementTimeout), ...bindings],
    })
    const copy = new CopyOut(`${marker}copy (${settingsFor(sql, types, bindings)}) to stdout (format csv)`)
    connection.query(copy)
    return copy.done
  },
}
