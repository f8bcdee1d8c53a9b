// A property of nested writes, on every dialect: a random nested payload (a team created or updated with its
// players, their skills through the junction, and its tasks, in the basic or the detailed form) sent through the
// router leaves the same rows as the same changes applied one by one through plain knex statements, written here
// from the rules in docs/guide/writes.md. Rows are compared by their (unique) names, since the keys of created rows
// depend on the order of inserts. On failure fast-check prints the seed: PROPERTY_SEED=<seed> replays it.
import type { Express } from 'express'
import fc from 'fast-check'
import type { Knex } from 'knex'
import request from 'supertest'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { expectWrittenAsBySql } from '../support/write-checks'
import { collections, createTables, dropTables, seed, T } from '../support/nested-fixtures'

const RUNS = Number(process.env.PROPERTY_RUNS ?? 20)
const SEED = process.env.PROPERTY_SEED === undefined ? undefined : Number(process.env.PROPERTY_SEED)

/** The seed's children by team (see nested-fixtures.ts): what a detailed `delete` may name. */
const PLAYERS_OF: Record<number, number[]> = { 1: [1, 2], 2: [3] }
const TASKS_OF: Record<number, number[]> = { 1: [1, 2], 2: [3] }

// ------------------------------------------------------------------------------------------------------------
// The generated shape of a write; names are given when the payload is built, so that every one is unique.

type SkillRef = 1 | 2 | 'new'
interface NewPlayer {
  readonly number: number | null
  readonly skills: readonly SkillRef[] | null
}
interface ExistingPlayer {
  readonly key: number
  readonly rename: boolean
  readonly skills: readonly SkillRef[] | null
}
type PlayersShape =
  | { readonly form: 'basic'; readonly existing: readonly ExistingPlayer[]; readonly created: readonly NewPlayer[] }
  | {
      readonly form: 'detailed'
      readonly created: readonly NewPlayer[]
      readonly updated: readonly ExistingPlayer[]
      readonly deleted: readonly number[]
    }
type TasksShape =
  | { readonly form: 'basic'; readonly kept: readonly number[]; readonly created: number }
  | { readonly form: 'detailed'; readonly created: number; readonly deleted: readonly number[] }
interface WriteShape {
  /** null: a new team (POST); else the team updated (PATCH). */
  readonly team: 1 | 2 | null
  readonly rename: boolean
  readonly players: PlayersShape | null
  readonly tasks: TasksShape | null
}

const skillRefs = fc.option(fc.uniqueArray(fc.constantFrom<SkillRef>(1, 2, 'new'), { maxLength: 2 }), { nil: null })
const newPlayer: fc.Arbitrary<NewPlayer> = fc.record({
  number: fc.option(fc.integer({ min: 0, max: 99 }), { nil: null }),
  skills: skillRefs,
})
const existingPlayer = (renamed: boolean): fc.Arbitrary<ExistingPlayer> =>
  fc.record({ key: fc.constantFrom(1, 2, 3, 4), rename: renamed ? fc.constant(true) : fc.boolean(), skills: skillRefs })
const existingPlayers = (renamed: boolean) => fc.uniqueArray(existingPlayer(renamed), { selector: (player) => player.key, maxLength: 3 })

const players = (team: 1 | 2 | null): fc.Arbitrary<PlayersShape> =>
  fc.oneof(
    fc.record({ form: fc.constant('basic' as const), existing: existingPlayers(false), created: fc.array(newPlayer, { maxLength: 3 }) }),
    fc
      .record({
        form: fc.constant('detailed' as const),
        created: fc.array(newPlayer, { maxLength: 3 }),
        updated: existingPlayers(true),
        deleted: fc.subarray(team === null ? [] : PLAYERS_OF[team]!),
      })
      // A child both updated and deleted says two things at once: the generator keeps to one.
      .map((shape) => ({ ...shape, deleted: shape.deleted.filter((key) => !shape.updated.some((player) => player.key === key)) })),
  )

const tasks = (team: 1 | 2 | null): fc.Arbitrary<TasksShape> =>
  fc.oneof(
    fc.record({ form: fc.constant('basic' as const), kept: fc.subarray([1, 2, 3]), created: fc.nat({ max: 2 }) }),
    fc.record({
      form: fc.constant('detailed' as const),
      created: fc.nat({ max: 2 }),
      deleted: fc.subarray(team === null ? [] : TASKS_OF[team]!),
    }),
  )

