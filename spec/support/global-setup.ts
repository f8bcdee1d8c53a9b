// Jest global setup: names this run's databases and probes each selected database server once per run, and hands
// both to the workers.
import { newRunId, probe, RUN_ENV, runDatabasePrefix, selectedDialects, UNREACHABLE_ENV } from './databases'

export default async function globalSetup(): Promise<void> {
  // Workers are started after this resolves and inherit the environment, so this is how they learn the results.
  process.env[RUN_ENV] ||= newRunId()
  // A pinned name the servers cannot take fails here, before any spec.
  runDatabasePrefix()
  const dialects = selectedDialects()
  const reasons = await Promise.all(dialects.map((name) => probe(name)))
  const unreachable: Record<string, string> = {}
  dialects.forEach((name, i) => {
    const reason = reasons[i]
    if (!reason) return
    unreachable[name] = reason
    if (process.env.CI !== 'true') console.warn(`\n${reason}; skipping the ${name} suites.`)
  })
  process.env[UNREACHABLE_ENV] = JSON.stringify(unreachable)
}
