/**
 * `@temporalio/workflow` as workflow code sees it when the 0.4.0 stock change had been made WITHOUT a guard of
 * its own, riding on the 0.3.0 change: every order that took the 0.3.0 path also takes the new stock path on
 * replay, although it never did when it ran. The other patches answer as recorded.
 */
import { patched as recordedPatched } from '@temporalio/workflow';
import { PATCHES } from '../../../src/workflows/patches';

export * from '@temporalio/workflow';

/** `stock-lookup-advisory` answers as `input-with-sign-in` was recorded; the rest as recorded. */
export function patched(patchId: string): boolean {
  return recordedPatched(patchId === PATCHES.stockLookupAdvisory ? PATCHES.inputWithSignIn : patchId);
}
