// Test support: a store's schema in each database's own DDL, the way sample databases written for MySQL and ported
// by hand to PostgreSQL and SQLite are: enums in mixed case ('PG-13'), triggers that write columns (BEFORE triggers
// on PostgreSQL and MySQL, AFTER triggers on SQLite), a PostgreSQL table split by DO INSTEAD rules, an enum made by
// knex's `enu()` (PostgreSQL keeps it as `CHECK (kind = ANY (ARRAY[...]))`), a NOT NULL column of a type the
// router does not serve, and the column types such schemas hold: YEAR (a PostgreSQL domain), SET, BLOB, tsvector,
// and a SQLite view column without a declared type.
import type { Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'

/** In the order they are dropped. */
export const RENTAL_TABLES = ['payment_2007', 'payment', 'film_format', 'film', 'staff'] as const
export const RENTAL_VIEWS = ['film_list'] as const

export const RATINGS = ['G', 'PG', 'PG-13', 'R', 'NC-17'] as const
export const FORMATS = ['Feature', 'Short', 'TV-Movie'] as const

const POSTGRES = [
  'drop schema if exists rental cascade',
  'create schema rental',
  "create type rental.mpaa_rating as enum ('G', 'PG', 'PG-13', 'R', 'NC-17')",
  'create domain rental.year as integer check (value >= 1901 and value <= 2155)',
  `create table rental.film (
    film_id serial primary key,
    title varchar(255) not null,
    sort_title text,
    release_year rental.year,
    rating rental.mpaa_rating default 'G',
    picture bytea,
    last_update timestamptz not null default now(),
    fulltext tsvector not null
  )`,
  `create function rental.film_touch() returns trigger language plpgsql as $$
  begin
    new.sort_title := lower(new.title);
    new.last_update := now();
    new.fulltext := to_tsvector('simple', new.title);
    return new;
  end $$`,
  'create trigger film_touch before insert or update on rental.film for each row execute function rental.film_touch()',
  // The old way of partitioning: children that inherit, and a rule that sends each row to its child.
  `create table rental.payment (
    payment_id serial primary key,
    amount numeric(5, 2) not null,
    payment_date timestamp not null
  )`,
  "create table rental.payment_2007 (check (payment_date >= '2007-01-01' and payment_date < '2008-01-01')) inherits (rental.payment)",
  `create rule payment_insert_2007 as on insert to rental.payment
    where (new.payment_date >= '2007-01-01' and new.payment_date < '2008-01-01')
    do instead insert into rental.payment_2007 values (new.*)`,
  'create table rental.staff (staff_id serial primary key, name text not null, shift interval not null)',
  'create view rental.film_list as select film_id, title, upper(title) as shout from rental.film',
]

const MYSQL = [
  `create table film (
    film_id int unsigned auto_increment primary key,
    title varchar(255) not null,
    sort_title text,
    release_year year,
    rating enum('G', 'PG', 'PG-13', 'R', 'NC-17') default 'G',
    special_features set('Trailers', 'Commentaries', 'Deleted Scenes', 'Behind the Scenes'),
    picture blob,
    last_update timestamp not null default current_timestamp
  )`,
  'create trigger film_touch_insert before insert on film for each row set new.sort_title = lower(new.title), new.last_update = now()',
  'create trigger film_touch_update before update on film for each row set new.sort_title = lower(new.title), new.last_update = now()',
  `create table payment (
    payment_id int unsigned auto_increment primary key,
    amount decimal(5, 2) not null,
    payment_date datetime not null
  )`,
  'create table staff (staff_id int auto_increment primary key, name text not null, shift bit(8) not null)',
  'create view film_list as select film_id, title, upper(title) as shout from film',
]

const SQLITE = [
  `create table film (
    film_id integer primary key autoincrement,
    title varchar(255) not null,
    sort_title text,
    release_year year,
    rating text default 'G' check (rating in ('G', 'PG', 'PG-13', 'R', 'NC-17')),
    picture blob,
    last_update timestamp not null default current_timestamp
  )`,
  // SQLite's triggers cannot change NEW: the ports write the row again after the statement.
  `create trigger film_touch_insert after insert on film begin
    update film set sort_title = lower(new.title), last_update = datetime('now') where film_id = new.film_id;
  end`,
  `create trigger film_touch_update after update of title on film begin
    update film set sort_title = lower(new.title), last_update = datetime('now') where film_id = new.film_id;
  end`,
  `create table payment (
    payment_id integer primary key autoincrement,
    amount numeric(5, 2) not null,
    payment_date datetime not null
  )`,
  'create table staff (staff_id integer primary key, name text not null, shift money not null)',
  'create view film_list as select film_id, title, upper(title) as shout from film',
]

const DDL: Readonly<Record<DialectName, readonly string[]>> = { postgres: POSTGRES, mysql: MYSQL, sqlite: SQLITE }

/** Drops what an earlier run left and creates the rental schema with its rows. */
export async function createRentalSchema(knex: Knex, dialect: DialectName): Promise<void> {
  await dropRentalSchema(knex, dialect)
  for (const statement of DDL[dialect]) await knex.raw(statement)
  // Made as a knex migration would: on PostgreSQL and SQLite `enu()` is a text column with a CHECK.
  await knex.schema.createTable('film_format', (table) => {
    table.increments('id')
    table.string('name', 50).notNullable()
    table.enu('kind', [...FORMATS]).notNullable()
  })
  await knex('film').insert([
    { title: 'Academy Dinosaur', rating: 'PG', release_year: 2006 },
    { title: 'Ace Goldfinger', rating: 'G', release_year: 2006 },
    { title: 'Adaptation Holes', rating: 'NC-17', release_year: 2004 },
    { title: 'Affair Prejudice', rating: 'PG-13', release_year: null },
    { title: 'African Egg', rating: 'PG-13', release_year: 2010 },
  ])
  await knex('film_format').insert([
    { name: 'cinema', kind: 'Feature' },
    { name: 'festival', kind: 'Short' },
  ])
  await knex('payment').insert([
    { amount: '2.99', payment_date: '2007-02-15 22:25:46' },
    { amount: '0.99', payment_date: '2006-05-28 10:35:23' },
  ])
}

export async function dropRentalSchema(knex: Knex, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await knex.raw('drop schema if exists rental cascade')
    return
  }
  for (const view of RENTAL_VIEWS) await knex.raw('drop view if exists ??', [view])
  for (const table of RENTAL_TABLES) await knex.schema.dropTableIfExists(table)
}
