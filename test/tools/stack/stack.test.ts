/**
 * The local stack starts what it is asked for — sandbox, dev server, Web UI, codec server, workers in this
 * process and as child processes — restarts Temporal without losing workflows, and leaves no process, port or
 * folder behind once stopped, also when a part fails while the stack starts.
 */
import { existsSync } from 'node:fs';
import { CodecServerOptionsError } from '../../../src/codec/codec-server';
import type { BadgeOrderInput } from '../../../src/contract';
import { DevServerStartError } from '../../../tools/dev/dev-server';
import { startLocalStack, type LocalStack } from '../../../tools/stack';
import { isProcessAlive } from '../../../tools/dev/child-process';
import { isListening } from '../../helpers/liveness';

/** `host:port` or a base URL. */
/** The URL a progress line names after `prefix`, e.g. `sandbox at http://…`. */
function logged(lines: readonly string[], prefix: string): string {
  const line = lines.find((candidate) => candidate.startsWith(prefix));
  if (!line) throw new Error(`no "${prefix}" line in:\n${lines.join('\n')}`);
  return line.slice(prefix.length).split(' ')[0] ?? '';
}

const order = (orderRef: string, path: string): BadgeOrderInput => ({
  orderRef,
  vehicle: { licensePlate: 'B-ST 2026', fuel: 'diesel' },
  badge: { type: 'green' },
  documents: [{ path }],
});

describe('a local stack with every part', () => {
  let stack: LocalStack | undefined;
  afterAll(async () => {
    await stack?.stop();
  });

  it('runs orders on its workers, keeps them over a Temporal restart, and stops every part', async () => {
    stack = await startLocalStack({ webUi: true, codecServer: true, temporal: { persistent: true } });
    const { sandbox, codecServer, webUiUrl, scratchDir } = stack;

    // Each part answers.
    expect((await sandbox.control.state()).orders).toEqual([]);
    expect(webUiUrl).not.toBeNull();
    expect((await fetch(webUiUrl ?? '')).status).toBe(200);
    expect(codecServer).not.toBeNull();
    const decoded = await fetch(`${codecServer?.url ?? ''}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [] }),
    });
    expect(decoded.status).toBe(200);
    expect(stack.payloadKeys.encrypts).toBe(true);

    // A worker process runs an order.
    const child = stack.startWorkerProcess();
    await stack.waitUntilPolling([child]);
    const fromChild = await stack
      .orders()
      .startOrder(order('stack-child', stack.writeDocument('a/form.pdf', '%PDF-1.4 a')));
    expect((await fromChild.handle.result()).orderId).toMatch(/^\d+$/);

    // The server restarts on the same port and keeps the order; an in-process worker runs the next one.
    const address = stack.temporal.server.address;
    await stack.restartTemporal();
    expect(stack.temporal.server.address).toBe(address);
    expect((await stack.orders().getHandle('stack-child').describe()).status.name).toBe('COMPLETED');
    await child.kill('SIGKILL');
    await stack.startWorker();
    const inProcess = await stack
      .orders()
      .startOrder(order('stack-in-process', stack.writeDocument('b/form.pdf', '%PDF-1.4 b')));
    expect((await inProcess.handle.result()).orderId).toMatch(/^\d+$/);
    expect((await sandbox.control.state()).orders).toHaveLength(2);

    // A second worker process still runs when the stack stops.
    const running = stack.startWorkerProcess();
    const serverPid = stack.temporal.server.pid;
    await stack.stop();
    await stack.stop();

    expect(running.running()).toBe(false);
    expect(serverPid).not.toBeNull();
    expect(isProcessAlive(serverPid ?? 0)).toBe(false);
    for (const where of [sandbox.baseUrl, address, webUiUrl ?? '', codecServer?.url ?? '']) {
      expect({ where, listening: await isListening(where) }).toEqual({ where, listening: false });
    }
    expect(existsSync(scratchDir)).toBe(false);
  });
});

describe('a local stack with only what it was asked for', () => {
  it('starts no Web UI, codec server or bundle unless asked, and refuses workers without a bundle', async () => {
    const stack = await startLocalStack({ workflowBundle: false, payloadKeys: null });
    try {
      expect(stack.webUiUrl).toBeNull();
      expect(stack.codecServer).toBeNull();
      expect(stack.payloadKeys.encrypts).toBe(false);
      expect(() => stack.startWorkerProcess()).toThrow('workflowBundle: false');
      await expect(stack.startWorker()).rejects.toThrow('workflowBundle: false');
      // Without a database file a restart would lose every workflow: refused.
      await expect(stack.restartTemporal()).rejects.toThrow('needs a database file');
      const namespace = await stack.temporal.connection.workflowService.describeNamespace({
        namespace: 'default',
      });
      expect(namespace.namespaceInfo?.name).toBe('default');
    } finally {
      await stack.stop();
    }
  });
});

describe('a part failing while the stack starts', () => {
  it('stops the parts already started and reports the failure', async () => {
    const lines: string[] = [];
    const start = startLocalStack({
      webUi: true,
      codecServer: true,
      temporal: { cli: { kind: 'binary', path: '/nonexistent/temporal', source: 'TEMPORAL_CLI_PATH' } },
      log: (line) => lines.push(line),
    });

    await expect(start).rejects.toBeInstanceOf(DevServerStartError);
    const sandbox = logged(lines, 'sandbox at ');
    const codec = logged(lines, 'codec server at ');
    expect(await isListening(sandbox)).toBe(false);
    expect(await isListening(codec)).toBe(false);
    expect(existsSync(logged(lines, 'scratch folder '))).toBe(false);
  });

  it('stops the sandbox when the codec server cannot start', async () => {
    const lines: string[] = [];
    const start = startLocalStack({ codecServer: true, payloadKeys: null, log: (line) => lines.push(line) });

    await expect(start).rejects.toBeInstanceOf(CodecServerOptionsError);
    expect(await isListening(logged(lines, 'sandbox at '))).toBe(false);
    expect(existsSync(logged(lines, 'scratch folder '))).toBe(false);
  });
});
