// Test support: a schema as other code would have left it, in each database's own DDL (not fixtures/tables.ts):
// PascalCase and snake_case names, uuid and bigint keys, a composite key, a table without a key, a self
// reference, two keys to one table, numeric with scale, enums, CHECKs, identity and generated columns, a view,
// and PostgreSQL arrays. SQLite's dates are written as other code writes them: knex's JS Dates and CURRENT_TIMESTAMP.
import type { Knex } from 'knex'
import type { DialectName } from '../../lib/dialects'

export const LEGACY_TABLES = ['published_posts', 'post_tags', 'audit_log', 'BlogPost', 'categories', 'Author'] as const

const POSTGRES = [
  'drop schema if exists legacy cascade',
  'create schema legacy',
  "create type legacy.post_status as enum ('draft', 'published', 'archived')",
  `create table legacy."Author" (
    "AuthorId" uuid primary key default gen_random_uuid(),
    "DisplayName" varchar(100) not null,
    email text unique,
    created_at timestamptz not null default now()
  )`,
  `create table legacy.categories (
    id bigint generated always as identity primary key,
    name text not null,
    parent_id bigint references legacy.categories (id) on delete set null
  )`,
  `create table legacy."BlogPost" (
    "PostId" bigserial primary key,
    title varchar(200) not null,
    status legacy.post_status not null default 'draft',
    price numeric(10, 2) check (price >= 0),
    rating integer check (rating between 1 and 5),
    tags text[] not null default '{}',
    published_at timestamptz,
    author_id uuid not null references legacy."Author" ("AuthorId") on delete cascade,
    reviewer_id uuid references legacy."Author" ("AuthorId") on delete set null,
    category_id bigint references legacy.categories (id),
    word_count integer generated always as (length(title)) stored
  )`,
  `create table legacy.post_tags (
    post_id bigint not null references legacy."BlogPost" ("PostId"),
    tag text not null,
    primary key (post_id, tag)
  )`,
  'create table legacy.audit_log (message text, at timestamptz default now())',
  `create view legacy.published_posts as select "PostId", title, price from legacy."BlogPost" where status = 'published'`,
]

const MYSQL = [
  `create table \`Author\` (
    \`AuthorId\` uuid primary key,
    \`DisplayName\` varchar(100) not null,
    email varchar(255) unique,
    created_at timestamp not null default current_timestamp
  )`,
  `create table categories (
    id bigint auto_increment primary key,
    name text not null,
    parent_id bigint,
    foreign key (parent_id) references categories (id) on delete set null
  )`,
  `create table \`BlogPost\` (
    \`PostId\` bigint auto_increment primary key,
    title varchar(200) not null,
    status enum('draft', 'published', 'archived') not null default 'draft',
    price decimal(10, 2) check (price >= 0),
    rating int check (rating between 1 and 5),
    tags json,
    published_at timestamp null,
    author_id uuid not null,
    reviewer_id uuid,
    category_id bigint,
    word_count int as (char_length(title)) persistent,
    foreign key (author_id) references \`Author\` (\`AuthorId\`) on delete cascade,
    foreign key (reviewer_id) references \`Author\` (\`AuthorId\`) on delete set null,
    foreign key (category_id) references categories (id)
  )`,
  `create table post_tags (
    post_id bigint not null,
    tag varchar(50) not null,
    primary key (post_id, tag),
    foreign key (post_id) references \`BlogPost\` (\`PostId\`)
  )`,
  'create table audit_log (message text, at timestamp null)',
  "create view published_posts as select `PostId`, title, price from `BlogPost` where status = 'published'",
]

const SQLITE = [
  `create table "Author" (
    "AuthorId" uuid primary key not null,
    "DisplayName" varchar(100) not null,
    email text unique,
    created_at datetime not null default CURRENT_TIMESTAMP
  )`,
  `create table categories (
    id integer primary key autoincrement,
    name text not null,
    parent_id integer references categories (id) on delete set null
  )`,
  `create table "BlogPost" (
    "PostId" integer primary key,
    title varchar(200) not null,
    status text not null default 'draft' check (status in ('draft', 'published', 'archived')),
    price numeric(10, 2) check (price >= 0),
    rating integer check (rating between 1 and 5),
    tags json check (json_valid(tags)),
    published_at timestamp,
    author_id uuid not null references "Author" ("AuthorId") on delete cascade,
    reviewer_id uuid references "Author" ("AuthorId") on delete set null,
    category_id integer references categories (id),
    word_count integer generated always as (length(title)) stored
  )`,
  `create table post_tags (
    post_id integer not null references "BlogPost" ("PostId"),
    tag text not null,
    primary key (post_id, tag)
  )`,
  'create table audit_log (message text, at datetime default CURRENT_TIMESTAMP)',
  `create view published_posts as select "PostId", title, price from "BlogPost" where status = 'published'`,
]

const DDL: Readonly<Record<DialectName, readonly string[]>> = { postgres: POSTGRES, mysql: MYSQL, sqlite: SQLITE }

export const ADA = '6f1c1d5e-8a43-4c57-9a53-1d1f0b0a0001'
export const GRACE = '6f1c1d5e-8a43-4c57-9a53-1d1f0b0a0002'

/** Drops what an earlier run left and creates the legacy schema with its rows. */
export async function createLegacySchema(knex: Knex, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') {
    await knex.raw('drop view if exists published_posts')
    for (const table of LEGACY_TABLES.slice(1)) await knex.schema.dropTableIfExists(table)
  }
  for (const statement of DDL[dialect]) await knex.raw(statement)
  await knex('Author').insert([
    { AuthorId: ADA, DisplayName: 'Ada Lovelace', email: 'ada@example.com' },
    { AuthorId: GRACE, DisplayName: 'Grace Hopper', email: null },
  ])
  await knex('categories').insert([{ name: 'Science' }])
  await knex('categories').insert([
    { name: 'Physics', parent_id: 1 },
    { name: 'Biology', parent_id: 1 },
  ])
  const tags = (list: string[]): unknown => (dialect === 'postgres' ? list : JSON.stringify(list))
  // On SQLite knex stores JS Dates as epoch milliseconds, as it would for any host code. mysql2 would write a Date
  // in the process's zone, so MySQL gets the UTC wall clock its TIMESTAMP (read in a UTC session) stands for.
  const at = (iso: string): unknown => (dialect === 'mysql' ? iso.slice(0, 19).replace('T', ' ') : new Date(iso))
  await knex('BlogPost').insert([
    {
      title: 'Engines',
      status: 'published',
      price: '12.50',
      rating: 5,
      tags: tags(['math', 'history']),
      published_at: at('2025-06-01T08:00:00Z'),
      author_id: ADA,
      category_id: 1,
    },
    {
      title: 'Compilers',
      status: 'published',
      price: '9.99',
      rating: 4,
      tags: tags(['code']),
      published_at: at('2025-07-15T12:30:00Z'),
      author_id: GRACE,
      reviewer_id: ADA,
      category_id: 2,
    },
    { title: 'Notes', status: 'draft', price: null, rating: null, tags: tags([]), published_at: null, author_id: ADA, reviewer_id: GRACE },
  ])
  await knex('post_tags').insert([{ post_id: 1, tag: 'math' }])
  await knex('audit_log').insert([{ message: 'created' }])
}

export async function dropLegacySchema(knex: Knex, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') {
    await knex.raw('drop schema if exists legacy cascade')
    return
  }
  await knex.raw('drop view if exists published_posts')
  for (const table of LEGACY_TABLES.slice(1)) await knex.schema.dropTableIfExists(table)
}
