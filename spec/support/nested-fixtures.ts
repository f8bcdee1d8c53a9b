// Test support: the nested-writes schema (teams with players and tasks, players with skills through a junction,
// a league singleton), its tables and its seed, shared by the nested-writes, nested-versions and property specs.
import type { Knex } from 'knex'
import type { CollectionDefinition } from '../../lib'
import { dialectOf } from '../../lib/dialects'

export const T = {
  teams: 'nw_teams',
  players: 'nw_players',
  tasks: 'nw_tasks',
  skills: 'nw_skills',
  junction: 'nw_players_skills',
  league: 'nw_league',
}

export const collections = {
  teams: {
    table: T.teams,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string', nullable: false, maxLength: 50 },
      players: { type: 'o2m', collection: 'players', foreignKey: 'team' },
      tasks: { type: 'o2m', collection: 'tasks', foreignKey: 'team' },
    },
  },
  players: {
    table: T.players,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string', nullable: false, maxLength: 50 },
      number: { type: 'integer' },
      secret: { type: 'string', hidden: true },
      team: { type: 'integer', references: 'teams' },
      skills: { type: 'o2m', collection: 'players_skills', foreignKey: 'player' },
    },
  },
  tasks: {
    table: T.tasks,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      title: { type: 'string', nullable: false, maxLength: 50 },
      team: { type: 'integer', references: 'teams', nullable: false },
    },
  },
  skills: {
    table: T.skills,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string', nullable: false, maxLength: 50, unique: true },
    },
  },
  players_skills: {
    table: T.junction,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      player: { type: 'integer', references: 'players', nullable: false },
      skill: { type: 'integer', references: 'skills', nullable: false },
    },
  },
  league: {
    table: T.league,
    singleton: true,
    fields: {
      id: { type: 'integer', primaryKey: true, autoIncrement: true },
      name: { type: 'string' },
      champion: { type: 'integer', references: 'teams' },
    },
  },
} satisfies Record<string, CollectionDefinition>

export async function createTables(knex: Knex): Promise<void> {
  await dropTables(knex)
  await knex.schema.createTable(T.teams, (table) => {
    table.increments('id')
    table.string('name', 50).notNullable()
  })
  await knex.schema.createTable(T.players, (table) => {
    table.increments('id')
    table.string('name', 50).notNullable()
    table.integer('number')
    table.string('secret', 50)
    table.integer('team').unsigned().references('id').inTable(T.teams)
  })
  await knex.schema.createTable(T.tasks, (table) => {
    table.increments('id')
    table.string('title', 50).notNullable()
    table.integer('team').unsigned().notNullable().references('id').inTable(T.teams)
  })
  await knex.schema.createTable(T.skills, (table) => {
    table.increments('id')
    table.string('name', 50).notNullable().unique()
  })
  await knex.schema.createTable(T.junction, (table) => {
    table.increments('id')
    table.integer('player').unsigned().notNullable().references('id').inTable(T.players)
    table.integer('skill').unsigned().notNullable().references('id').inTable(T.skills)
  })
  await knex.schema.createTable(T.league, (table) => {
    table.increments('id')
    table.string('name', 50)
    table.integer('champion').unsigned().references('id').inTable(T.teams)
  })
}

export async function dropTables(knex: Knex): Promise<void> {
  for (const table of [T.league, T.junction, T.skills, T.tasks, T.players, T.teams]) await knex.schema.dropTableIfExists(table)
}

/** Every row of every table, by table, in key order: what a refused write must leave as it was. */
export async function snapshot(knex: Knex): Promise<Record<string, unknown[]>> {
  const rows: Record<string, unknown[]> = {}
  for (const [name, table] of Object.entries(T)) rows[name] = await knex(table).select('*').orderBy('id')
  return rows
}

/** Teams 1 (Red: players 1 Ann, 2 Bob; tasks 1, 2) and 2 (Blue: player 3 Cid; task 3); player 4 Dee without a team; skills 1 speed, 2 stamina. */
export async function seed(knex: Knex): Promise<void> {
  for (const table of [T.league, T.junction, T.skills, T.tasks, T.players, T.teams]) await knex(table).delete()
  await knex(T.teams).insert([
    { id: 1, name: 'Red' },
    { id: 2, name: 'Blue' },
  ])
  await knex(T.players).insert([
    { id: 1, name: 'Ann', number: 7, team: 1, secret: 's1' },
    { id: 2, name: 'Bob', number: 9, team: 1, secret: 's2' },
    { id: 3, name: 'Cid', number: 4, team: 2, secret: 's3' },
    { id: 4, name: 'Dee', number: null, team: null, secret: 's4' },
  ])
  await knex(T.tasks).insert([
    { id: 1, title: 'Wash kit', team: 1 },
    { id: 2, title: 'Book pitch', team: 1 },
    { id: 3, title: 'Pump balls', team: 2 },
  ])
  await knex(T.skills).insert([
    { id: 1, name: 'speed' },
    { id: 2, name: 'stamina' },
  ])
  await knex(T.junction).insert([{ id: 1, player: 1, skill: 1 }])
  // PostgreSQL's sequences do not see explicit keys (see Dialect.syncAutoIncrement): each moves past its table's
  // largest key.
  const sync = dialectOf(knex).syncAutoIncrement
  if (sync) for (const table of Object.values(T)) await sync(knex, table, 'id', '1')
}
