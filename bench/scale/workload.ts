// The harness's client side: a mixed read/write workload through the load balancer that checks every
// read-your-writes read, and the singleton and content-version races of spec/reliability/races.spec.ts.

export interface Tally {
  requests: number
  errors: number
  /** A read sent with `Items-Consistency: strong` right after the client's own write did not show that write. */
  ryw: number
  /** A plain read right after a write did not show it yet: replica lag, allowed, counted for the record. */
  stale: number
  /** Kinds of errors seen, with a sample each. */
  samples: Record<string, number>
}

const STRONG = { 'Items-Consistency': 'strong' }

export const newTally = (): Tally => ({ requests: 0, errors: 0, ryw: 0, stale: 0, samples: {} })

async function call(base: string, tally: Tally, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  tally.requests++
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const text = await response.text()
    const json = text ? (JSON.parse(text) as { data?: Record<string, unknown>; errors?: { extensions?: { code?: string } }[] }) : {}
    return { status: response.status, json }
  } catch (error) {
    return { status: 0, json: { errors: [{ extensions: { code: String((error as Error).message) } }] } }
  }
}

function expectStatus(
  tally: Tally,
  what: string,
  result: { status: number; json: { errors?: { extensions?: { code?: string } }[] } },
  ok: number[],
): boolean {
  if (ok.includes(result.status)) return true
  tally.errors++
  const key = `${what} ${result.status} ${result.json.errors?.[0]?.extensions?.code ?? ''}`
  tally.samples[key] = (tally.samples[key] ?? 0) + 1
  return false
}

const pick = (max: number): number => 1 + Math.floor(Math.random() * max)

/** One client's loop until `until`: reads, writes and write-then-read checks, mixed. */
async function client(base: string, until: number, tally: Tally, articles: number): Promise<void> {
  while (Date.now() < until) {
    const roll = Math.random()
    if (roll < 0.5) {
      expectStatus(
        tally,
        'list',
        await call(base, tally, 'GET', '/items/articles?fields=id,title,author.name&sort=-rating&limit=10'),
        [200],
      )
    } else if (roll < 0.65) {
      expectStatus(tally, 'read', await call(base, tally, 'GET', `/items/articles/${pick(articles)}?fields=id,title,comments.body`), [200])
    } else if (roll < 0.85) {
      const body = `comment ${Math.random()}`
      const created = await call(base, tally, 'POST', '/items/comments', { article: pick(articles), body })
      if (!expectStatus(tally, 'create', created, [200])) continue
      if (created.json.data?.body !== body) tally.ryw++
      const id = created.json.data?.id as number
      const plain = await call(base, tally, 'GET', `/items/comments/${id}`)
      if (plain.status === 404) tally.stale++
      else expectStatus(tally, 'plain read', plain, [200])
      const own = await call(base, tally, 'GET', `/items/comments/${id}`, undefined, STRONG)
      if (own.status !== 200 || own.json.data?.body !== body) tally.ryw++
      const edited = `${body} edited`
      const patched = await call(base, tally, 'PATCH', `/items/comments/${id}`, { body: edited })
      if (!expectStatus(tally, 'update', patched, [200])) continue
      if (patched.json.data?.body !== edited) tally.ryw++
      const again = await call(base, tally, 'GET', `/items/comments/${id}`, undefined, STRONG)
      if (again.json.data?.body !== edited) tally.ryw++
    } else {
      // A few hot rows: writers of different processes (and Galera nodes) collide on them.
      expectStatus(tally, 'hot update', await call(base, tally, 'PATCH', `/items/articles/${pick(3)}`, { rating: pick(5) }), [200])
    }
  }
}

export async function mixedWorkload(
  base: string,
  clients: number,
  seconds: number,
  articles: number,
): Promise<Tally & { seconds: number }> {
  const tally = newTally()
  const started = Date.now()
  await Promise.all(Array.from({ length: clients }, () => client(base, started + seconds * 1000, tally, articles)))
  return { ...tally, seconds: (Date.now() - started) / 1000 }
}

export interface RaceResult {
  readonly name: string
  readonly rounds: number
  readonly failures: string[]
}

/** Concurrent PATCHes of a singleton with no row yet, spread over every process: exactly one row. */
export async function singletonRace(
  base: string,
  tally: Tally,
  rowsNow: () => Promise<number>,
  clear: () => Promise<void>,
  rounds = 5,
  name = 'singleton: concurrent first PATCHes make one row',
): Promise<RaceResult> {
  const failures: string[] = []
  for (let round = 0; round < rounds; round++) {
    await clear()
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call(base, tally, 'PATCH', index % 2 ? '/items/settings' : '/items/settings/singleton', { site_name: `site ${index}` }),
      ),
    )
    const bad = answers.filter((answer) => !expectStatus(tally, 'singleton', answer, [200]))
    const rows = await rowsNow()
    const ids = new Set(answers.map((answer) => answer.json.data?.id))
    if (bad.length > 0 || rows !== 1 || ids.size !== 1) failures.push(`round ${round}: ${bad.length} failed, ${rows} rows, ${ids.size} ids`)
  }
  return { name, rounds, failures }
}

/** Two promotes with the same mainHash through different processes: exactly one wins; concurrent saves lose nothing. */
export async function versionRace(base: string, tally: Tally, item: number, rounds = 5): Promise<RaceResult> {
  const failures: string[] = []
  for (let round = 0; round < rounds; round++) {
    const drafts = []
    for (const who of ['A', 'B']) {
      const created = await call(base, tally, 'POST', '/versions', {
        key: `race-${round}-${who}-${Math.random()}`,
        collection: 'articles',
        item,
      })
      if (!expectStatus(tally, 'version create', created, [200])) continue
      const id = created.json.data?.id as number
      // Saves of different fields at once, on different processes: the delta must hold both.
      const saves = await Promise.all([
        call(base, tally, 'POST', `/versions/${id}/save`, { title: `From ${who} ${round}` }),
        call(base, tally, 'POST', `/versions/${id}/save`, { rating: round }),
      ])
      saves.forEach((save) => expectStatus(tally, 'version save', save, [200]))
      const compared = await call(base, tally, 'GET', `/versions/${id}/compare`, undefined, STRONG)
      const current = compared.json.data?.current as Record<string, unknown> | undefined
      if (current?.title !== `From ${who} ${round}` || current.rating !== round)
        failures.push(`round ${round}: a concurrent save was lost (${JSON.stringify(current)})`)
      drafts.push({ id, mainHash: compared.json.data?.mainHash })
    }
    if (drafts.length !== 2) continue
    const promoted = await Promise.all(
      drafts.map((draft) => call(base, tally, 'POST', `/versions/${draft.id}/promote`, { mainHash: draft.mainHash })),
    )
    const statuses = promoted.map((answer) => answer.status).sort()
    if (statuses[0] !== 200 || statuses[1] !== 422) failures.push(`round ${round}: promotes answered ${statuses.join(', ')}`)
  }
  return { name: 'versions: concurrent saves merge, one of two promotes wins', rounds, failures }
}
