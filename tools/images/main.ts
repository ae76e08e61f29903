/**
 * `npm run images`: builds the Debian base images and the stand-ins of every image docker-compose.yml and the
 * Dockerfile name (tools/images/stand-ins.ts) into the project's own Docker engine (tools/docker/engine.ts),
 * which it starts and stops. Idempotent: what is up to date is kept. Progress on stderr.
 */
import { withDockerEngine } from '../docker/engine';
import { ensureStandInImages } from './stand-ins';
import { runMain } from '../../src/main/run-main';

async function main(): Promise<void> {
  const started = Date.now();
  await withDockerEngine((engine) => ensureStandInImages(engine));
  console.error(`images ready in ${Math.round((Date.now() - started) / 1000)} s`);
}

runMain(main);
