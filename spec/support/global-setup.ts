// Jest global setup: probes each selected database server once per run and hands the verdicts to the workers.
import { probe, selectedDialects, UNREACHABLE_ENV } from './databases'

export default async function globalSetup(): Promise<void> {
  const dialects = selectedDialects()
  const reasons = await Promise.all(dialects.map((name) => probe(name)))
  const unreachable: Record<string, string> = {}
  dialects.forEach((name, i) => {
    const reason = reasons[i]
    if (!reason) return
    unreachable[name] = reason
    if (process.env.CI !== 'true') console.warn(`\n${reason}; skipping the ${name} suites.`)
  })
  // Workers are started after this resolves and inherit the environment, so this is how they learn the result.
  process.env[UNREACHABLE_ENV] = JSON.stringify(unreachable)
}
