/**
 * Waiting for an observable condition (a query answer, the sandbox's state) instead of sleeping for a guessed
 * time. The interval only spaces the probes; the deadline only turns a hang into a clear failure.
 */
export async function waitFor<T>(
  probe: () => Promise<T>,
  until: (value: T) => boolean,
  options: { readonly timeoutMs?: number; readonly intervalMs?: number; readonly what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await probe();
      if (until(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
  throw new Error(
    `Timed out waiting for ${options.what ?? 'condition'}; last value: ${JSON.stringify(last)}; last error: ${String(lastError)}`,
  );
}
