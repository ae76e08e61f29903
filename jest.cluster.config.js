/**
 * The cluster tests (`npm run test:cluster`): the service on Temporal as production runs it — PostgreSQL and
 * four server processes (tools/cluster) — with its faults. Kept apart from `npm test`: they need the pinned
 * server binaries (`npm run go-tools -- temporalServer temporalSql temporalUi`), PostgreSQL, root, and Chromium
 * for the operator sign-in test.
 */
// Same transform, setup and reporters as the unit and integration tests.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config file
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // One cluster at a time: each is a database and four servers on a 2-core machine.
  maxWorkers: 1,
  testTimeout: 300_000,
};
