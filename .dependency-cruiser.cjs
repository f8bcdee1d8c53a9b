// The import rules of lib/ (`npm run lint:deps`): data flows one way, route -> access -> query -> plan -> sql ->
// execute, with dialects underneath. A rule names the stage that must not know another, and why.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment:
        'Files that import each other cannot be read, tested or loaded alone. Only a loop of type-only imports is allowed: ' +
        'the rule is checked on each import of a loop, so one import in it that is not type-only fails it.',
      from: { path: '^lib/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'request-stages-know-no-sql',
      severity: 'error',
      comment: 'query/, schema/ and access/ decide what a request means before any SQL exists; they never reach down to how it runs.',
      from: { path: '^lib/(query|schema|access)/' },
      to: { path: '^lib/(introspect|plan|sql|execute|dialects|repository)/' },
    },
    {
      name: 'dialects-run-nothing',
      severity: 'error',
      comment: 'A dialect says what its database does; execute/ and repository/ run statements through it, never the other way.',
      from: { path: '^lib/dialects/' },
      to: { path: '^lib/(introspect|plan|sql|execute|repository|handlers|writes|versions)/' },
    },
    {
      name: 'sql-runs-nothing-of-the-repository',
      severity: 'error',
      comment: 'Compilers and statement runners are used by repository/, not the other way round.',
      from: { path: '^lib/(plan|sql|execute)/' },
      to: { path: '^lib/(repository|handlers|writes|versions|router)' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: { path: '^lib/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^lib/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
}
