/**
 * The deployment test (`npm run test:compose`): the image built from the Dockerfile and `docker compose up` of
 * docker-compose.yml on the project's own Docker engine (tools/docker), with the stand-in images of
 * `npm run images`. Kept apart from `npm test`: it needs root, Debian's docker.io and debootstrap, the
 * `docker compose` plugin and the Go programs (built into .tools/), and Chromium.
 */
// Same transform, setup and reporters as the unit and integration tests.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config file
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/compose/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  // One stack at a time: a Docker engine, Temporal, PostgreSQL and five Node.js services on 2 cores.
  maxWorkers: 1,
  testTimeout: 600_000,
};
