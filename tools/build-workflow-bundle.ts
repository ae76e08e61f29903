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
import { runMain } from '../src/main/run-main';

async function main(argv: readonly string[]): Promise<void> {
  const program = new Command('build-workflow-bundle')
    .description('Bundle the workflow code for WORKFLOW_BUNDLE_PATH')
    .option('--out <file>', 'bundle file to write', 'bundle/workflows.js')
    // The same module the worker bundles at start-up when it is given no bundle.
    .option('--workflows <path>', 'workflows module', WORKFLOWS_PATH);
  program.parse(argv);
  const options = program.opts<{ out: string; workflows: string }>();
  const outFile = resolve(options.out);
  // Interceptors and the failure converter too: a prebuilt bundle must carry them (the SDK cannot add them).
  const { code } = await buildServiceBundle({ workflowsPath: options.workflows });
  await mkdir(dirname(outFile), { recursive: true });
  await writeFile(outFile, code);
  console.log(`workflow bundle written to ${outFile} (${Buffer.byteLength(code)} bytes)`);
}

if (require.main === module) {
  runMain(() => main(process.argv));
}
