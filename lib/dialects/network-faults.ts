// Socket error codes Node sets on a driver's error when the database cannot be reached or the connection
// breaks; pg and mysql2 both pass them through unchanged.
const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

export const isNetworkError = (code: unknown): boolean => typeof code === 'string' && NETWORK_CODES.has(code)
