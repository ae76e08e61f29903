import type { LookupAddress } from 'node:dns';
import type { HostResolver } from '../../src/webhook-destination';

/** A resolver that gives `answers` in turn (the last one again once they run out), counting its calls. */
export function answering(...answers: (readonly LookupAddress[])[]): HostResolver & { calls: number } {
  const resolver = Object.assign(
    () => {
      const answer = answers[Math.min(resolver.calls, answers.length - 1)] ?? [];
      resolver.calls += 1;
      return Promise.resolve(answer);
    },
    { calls: 0 },
  );
  return resolver;
}
