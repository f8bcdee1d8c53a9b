// Test support: tables keyed by several columns, in each database's own DDL, the way databases not designed for an
// ORM key them: a junction keyed by its two foreign keys (`film_actor`), a table keyed by two text columns whose
// values hold the key form's separator (`page`), and a table whose foreign key is composite (`film_note`, left out
// of the relations and reported). The rows are inserted by plain SQL, as an owner's would be.
import type { Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'
import { openSchema } from '../support/databases'

/** In the order they are dropped; the router's versions table (created by the spec's router) too. */
const TABLES = ['film_note', 'film_actor', 'page', 'actor', 'film', 'items_versions'] as const

const SQLITE = [
  'create table actor (actor_id integer primary key autoincrement, name varchar(45) not null)',
  'create table film (film_id integer primary key autoincrement, title varchar(255) not null)',
  `create table film_actor (
    actor_id integer not null references actor (actor_id) on delete cascade,
    film_id integer not null references film (film_id) on delete cascade,
    credited_as varchar(45),
    primary key (actor_id, film_id)
  )`,
  'create table page (lang varchar(8) not null, slug varchar(100) not null, title text not null, primary key (lang, slug))',
  `create table film_note (
    note_id integer primary key autoincrement,
    actor_id integer not null,
    film_id integer not null,
    body text,
    foreign key (actor_id, film_id) references film_actor (actor_id, film_id)
  )`,
]

const POSTGRES = [
  'drop schema if exists keyed cascade',
  'create schema keyed',
  'create table keyed.actor (actor_id serial primary key, name varchar(45) not null)',
  'create table keyed.film (film_id serial primary key, title varchar(255) not null)',
  `create table keyed.film_actor (
    actor_id integer not null references keyed.actor (actor_id) on delete cascade,
    film_id integer not null references keyed.film (film_id) on delete cascade,
    credited_as varchar(45),
    primary key (actor_id, film_id)
  )`,
  'create table keyed.page (lang varchar(8), slug varchar(100), title text not null, primary key (lang, slug))',
  `create table keyed.film_note (
    note_id serial primary key,
    actor_id integer not null,
    film_id integer not null,
    body text,
    foreign key (actor_id, film_id) references keyed.film_actor (actor_id, film_id)
  )`,
]

const MYSQL = [
  'create table actor (actor_id smallint unsigned auto_increment primary key, name varchar(45) not null)',
  'create table film (film_id smallint unsigned auto_increment primary key, title varchar(255) not null)',
  `create table film_actor (
    actor_id smallint unsigned not null,
    film_id smallint unsigned not null,
    credited_as varchar(45),
    primary key (actor_id, film_id),
    key idx_fk_film_id (film_id),
    constraint fk_film_actor_actor foreign key (actor_id) references actor (actor_id) on delete cascade,
    constraint fk_film_actor_film foreign key (film_id) references film (film_id) on delete cascade
  )`,
  // MySQL compares text keys without case by default; the router's exact comparison keeps `EN` apart from `en`.
  'create table page (lang varchar(8) not null, slug varchar(100) not null, title text not null, primary key (lang, slug))',
  `create table film_note (
    note_id int auto_increment primary key,
    actor_id smallint unsigned not null,
    film_id smallint unsigned not null,
    body text,
    constraint fk_note_credit foreign key (actor_id, film_id) references film_actor (actor_id, film_id)
  )`,
]

const DDL: Readonly<Record<DialectName, readonly string[]>> = { postgres: POSTGRES, mysql: MYSQL, sqlite: SQLITE }

export const ACTORS = ['Penelope Guiness', 'Nick Wahlberg', 'Ed Chase', 'Jennifer Davis'] as const
export const FILMS = ['Academy Dinosaur', 'Ace Goldfinger', 'Adaptation Holes', 'Affair Prejudice'] as const
/** [actor_id, film_id, credited_as], in no particular order. */
export const CREDITS = [
  [1, 1, 'Lead'],
  [3, 2, null],
  [1, 3, 'Cameo'],
  [2, 1, null],
  [4, 3, 'Narrator'],
  [2, 3, null],
  [3, 1, 'Lead'],
  [1, 4, null],
] as const
/** Slugs holding the key form's separator and the percent sign. */
export const PAGES = [
  ['en', 'about', 'About us'],
  ['en', 'news,2024', 'News of 2024'],
  ['fr', 'about', 'À propos'],
  ['fr', '100%', 'Cent pour cent'],
  ['de', 'about', 'Über uns'],
] as const

async function dropKeyedSchema(knex: Knex, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await knex.raw('drop schema if exists keyed cascade')
  else for (const table of TABLES) await knex.schema.dropTableIfExists(table)
}

/** Opens a knex on the keyed schema, created afresh with its rows; `worker` is the suite's own knex. */
export async function openKeyedDatabase(name: DialectName, worker: Knex): Promise<Knex> {
  const knex = await openSchema(name, 'keyed', worker)
  await dropKeyedSchema(knex, name)
  for (const statement of DDL[name]) await knex.raw(statement)
  await knex('actor').insert(ACTORS.map((actor) => ({ name: actor })))
  await knex('film').insert(FILMS.map((title) => ({ title })))
  await knex('film_actor').insert(CREDITS.map(([actor_id, film_id, credited_as]) => ({ actor_id, film_id, credited_as })))
  await knex('page').insert(PAGES.map(([lang, slug, title]) => ({ lang, slug, title })))
  await knex('film_note').insert({ actor_id: 1, film_id: 1, body: 'Shot in one take' })
  return knex
}

export async function closeKeyedDatabase(name: DialectName, knex: Knex | undefined): Promise<void> {
  if (!knex) return
  await dropKeyedSchema(knex, name)
  await knex.destroy()
}
