// Two router processes over one database, through each broker: a write on either reaches subscribers on both.
// The spec is the first process; it starts the second (realtime-process.ts) with the same database and channel.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { join } from 'node:path'
import request from 'supertest'
import { knexConfig, pgConnection } from '../support/databases'
import { forEachDialect } from '../support/dialects'
import { startRealtimeHost, TestClient, type RealtimeHost } from '../support/realtime'
import { brokerFor, type ProcessSetup } from './realtime-process'

async function startSecond(setup: ProcessSetup): Promise<{ child: ChildProcessWithoutNullStreams; port: number }> {
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'realtime-process.ts')], {
    env: { ...process.env, REALTIME_PROCESS: JSON.stringify(setup) },
  })
  let output = ''
  child.stderr.on('data', (data: Buffer) => (output += data.toString()))
  const [line] = (await Promise.race([
    once(child.stdout, 'data'),
    once(child, 'exit').then(() => {
      throw new Error(`the second process ended: ${output}`)
    }),
  ])) as [Buffer]
  return { child, port: (JSON.parse(line.toString()) as { port: number }).port }
}

forEachDialect((ctx) => {
  if (ctx.name === 'sqlite') {
    it.skip('two processes need a database server: SQLite here is one process’s memory', () => undefined)
    return
  }

  describe.each(['postgres', 'redis'] as const)('through %s', (engine) => {
    let first: RealtimeHost
    let second: { child: ChildProcessWithoutNullStreams; port: number }
    const clients: TestClient[] = []
    const setup = (): ProcessSetup => ({
      knex: knexConfig(ctx.name),
      engine,
      // One channel per run and dialect: other runs on this machine use the same servers.
      channel: `items_rt_${randomUUID().replace(/-/g, '')}`,
      pg: pgConnection('postgres'),
    })

    beforeAll(async () => {
      await ctx.reset()
      const shared = setup()
      first = await startRealtimeHost(ctx.knex, { broker: brokerFor(shared) })
      await first.realtime.ready
      second = await startSecond(shared)
      // Starting a second Node process under ts-node takes its time on a busy machine.
    }, 180_000)
    afterAll(async () => {
      clients.splice(0).forEach((each) => each.close())
      if (second) {
        second.child.stdin.end()
        await once(second.child, 'exit')
      }
      await first?.close()
    })

    it('delivers a write on either process to subscribers on both', async () => {
      const here = await TestClient.open(first.wsUrl, 'token-admin')
      const there = await TestClient.open(`ws://127.0.0.1:${second.port}/api/websocket`, 'token-admin')
      clients.push(here, there)
      for (const ws of [here, there])
        await ws.ask({ type: 'subscribe', collection: 'authors', uid: 's', query: { fields: ['id', 'name'], limit: 1 } })
      const made = await request(first.server).post('/api/items/authors').send({ name: 'From the first' }).expect(200)
      const id = made.body.data.id as number
      for (const ws of [here, there])
        expect(await ws.answer('s')).toEqual({ type: 'subscription', event: 'create', data: [{ id, name: 'From the first' }], uid: 's' })
      await request(`http://127.0.0.1:${second.port}`).patch(`/api/items/authors/${id}`).send({ name: 'From the second' }).expect(200)
      for (const ws of [here, there])
        expect(await ws.answer('s')).toEqual({ type: 'subscription', event: 'update', data: [{ id, name: 'From the second' }], uid: 's' })
      await request(`http://127.0.0.1:${second.port}`).delete(`/api/items/authors/${id}`).expect(204)
      for (const ws of [here, there]) expect(await ws.answer('s')).toEqual({ type: 'subscription', event: 'delete', data: [id], uid: 's' })
    })
  })
})
