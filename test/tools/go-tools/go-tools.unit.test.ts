import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureGoTool, GO_TOOLS, goToolPath, type GoTool } from '../../../tools/go-tools/go-tools';

describe('Go tools', () => {
  let projectRoot: string;
  beforeEach(() => {
    projectRoot = mkdtempSync(join(tmpdir(), 'go-tools-'));
  });
  afterEach(() => rmSync(projectRoot, { recursive: true, force: true }));

  it('keeps each binary under .tools/go keyed by name and version', () => {
    expect(goToolPath(GO_TOOLS.temporalServer, projectRoot)).toBe(
      join(projectRoot, '.tools', 'go', 'temporal-server@v1.32.2', 'server'),
    );
  });

  it('builds nothing when the binary is already there', async () => {
    // A package that does not exist: reaching `go install` would fail the test.
    const tool: GoTool = {
      name: 'absent',
      binary: 'absent',
      packagePath: 'example.invalid/absent',
      version: 'v0.0.1',
    };
    const path = goToolPath(tool, projectRoot);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    const logged: string[] = [];
    await expect(ensureGoTool(tool, { projectRoot, log: (line) => logged.push(line) })).resolves.toBe(path);
    expect(logged).toEqual([]);
  });
});
