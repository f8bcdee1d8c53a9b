// The ceiling `npm run bench` measures the router against: for each benchmarked request, the Express + knex handler
// a developer would write by hand for that one request, answering the same JSON (checked before timing). It knows
// its table, its columns and its driver's value types, so it does none of the router's generic work.
import express, { type Request, type Response, type Router } from 'express'
import type { Knex } from 'knex'
import type { DialectName } from '../lib/dialects'

type Row = Record<string, unknown>

const ARTICLE_COLUMNS = ['id', 'title', 'status', 'rating', 'published_at', 'tags', 'author', 'parent'] as const
/** The o2m lists' default bound per parent, as the router applies it. */
const PER_PARENT = 100

const pad = (value: number): string => String(value).padStart(2, '0')

/** A driver's Date for a zone-less dateTime, as the local date and time it stands for. */
function dateTime(value: unknown): unknown {
  if (!(value instanceof Date)) return typeof value === 'string' ? value.replace(' ', 'T') : value
  return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}T${pad(value.getHours())}:${pad(value.getMinutes())}:${pad(value.getSeconds())}`
}

const json = (value: unknown): unknown => (typeof value === 'string' ? (JSON.parse(value) as unknown) : value)

function article(row: Row): Row {
  return {
    id: row.id,
    title: row.title,
    status: row.status,
    rating: row.rating,
    published_at: dateTime(row.published_at),
    tags: json(row.tags),
    author: row.author,
    parent: row.parent,
  }
}

/** Groups child rows by parent, keeping at most PER_PARENT each (rows come ordered by id). */
function byParent<T>(rows: readonly Row[], parent: string, each: (row: Row) => T): Map<unknown, T[]> {
  const groups = new Map<unknown, T[]>()
  for (const row of rows) {
    const list = groups.get(row[parent]) ?? []
    if (list.length < PER_PARENT) list.push(each(row))
    groups.set(row[parent], list)
  }
  return groups
}

/** The router answers a created item's key; knex answers it per driver. */
async function insertOne(knex: Knex, dialect: DialectName, row: Row): Promise<number> {
  if (dialect === 'mysql') {
    const [id] = (await knex('articles').insert(row)) as number[]
    return id!
  }
  const [created] = (await knex('articles').insert(row).returning('id')) as { id: number }[]
  return created!.id
}

export function handWritten(knex: Knex, dialect: DialectName): Router {
  const router = express.Router()
  router.use(express.json({ limit: '5mb' }))

  // filter[status][_eq]=published&sort=-rating&limit=25&fields=id,title,rating,author.name
  router.get('/list', async (_req: Request, res: Response) => {
    const rows = (await knex('articles')
      .select('id', 'title', 'rating', 'author')
      .where('status', 'published')
      .orderByRaw(dialect === 'postgres' ? 'rating desc nulls last, id' : 'rating desc, id')
      .limit(25)) as Row[]
    const authorIds = [...new Set(rows.map((row) => row.author).filter((id) => id !== null))] as number[]
    const authors = new Map(((await knex('authors').select('id', 'name').whereIn('id', authorIds)) as Row[]).map((a) => [a.id, a.name]))
    res.json({
      data: rows.map((row) => ({
        id: row.id,
        title: row.title,
        rating: row.rating,
        author: row.author === null ? null : { name: authors.get(row.author) },
      })),
    })
  })

  // GET /items/articles/:id — every field, the o2m fields as key lists.
  router.get('/articles/:id', async (req: Request, res: Response) => {
    const id = Number(req.params.id)
    const row = (await knex('articles').select(ARTICLE_COLUMNS).where('id', id).first()) as Row | undefined
    if (!row) {
      res.status(404).json({ errors: [{ message: 'Not found' }] })
      return
    }
    const comments = await knex('comments').where('article', id).orderBy('id').limit(PER_PARENT).pluck('id')
    const topics = await knex('article_topics').where('article', id).orderBy('id').limit(PER_PARENT).pluck('id')
    res.json({ data: { ...article(row), comments, topics } })
  })

  // limit=100&fields=*,author.*,comments.*
  router.get('/relational', async (_req: Request, res: Response) => {
    const rows = (await knex('articles').select(ARTICLE_COLUMNS).orderBy('id').limit(100)) as Row[]
    const ids = rows.map((row) => row.id as number)
    const authorIds = [...new Set(rows.map((row) => row.author).filter((id) => id !== null))] as number[]
    const authorRows = (await knex('authors').select('id', 'name', 'email', 'bio').whereIn('id', authorIds)) as Row[]
    const authorArticles = byParent(
      (await knex('articles').select('id', 'author').whereIn('author', authorIds).orderBy('id')) as Row[],
      'author',
      (row) => row.id,
    )
    const authors = new Map(authorRows.map((a) => [a.id, { ...a, articles: authorArticles.get(a.id) ?? [] }]))
    const comments = byParent(
      (await knex('comments').select('id', 'article', 'author', 'body', 'votes').whereIn('article', ids).orderBy('id')) as Row[],
      'article',
      (row) => row,
    )
    const topics = byParent(
      (await knex('article_topics').select('id', 'article').whereIn('article', ids).orderBy('id')) as Row[],
      'article',
      (row) => row.id,
    )
    res.json({
      data: rows.map((row) => ({
        ...article(row),
        author: row.author === null ? null : (authors.get(row.author) ?? null),
        comments: comments.get(row.id) ?? [],
        topics: topics.get(row.id) ?? [],
      })),
    })
  })

  // groupBy=author&aggregate[count]=*
  router.get('/aggregate', async (_req: Request, res: Response) => {
    const rows = (await knex('articles')
      .select('author')
      .count({ count: '*' })
      .groupBy('author')
      .orderByRaw(dialect === 'postgres' ? 'author nulls first' : 'author')) as Row[]
    res.json({ data: rows.map((row) => ({ author: row.author, count: Number(row.count) })) })
  })

  // POST ?fields=id,title,status,rating
  router.post('/articles', async (req: Request, res: Response) => {
    const body = req.body as Row
    const id = await insertOne(knex, dialect, { title: body.title, status: body.status, rating: body.rating })
    const row = (await knex('articles').select('id', 'title', 'status', 'rating').where('id', id).first()) as Row
    res.json({ data: row })
  })

  // PATCH /:id?fields=id,title,rating
  router.patch('/articles/:id', async (req: Request, res: Response) => {
    const id = Number(req.params.id)
    const body = req.body as Row
    const changed = await knex('articles').where('id', id).update({ rating: body.rating })
    if (changed === 0) {
      res.status(404).json({ errors: [{ message: 'Not found' }] })
      return
    }
    res.json({ data: await knex('articles').select('id', 'title', 'rating').where('id', id).first() })
  })

  // POST a 1,000-item array ?fields=id, through knex.batchInsert in one transaction.
  router.post('/batch', async (req: Request, res: Response) => {
    const rows = (req.body as Row[]).map((body) => ({ title: body.title, status: body.status, rating: body.rating }))
    const ids = await knex.transaction(async (trx) => {
      if (dialect === 'mysql') {
        // One multi-row INSERT per chunk; InnoDB numbers a simple insert's rows consecutively from insertId.
        // knex answers each chunk's insertId.
        const firsts = (await knex.batchInsert('articles', rows, 1000).transacting(trx)) as unknown as number[]
        return firsts.flatMap((first, index) => rows.slice(index * 1000, (index + 1) * 1000).map((_, i) => first + i))
      }
      // SQLite's knex form is a compound SELECT, at most 500 terms.
      const insert = knex.batchInsert<Row>('articles', rows, dialect === 'sqlite' ? 500 : 1000)
      const created = (await insert.returning('id').transacting(trx)) as unknown as { id: number }[]
      return created.map((row) => row.id)
    })
    res.json({ data: ids.map((id) => ({ id })) })
  })

  return router
}
