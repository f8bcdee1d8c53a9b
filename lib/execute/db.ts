// What the router's statements run on: the host's knex, or a transaction (knex's or a bare one, bare-transaction.ts).
import type { Knex } from 'knex'

export type Db = Knex | Knex.Transaction
