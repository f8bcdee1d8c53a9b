// The OpenAPI document passes a second, independent linter: Redocly's, whose `minimal` rules include the
// structure of every object (no keyword OpenAPI does not define, unless it starts with `x-`). The first is the
// schema validator in openapi-document.spec.ts.
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { fixtureDocument } from './fixture-document'

it('reports no error in the fixture document', async () => {
  const config = await createConfig({ extends: ['minimal'] })
  const problems = await lintFromString({ source: JSON.stringify(fixtureDocument()), absoluteRef: '/openapi.json', config })
  const errors = problems.filter((problem) => problem.severity === 'error')
  expect(errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? '?'}`)).toEqual([])
}, 60_000)

it('sees a keyword OpenAPI does not define as an error, so the check above can fail', async () => {
  const config = await createConfig({ extends: ['minimal'] })
  const document = fixtureDocument() as unknown as { components: { schemas: Record<string, Record<string, unknown>> } }
  const schemas = document.components.schemas
  const first = Object.keys(schemas)[0]!
  schemas[first] = { ...schemas[first], jsonValue: true }
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config })
  expect(problems.filter((problem) => problem.severity === 'error').map((problem) => problem.ruleId)).toContain('struct')
}, 60_000)
