/** Randomness for fault injection, injectable so that tests are deterministic. */

/** A source of uniformly distributed numbers in [0, 1), like `Math.random`. */
export type RandomSource = () => number;

/**
 * A small seeded PRNG (mulberry32): the same seed yields the same sequence. Used for `--seed` and by tests
 * that want probabilistic faults without depending on chance.
 */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks one element of a non-empty list uniformly. */
export function pick<T>(random: RandomSource, items: readonly T[]): T {
  const index = Math.min(items.length - 1, Math.floor(random() * items.length));
  const item = items[index];
  if (item === undefined) throw new Error('pick() needs a non-empty list');
  return item;
}
