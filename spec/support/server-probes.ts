// Test support: tells the router's questions about a server from the statements of a request.

/**
 * What a router asks each server once, in its ready gate before its first request (Dialect.serverTraits): MySQL
 * which server it is, PostgreSQL which tables have rules, SQLite which tables have triggers (ServerTraits.readsBack).
 * Not a statement of the request that happened to open the gate.
 */
export const isServerProbe = (sql: string): boolean =>
  /select version\(\)|from pg_rewrite|from sqlite_master where type = 'trigger'/.test(sql)
