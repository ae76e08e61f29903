/**
 * `tsx tools/build-workflow-bundle.ts [--out bundle/workflows.js]`: bundles the workflow code ahead of
 * time (the container image does this at build time), so a worker started with `WORKFLOW_BUNDLE_PATH=<out>`
 * needs neither webpack nor the TypeScript sources at run time. The bundle carries the failure converter of
 * the worker's data converter (src/codec/data-converter.ts), as bundling at start-up would.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { buildServiceBundle, WORKFLOWS_PATH } from '../src/workflow-bundle';

/** Where the workflows live and where the bundle goes. */
export interface BuildWorkflowBundleOptions {
  /** File to write (folders are created). */
  readonly outFile: string;
  /** The workflows module. @default src/workflows (the worker's `workflowsPath`) */
  readonly workflowsPath?: string;
}

/** What {@link buildWorkflowBundle} wrote. */
export interface BuildWorkflowBundleResult {
  readonly outFile: string;
  readonly bytes: number;
}

/** Default workflows module: the same one the worker bundles at start-up when no bundle is given. */
export const DEFAULT_WORKFLOWS_PATH = WORKFLOWS_PATH;

/** Bundles the workflows and writes the code to `outFile`; throws when bundling fails. */
export async function buildWorkflowBundle(
  options: BuildWorkflowBundleOptions,
): Promise<BuildWorkflowBundleResult> {
  const outFile = resolve(options.outFile);
  // Interceptors and the failure converter too: a prebuilt bundle must carry them (the SDK cannot add them).
  const { code } = await buildServiceBundle({
    workflowsPath: options.workflowsPath ?? DEFAULT_WORKFLOWS_PATH,
  });
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, code);
  return { outFile, bytes: Buffer.byteLength(code) };
}

async function main(argv: readonly string[]): Promise<void> {
  const program = new Command('build-workflow-bundle')
    .description('Bundle the workflow code for WORKFLOW_BUNDLE_PATH')
    .option('--out <file>', 'bundle file to write', 'bundle/workflows.js')
    .option('--workflows <path>', 'workflows module', DEFAULT_WORKFLOWS_PATH);
  program.parse(argv);
  const options = program.opts<{ out: string; workflows: string }>();
  const result = await buildWorkflowBundle({ outFile: options.out, workflowsPath: options.workflows });
  console.log(`workflow bundle written to ${result.outFile} (${result.bytes} bytes)`);
}

if (require.main === module) {
  main(process.argv).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}
