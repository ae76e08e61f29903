/** The stack's cleanup list: newest first, every stop even after a failure, once, and on SIGINT / SIGTERM. */
import { EventEmitter } from 'node:events';
import { CleanupError, CleanupList } from '../../../tools/stack/cleanup';

describe('CleanupList', () => {
  it('stops everything newest first', async () => {
    const stopped: string[] = [];
    const list = new CleanupList();
    for (const name of ['scratch', 'sandbox', 'temporal']) list.add(name, () => void stopped.push(name));
    await list.run();
    expect(stopped).toEqual(['temporal', 'sandbox', 'scratch']);
  });

  it('runs every stop when one throws, then names each failure', async () => {
    const stopped: string[] = [];
    const list = new CleanupList();
    list.add('scratch', () => void stopped.push('scratch'));
    list.add('sandbox', () => Promise.reject(new Error('sandbox would not close')));
    list.add('temporal', () => {
      throw new Error('server gone');
    });
    list.add('worker', () => void stopped.push('worker'));

    const failure: unknown = await list.run().catch((error: unknown) => error);

    expect(stopped).toEqual(['worker', 'scratch']);
    expect(failure).toBeInstanceOf(CleanupError);
    expect((failure as CleanupError).errors).toHaveLength(2);
    expect((failure as CleanupError).message).toBe(
      'stopping temporal failed: Error: server gone; stopping sandbox failed: Error: sandbox would not close',
    );
  });

  it('stops each part once however often it is run', async () => {
    let stops = 0;
    const list = new CleanupList();
    list.add('sandbox', () => void (stops += 1));
    await Promise.all([list.run(), list.run()]);
    await list.run();
    expect(stops).toBe(1);
    expect(list.stopping).toBe(true);
  });

  it('skips a part removed before the run (a worker that was stopped on its own)', async () => {
    const stopped: string[] = [];
    const list = new CleanupList();
    list.add('sandbox', () => void stopped.push('sandbox'));
    const remove = list.add('worker', () => void stopped.push('worker'));
    remove();
    remove();
    await list.run();
    expect(stopped).toEqual(['sandbox']);
  });

  it('stops a part added while everything stops at once, and tells the caller', async () => {
    const list = new CleanupList();
    await list.run();
    let stopped!: () => void;
    const stoppedLate = new Promise<void>((resolve) => (stopped = resolve));
    expect(() => list.add('late worker', stopped)).toThrow(
      'late worker was stopped again: the stack is stopping',
    );
    await stoppedLate;
  });

  it('on SIGTERM stops everything, then exits with 143; its handlers go once the list has run', async () => {
    const target = new EventEmitter();
    const stopped: string[] = [];
    const list = new CleanupList();
    list.add('sandbox', () => void stopped.push('sandbox'));
    let exitCode: number | undefined;
    const exited = new Promise<void>((resolve) => {
      list.stopOnSignals({
        target,
        exit: (code) => {
          exitCode = code;
          resolve();
        },
      });
    });
    expect(target.listenerCount('SIGINT')).toBe(1);

    target.emit('SIGTERM', 'SIGTERM');
    await exited;

    expect(stopped).toEqual(['sandbox']);
    expect(exitCode).toBe(143);
    expect(target.listenerCount('SIGINT')).toBe(0);
    expect(target.listenerCount('SIGTERM')).toBe(0);
  });

  it('removes its signal handlers when stopped for another reason', async () => {
    const target = new EventEmitter();
    const list = new CleanupList();
    list.stopOnSignals({ target, exit: () => undefined });
    await list.run();
    expect(target.listenerCount('SIGINT')).toBe(0);
    expect(target.listenerCount('SIGTERM')).toBe(0);
  });
});
