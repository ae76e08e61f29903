/**
 * The `patched()` ids of the workflows: one per change that alters the commands a running order issues. Each
 * keeps orders started before the change on their old path when they are replayed (CONTRIBUTING.md, "Changing
 * workflow code safely"). An id is never reused; once no order from before its change can still run, its
 * `patched` call becomes `deprecatePatch` and then goes.
 */
export const PATCHES = {
  /**
   * 0.2.0: the order's input is validated and its options resolved once, by the `resolveOrderInput` local
   * activity, so its answer is in history. Orders started before keep parsing the input in workflow code.
   */
  resolvedInputRecorded: 'resolved-input-recorded',
} as const;
