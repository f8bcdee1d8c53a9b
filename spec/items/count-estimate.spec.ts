// meta=total_count_estimate: PostgreSQL's planner estimate of the rows the caller may see, an exact count
// elsewhere; never wider than the caller's scope.
import request from 'supertest'
import { collections } from '../../fixtures/schema'
import { seed } from '../../fixtures/seed'
import { createApp } from '../support/app'
import { forEachDialect } from '../support/dialects'
import { getInvalidQuery } from '../support/expect-error'

forEachDialect((ctx) => {
  describe('meta=total_count_estimate', () => {
    it('answers beside the exact counts, from the planner on PostgreSQL (after ANALYZE) and counted elsewhere', async () => {
      if (ctx.name === 'postgres') await ctx.knex.raw('analyze articles')
      const { result, sql } = await ctx.countQueries(() =>
        request(createApp(ctx.knex)).get('/api/items/articles?fields=id&limit=1&meta=total_count,total_count_estimate'),
      )
      const { total_count, total_count_estimate } = result.body.meta as Record<string, number>
      expect(total_count).toBe(seed.articles.length)
      if (ctx.name === 'postgres') {
        expect(sql.some((statement) => /explain \(format json\)/.test(statement))).toBe(true)
        expect(Math.abs(total_count_estimate! - total_count!)).toBeLessThanOrEqual(total_count! * 0.2)
      } else expect(total_count_estimate).toBe(total_count)
    })

    it("estimates within the caller's scope only", async () => {
      if (ctx.name === 'postgres') await ctx.knex.raw('analyze articles')
      const app = createApp(ctx.knex, {
        collections: { ...collections, articles: { ...collections.articles, access: { read: { filter: { author: { _eq: 3 } } } } } },
      })
      const response = await request(app).get('/api/items/articles?fields=id&limit=1&meta=total_count_estimate')
      const own = seed.articles.filter((row) => row.author === 3).length
      expect(response.body.meta.total_count_estimate).toBeLessThan(seed.articles.length / 2)
      if (ctx.name !== 'postgres') expect(response.body.meta.total_count_estimate).toBe(own)
    })

    it('names the accepted entries for an unknown one', async () => {
      await getInvalidQuery(ctx, createApp(ctx.knex), '/api/items/articles?meta=total_count_guess', ['total_count_estimate', 'next_cursor'])
    })
  })
})
