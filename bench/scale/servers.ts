// The harness's private servers, each on its own ports and data directory under one temporary folder:
// PostgreSQL primary + streaming replica + PgBouncer (transaction mode), a 3-node MariaDB Galera cluster,
// HAProxy, and the app processes. Every process started here is stopped by its own handle.
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const asUser = (user: string, command: string, args: string[]): string =>
  execFileSync('runuser', ['-u', user, '--', command, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })

export interface Running {
  readonly stop: () => Promise<void>
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill(signal)
  await Promise.race([exited, sleep(30_000)])
}

export const PG = { primary: 55432, replica: 55433, bouncer: 56432 }

/** Primary, a replica cloned from it with pg_basebackup streaming WAL, and PgBouncer in transaction mode in front of both. */
export function postgresCluster(dir: string): Running {
  const bin = execFileSync('ls', ['/usr/lib/postgresql'], { encoding: 'utf8' }).trim().split('\n').pop()!
  const tool = (name: string): string => `/usr/lib/postgresql/${bin}/bin/${name}`
  const primary = join(dir, 'pg-primary')
  const replica = join(dir, 'pg-replica')
  asUser('postgres', tool('initdb'), ['-D', primary, '-A', 'trust', '-U', 'postgres'])
  const start = (data: string, port: number): string =>
    asUser('postgres', tool('pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, `pg-${port}.log`),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=64MB`,
      '-w',
      'start',
    ])
  start(primary, PG.primary)
  asUser('postgres', tool('pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(PG.primary),
    '-U',
    'postgres',
    '-D',
    replica,
    '-R',
    '-X',
    'stream',
  ])
  start(replica, PG.replica)
  const bouncer = join(dir, 'pgbouncer')
  mkdirSync(bouncer)
  writeFileSync(join(bouncer, 'users.txt'), '"postgres" ""\n')
  writeFileSync(
    join(bouncer, 'pgbouncer.ini'),
    [
      '[databases]',
      `scale = host=127.0.0.1 port=${PG.primary} dbname=scale`,
      `scale_replica = host=127.0.0.1 port=${PG.replica} dbname=scale`,
      '[pgbouncer]',
      `listen_addr = 127.0.0.1`,
      `listen_port = ${PG.bouncer}`,
      `unix_socket_dir = ${bouncer}`,
      'auth_type = trust',
      `auth_file = ${join(bouncer, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 400',
      'default_pool_size = 20',
      `logfile = ${join(bouncer, 'pgbouncer.log')}`,
      `pidfile = ${join(bouncer, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  )
  chmodSync(bouncer, 0o777)
  // `-u`, not runuser: PgBouncer drops root itself, and so gets the stop signal itself (runuser does not pass it on).
  const pooler = spawn('pgbouncer', ['-u', 'postgres', join(bouncer, 'pgbouncer.ini')], { stdio: 'ignore' })
  return {
    stop: async () => {
      await stopChild(pooler, 'SIGINT')
      for (const data of [replica, primary]) asUser('postgres', tool('pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'])
    },
  }
}

export const GALERA = [0, 1, 2].map((index) => ({ port: 53306 + index, gcomm: 44567 + index, ist: 44577 + index, sst: 44587 + index }))

/** Three mariadbd with wsrep on: node 1 bootstraps the cluster, nodes 2 and 3 join it by rsync SST. */
export async function galeraCluster(dir: string, ready: (port: number) => Promise<void>): Promise<Running> {
  const children: ChildProcess[] = []
  const address = GALERA.map((node) => `127.0.0.1:${node.gcomm}`).join(',')
  const startNode = (index: number): ChildProcess => {
    const node = GALERA[index]!
    const data = join(dir, `galera-${index + 1}`)
    mkdirSync(data, { recursive: true })
    chmodSync(dir, 0o777)
    execFileSync('chown', ['-R', 'mysql:mysql', data])
    if (index === 0) {
      execFileSync(
        'mariadb-install-db',
        [`--datadir=${data}`, '--user=mysql', '--auth-root-authentication-method=normal', '--skip-test-db'],
        {
          stdio: 'ignore',
        },
      )
    }
    const child = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${data}`,
        `--port=${node.port}`,
        `--socket=${join(data, 'sock')}`,
        '--bind-address=127.0.0.1',
        '--user=mysql',
        `--pid-file=${join(data, 'pid')}`,
        `--log-error=${join(dir, `galera-${index + 1}.err`)}`,
        '--innodb-buffer-pool-size=64M',
        '--binlog-format=ROW',
        '--default-storage-engine=InnoDB',
        '--innodb-autoinc-lock-mode=2',
        '--max-connections=200',
        '--wsrep-on=ON',
        '--wsrep-provider=/usr/lib/galera/libgalera_smm.so',
        `--wsrep-cluster-address=gcomm://${index === 0 ? '' : address}`,
        '--wsrep-cluster-name=scale',
        `--wsrep-node-address=127.0.0.1:${node.gcomm}`,
        `--wsrep-node-name=node${index + 1}`,
        `--wsrep-provider-options=gmcast.listen_addr=tcp://127.0.0.1:${node.gcomm};ist.recv_addr=127.0.0.1:${node.ist}`,
        `--wsrep-sst-receive-address=127.0.0.1:${node.sst}`,
        '--wsrep-sst-method=rsync',
      ],
      { stdio: 'ignore' },
    )
    children.push(child)
    return child
  }
  startNode(0)
  await ready(GALERA[0]!.port)
  for (const index of [1, 2]) {
    startNode(index)
    await ready(GALERA[index]!.port)
  }
  return {
    stop: async () => {
      for (const child of children.reverse()) await stopChild(child)
    },
  }
}

export const APP_PORTS = [58101, 58102, 58103, 58104]
export const BALANCER_PORT = 58080

/** The app processes, one per port, each with its own environment (primary, replica, pool). */
export async function appProcesses(envs: readonly Record<string, string>[]): Promise<Running & { readonly pids: number[] }> {
  const started: ChildProcess[] = []
  const children = await Promise.all(
    envs.map(
      (env, index) =>
        new Promise<ChildProcess>((resolve, reject) => {
          const child = fork(join(__dirname, 'app.ts'), [], {
            env: { ...process.env, ...env, PORT: String(APP_PORTS[index]) },
            execArgv: ['-r', 'ts-node/register/transpile-only'],
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          })
          started.push(child)
          child.once('message', () => resolve(child))
          child.once('exit', (code) => reject(new Error(`app process ${index} exited with ${code}`)))
        }),
    ),
  ).catch(async (error: unknown) => {
    await Promise.all(started.map((child) => stopChild(child)))
    throw error
  })
  return {
    pids: children.map((child) => child.pid!),
    stop: async () => void (await Promise.all(children.map((child) => stopChild(child)))),
  }
}

/** HAProxy, round robin over the first `count` app processes. */
export async function balancer(dir: string, count: number): Promise<Running> {
  const config = join(dir, `haproxy-${count}.cfg`)
  writeFileSync(
    config,
    [
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend api',
      `  bind 127.0.0.1:${BALANCER_PORT}`,
      '  default_backend apps',
      'backend apps',
      '  balance roundrobin',
      ...APP_PORTS.slice(0, count).map((port, index) => `  server app${index + 1} 127.0.0.1:${port}`),
      '',
    ].join('\n'),
  )
  const child = spawn('haproxy', ['-f', config, '-db'], { stdio: 'ignore' })
  await sleep(500)
  return { stop: () => stopChild(child) }
}
