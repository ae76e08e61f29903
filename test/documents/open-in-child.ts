/**
 * Runs one document check in its own process and prints the outcome as JSON, so a test can run it with fewer
 * privileges than the test runner has (as root, permission bits deny nothing).
 *
 * Usage: `open-in-child.ts <open|assert-root> <root> [relativePath]`
 */
import { assertDocumentsRootReadable, createDocumentsRoot } from '../../src/documents';

/** What the child prints. */
export type ChildOutcome =
  | { readonly ok: true; readonly sizeBytes?: number }
  | {
      readonly ok: false;
      readonly name: string;
      readonly code: string | undefined;
      readonly fsCode: string | undefined;
      readonly message: string;
    };

async function main(): Promise<ChildOutcome> {
  const [mode, root, relativePath] = process.argv.slice(2);
  if (root === undefined) throw new Error('usage: open-in-child.ts <open|assert-root> <root> [relativePath]');
  try {
    if (mode === 'assert-root') {
      await assertDocumentsRootReadable(root);
      return { ok: true };
    }
    const document = await createDocumentsRoot({ root, maxBytes: 1024 }).open(relativePath ?? '');
    await document.close();
    return { ok: true, sizeBytes: document.sizeBytes };
  } catch (error) {
    const { name, message, code, fsCode } = error as Error & { code?: string; fsCode?: string };
    return { ok: false, name, message, code, fsCode };
  }
}

main().then(
  (outcome) => process.stdout.write(`${JSON.stringify(outcome)}\n`),
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exitCode = 1;
  },
);
