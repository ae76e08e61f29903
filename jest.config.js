/** Jest runs the TypeScript sources directly; every file that needs a Temporal server starts its own. */
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The cluster and compose tests run with `npm run test:cluster` and `npm run test:compose`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/cluster/', '<rootDir>/test/compose/'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  // The dev server and workflow bundling make the first test of a file slow on a 2-core machine.
  testTimeout: 120_000,
  // Files start their own servers; two at a time keeps a 2-core machine responsive.
  maxWorkers: 2,
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  reporters: ['default', '<rootDir>/test/helpers/closing-line-reporter.js'],
  setupFiles: ['<rootDir>/test/helpers/quiet-runtime.ts'],
};
