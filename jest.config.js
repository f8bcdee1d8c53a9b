// Jest configuration: ts-jest without type-checking, a non-UTC host zone, and two projects: `unit` specs need no
// database server (`npm run test:unit`), `databases` specs run once per dialect in parallel workers.

// A zone with a half-hour offset, set before any worker starts, so specs prove date handling ignores the host zone.
process.env.TZ = 'Asia/Kolkata'

/** Specs that open no database connection, as path patterns. Every other spec belongs to `databases`. */
const UNIT_SPECS = [
  '/spec/package\\.spec\\.ts$',
  '/spec/openapi/openapi-document\\.spec\\.ts$',
  '/spec/types/.+\\.spec\\.ts$',
  '/spec/docs/(doc-blocks|fragments)\\.spec\\.ts$',
  '/spec/query/.+\\.spec\\.ts$',
  '/spec/schema/.+\\.spec\\.ts$',
  '/spec/introspect/(read-collections|catalog-checks)\\.spec\\.ts$',
  '/spec/sql/compile-filter\\.spec\\.ts$',
  '/spec/plan/.+\\.spec\\.ts$',
  '/spec/access/check-validation\\.spec\\.ts$',
]

const common = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  // Transpile only (same key as the preset's, so this replaces it): `npm run typecheck` does the type-checking.
  transform: { '^.+\\.tsx?$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
}

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30000,
  maxWorkers: 2,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testRegex: UNIT_SPECS,
      // Read by forEachDialect, which refuses to run here: a spec that needs a database is not a unit spec.
      globals: { ITEMS_UNIT_PROJECT: true },
    },
    {
      ...common,
      displayName: 'databases',
      testMatch: ['<rootDir>/spec/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...UNIT_SPECS],
      // Name this run's databases and probe the servers once, then drop the databases; only when a spec of this
      // project runs.
      globalSetup: '<rootDir>/spec/support/global-setup.ts',
      globalTeardown: '<rootDir>/spec/support/global-teardown.ts',
      setupFiles: ['<rootDir>/spec/support/check-caches.ts'],
    },
  ],
}
