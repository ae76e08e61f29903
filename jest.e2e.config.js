/**
 * Browser tests (`npm run test:e2e`): Playwright driving Debian's Chromium against the dev server's Web UI.
 * Kept apart from `npm test` (they need a browser); screenshots go to the git-ignored `artifacts/e2e/`.
 */
// Same transform, setup and timeouts as the unit and integration tests.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config file
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/e2e/**/*.e2e.ts'],
  // One browser and one dev server at a time on a 2-core machine.
  maxWorkers: 1,
  testTimeout: 240_000,
};
