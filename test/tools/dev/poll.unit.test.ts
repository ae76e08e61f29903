import { startChildProcess } from '../../../tools/dev/child-process';
import { ExitedWhileWaitingError, pollUntil, WaitTimeoutError, waitUntil } from '../../../tools/dev/poll';

describe('pollUntil', () => {
  it('returns the first answer accepted, probing again after answers refused and probes that threw', async () => {
    const answers = [1, 'fail', 2, 3, 4];
    let probes = 0;
    const accepted = await pollUntil(
      () => {
        const answer = answers[probes++];
        return answer === 'fail' ? Promise.reject(new Error('not up yet')) : Promise.resolve(answer);
      },
      (answer) => answer === 3,
      { intervalMs: 1 },
    );
    expect(accepted).toBe(3);
    expect(probes).toBe(4);
  });

  it('names what it waited for and the last answer or error when the time is up', async () => {
    await expect(
      pollUntil(
        () => Promise.resolve({ state: 'Running' }),
        () => false,
        { what: 'the order', timeoutMs: 0 },
      ),
    ).rejects.toThrow(
      new WaitTimeoutError('timed out after 0 ms waiting for the order (last answer: {"state":"Running"})'),
    );
    await expect(
      waitUntil('the server', () => Promise.reject(new Error('ECONNREFUSED')), { timeoutMs: 0 }),
    ).rejects.toThrow('timed out after 0 ms waiting for the server (last error: ECONNREFUSED)');
  });

  it('stops at once when a process it depends on has exited, with its exit code and output', async () => {
    const child = startChildProcess({
      name: 'the server',
      command: process.execPath,
      args: ['-e', 'console.error("address already in use"); process.exit(3)'],
    });
    await child.exited;
    let probes = 0;
    const waiting = waitUntil(
      'the server to answer',
      () => {
        probes += 1;
        return Promise.resolve(false);
      },
      { processes: [child] },
    );
    await expect(waiting).rejects.toBeInstanceOf(ExitedWhileWaitingError);
    await expect(waiting).rejects.toThrow(
      'the server exited (3) while waiting for the server to answer:\naddress already in use',
    );
    expect(probes).toBe(0);
  });
});
