// Jest configuration: ts-jest without type-checking, database specs in parallel workers, a non-UTC host zone.

// A zone with a half-hour offset, set before any worker starts, so specs prove date handling ignores the host zone.
process.env.TZ = 'Asia/Kolkata'

/** @type {import('jest').Config} */
module.exports = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  // Transpile only (same key as the preset's, so this replaces it): `npm run typecheck` does the type-checking.
  transform: { '^.+\\.tsx?$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
  testMatch: ['<rootDir>/spec/**/*.spec.ts'],
  globalSetup: '<rootDir>/spec/support/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: 2,
}
