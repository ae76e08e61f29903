/**
 * `@temporalio/workflow` as workflow code sees it when a change is made WITHOUT `patched()`: every `patched`
 * call answers true, as if the new code ran unguarded. Replaying a history recorded before the change against
 * it shows what the guard prevents.
 */
export * from '@temporalio/workflow';

/** Always the new path, also when replaying a history that never took it. */
export function patched(_patchId: string): boolean {
  return true;
}
