// Talks to a mounted router with the official @directus/sdk; the README quotes this file and a spec runs it.
import { aggregate, createDirectus, readItems, rest, withSearch } from '@directus/sdk'

export async function readWithSdk(apiUrl: string) {
  // apiUrl is where the router is mounted, e.g. http://localhost:3000/api
  const client = createDirectus(apiUrl).with(rest())

  const topRated = await client.request(
    readItems('articles', {
      fields: ['id', 'title', { author: ['name'] }],
      filter: { status: { _eq: 'published' }, author: { name: { _starts_with: 'A' } } },
      sort: ['-rating', 'id'],
      limit: 3,
    }),
  )
  const perStatus = await client.request(aggregate('articles', { aggregate: { count: '*' }, groupBy: ['status'] }))
  // SEARCH /items/articles with the query in the body: for queries too long for a URL.
  const found = await client.request(withSearch(readItems('articles', { search: 'bridge', fields: ['id', 'title'], limit: 5 })))

  return { topRated, perStatus, found }
}