const writeShape: fc.Arbitrary<WriteShape> = fc.constantFrom<1 | 2 | null>(1, 2, null).chain((team) =>
  fc.record({
    team: fc.constant(team),
    // A new team needs its name.
    rename: team === null ? fc.constant(true) : fc.boolean(),
    players: fc.option(players(team), { nil: null }),
    tasks: fc.option(tasks(team), { nil: null }),
  }),
)

// ------------------------------------------------------------------------------------------------------------
// The write as a payload, and as plain statements.

/** Unique names, the same for the payload and the statements of one write. */
function namer(): (prefix: string) => string {
  let next = 0
  return (prefix) => `${prefix}${++next}`
}

interface Named {
  readonly teamName: string | null
  readonly players: {
    readonly shape: ExistingPlayer | NewPlayer
    readonly name: string | null
    readonly skillNames: readonly (string | null)[]
  }[]
  readonly taskTitles: readonly string[]
}

/** Gives every created or renamed row its name, in payload order. */
function nameAll(shape: WriteShape): Named {
  const name = namer()
  const skillNames = (skills: readonly SkillRef[] | null): (string | null)[] =>
    (skills ?? []).map((skill) => (skill === 'new' ? name('skill-') : null))
  const playerShapes: (ExistingPlayer | NewPlayer)[] =
    shape.players === null
      ? []
      : shape.players.form === 'basic'
        ? [...shape.players.existing, ...shape.players.created]
        : [...shape.players.created, ...shape.players.updated]
  const taskCount = shape.tasks?.created ?? 0
  return {
    teamName: shape.rename ? name('team-') : null,
    players: playerShapes.map((player) => ({
      shape: player,
      name: 'key' in player && !player.rename ? null : name('player-'),
      skillNames: skillNames(player.skills),
    })),
    taskTitles: Array.from({ length: taskCount }, () => name('task-')),
  }
}

function skillsPayload(skills: readonly SkillRef[] | null, names: readonly (string | null)[]): unknown {
  return (skills ?? []).map((skill, index) => ({ skill: skill === 'new' ? { name: names[index] } : skill }))
}

function payloadOf(shape: WriteShape, named: Named): Record<string, unknown> {
  const payload: Record<string, unknown> = {}
  if (named.teamName !== null) payload.name = named.teamName
  const playerItem = ({ shape: player, name, skillNames }: Named['players'][number]): unknown => {
    const item: Record<string, unknown> = {}
    if ('key' in player) item.id = player.key
    if (name !== null) item.name = name
    if (!('key' in player) && player.number !== null) item.number = player.number
    if (player.skills !== null) item.skills = skillsPayload(player.skills, skillNames)
    // An existing player with nothing to change is named by its key alone.
    return 'key' in player && Object.keys(item).length === 1 ? player.key : item
  }
  if (shape.players?.form === 'basic') payload.players = named.players.map(playerItem)
  if (shape.players?.form === 'detailed') {
    const created = named.players.filter((player) => !('key' in player.shape))
    const updated = named.players.filter((player) => 'key' in player.shape)
    payload.players = { create: created.map(playerItem), update: updated.map(playerItem), delete: shape.players.deleted }
  }
  const newTasks = named.taskTitles.map((title) => ({ title }))
  if (shape.tasks?.form === 'basic') payload.tasks = [...shape.tasks.kept, ...newTasks]
  if (shape.tasks?.form === 'detailed') payload.tasks = { create: newTasks, delete: shape.tasks.deleted }
  return payload
}

const insertedKey = async (knex: Knex, table: string, row: Record<string, unknown>): Promise<number> => {
  const [inserted] = await knex(table).insert(row, ['id'])
  return Number(typeof inserted === 'object' ? (inserted as { id: number }).id : inserted)
}

