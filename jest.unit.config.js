/**
 * The fast tier (`npm run test:unit`): `*.unit.test.ts` files start no server of any kind — workflow state
 * and its rules, activities in a mock activity environment, parsing and the failure table. `npm test` runs
 * them together with the integration tests (real dev server and sandbox).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config file
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/**/*.unit.test.ts'],
  // No Temporal CLI is needed: no server starts.
  globalSetup: undefined,
};
