// Jest global teardown: drops this run's databases on the servers the setup reached, whether the specs passed or not.
import { dropRunDatabases, selectedDialects, UNREACHABLE_ENV } from './databases'

export default async function globalTeardown(): Promise<void> {
  const unreachable = JSON.parse(process.env[UNREACHABLE_ENV] ?? '{}') as Record<string, string>
  const servers = selectedDialects().filter((name): name is 'postgres' | 'mysql' => name !== 'sqlite' && !Object.hasOwn(unreachable, name))
  await Promise.all(servers.map((name) => dropRunDatabases(name)))
}