/** The same write as plain statements, one change at a time, as the documented rules say. */
async function applyBySql(knex: Knex, shape: WriteShape, named: Named): Promise<void> {
  const team = shape.team ?? (await insertedKey(knex, T.teams, { name: named.teamName }))
  if (shape.team !== null && named.teamName !== null) await knex(T.teams).where({ id: team }).update({ name: named.teamName })
  const listed: number[] = []
  for (const { shape: player, name, skillNames } of named.players) {
    let key: number
    if ('key' in player) {
      key = player.key
      // Updated or attached: it now belongs to the team.
      await knex(T.players)
        .where({ id: key })
        .update({ team, ...(name === null ? {} : { name }) })
    } else key = await insertedKey(knex, T.players, { name, number: player.number, team })
    listed.push(key)
    if (player.skills === null) continue
    // A basic list of junction rows is the player's whole new set: its other junction rows go.
    await knex(T.junction).where({ player: key }).delete()
    for (const [index, skill] of player.skills.entries()) {
      const skillKey = skill === 'new' ? await insertedKey(knex, T.skills, { name: skillNames[index] }) : skill
      await insertedKey(knex, T.junction, { player: key, skill: skillKey })
    }
  }
  if (shape.players?.form === 'basic') await knex(T.players).where({ team }).whereNotIn('id', listed).update({ team: null })
  if (shape.players?.form === 'detailed' && shape.players.deleted.length > 0) {
    await knex(T.players).where({ team }).whereIn('id', shape.players.deleted).update({ team: null })
  }
  const tasksListed: number[] = []
  if (shape.tasks?.form === 'basic') {
    for (const key of shape.tasks.kept) {
      await knex(T.tasks).where({ id: key }).update({ team })
      tasksListed.push(key)
    }
  }
  for (const title of named.taskTitles) tasksListed.push(await insertedKey(knex, T.tasks, { title, team }))
  // Tasks cannot be without a team: a detached task is deleted.
  if (shape.tasks?.form === 'basic') await knex(T.tasks).where({ team }).whereNotIn('id', tasksListed).delete()
  if (shape.tasks?.form === 'detailed' && shape.tasks.deleted.length > 0) {
    await knex(T.tasks).where({ team }).whereIn('id', shape.tasks.deleted).delete()
  }
}

/** Every row, with keys replaced by the names they point at, sorted: comparable whatever keys were assigned. */
async function contents(knex: Knex): Promise<Record<string, unknown[]>> {
  const byId = async (table: string, column: string): Promise<Map<number, string>> =>
    new Map(((await knex(table).select('id', column)) as Record<string, unknown>[]).map((row) => [Number(row.id), String(row[column])]))
  const teams = await byId(T.teams, 'name')
  const playerNames = await byId(T.players, 'name')
  const skills = await byId(T.skills, 'name')
  const teamOf = (value: unknown): string | null => (value === null ? null : teams.get(Number(value))!)
  const sorted = (rows: unknown[]): unknown[] => rows.map((row) => JSON.stringify(row)).sort()
  return {
    teams: sorted([...teams.values()]),
    skills: sorted([...skills.values()]),
    players: sorted(
      ((await knex(T.players).select('name', 'number', 'team')) as Record<string, unknown>[]).map((row) => [
        row.name,
        row.number === null ? null : Number(row.number),
        teamOf(row.team),
      ]),
    ),
    tasks: sorted(((await knex(T.tasks).select('title', 'team')) as Record<string, unknown>[]).map((row) => [row.title, teamOf(row.team)])),
    junction: sorted(
      ((await knex(T.junction).select('player', 'skill')) as Record<string, unknown>[]).map((row) => [
        playerNames.get(Number(row.player)),
        skills.get(Number(row.skill)),
      ]),
    ),
  }
}

forEachDialect((ctx) => {
  describe(`${ctx.name}: nested writes as a property`, () => {
    let app: Express
    beforeAll(async () => {
      await createTables(ctx.knex)
      app = createApp(ctx.knex, { collections })
    })
    afterAll(() => dropTables(ctx.knex))

    it('a random nested write leaves the rows its changes leave when made one by one in SQL', async () => {
      await fc.assert(
        fc.asyncProperty(writeShape, async (shape) => {
          const named = nameAll(shape)
          const payload = payloadOf(shape, named)
          await expectWrittenAsBySql(
            ctx.knex,
            { seed, contents },
            {
              payload,
              send: () =>
                shape.team === null
                  ? request(app).post('/api/items/teams').send(payload)
                  : request(app).patch(`/api/items/teams/${shape.team}`).send(payload),
              bySql: (trx) => applyBySql(trx, shape, named),
            },
          )
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      )
    }, 120_000)
  })
})
