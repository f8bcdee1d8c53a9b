// The JSON form of bytes: standard base64 with padding (RFC 4648, section 4), the same on every database.

/** One mebibyte: with base64 a third longer, it still fits the default `bodyLimit`. */
export const DEFAULT_BINARY_BYTES = 1_048_576

/** Standard alphabet, padded to a multiple of four; no whitespace, no URL-safe letters. */
const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Bytes `text` decodes to, without decoding it. */
const decodedBytes = (text: string): number => (text.length / 4) * 3 - (text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0)

/** Whether `value` is base64 text as the router reads and writes it. */
export const isBase64 = (value: unknown): value is string => typeof value === 'string' && BASE64_TEXT.test(value)

/**
 * What is wrong with a binary payload value, or null: not base64, or more decoded bytes than the column holds
 * (`columnBytes`, 0 for no bound of its own) or than the `maxBinaryBytes` budget allows.
 */
export function base64Problem(value: unknown, columnBytes: number, maxBytes: number): string | null {
  if (!isBase64(value)) return 'must be base64 text (standard alphabet, padded with "=")'
  const bytes = decodedBytes(value)
  if (columnBytes > 0 && bytes > columnBytes) return `holds ${bytes} bytes, more than the column's ${columnBytes}`
  return bytes > maxBytes ? `holds ${bytes} bytes, more than ${maxBytes} (maxBinaryBytes)` : null
}

/** A value read from a binary column (Buffer, Uint8Array from a worker, or text in an untyped SQLite column) as base64. */
export function bytesToBase64(raw: unknown): string {
  if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
  return Buffer.from(String(raw), 'utf8').toString('base64')
}
