/**
 * Replaying recorded histories against a variant of the workflow code: the real `src/workflows`, with some
 * imports of workflow code swapped for a test module at bundle time. So a test can show what a change without
 * `patched()`, or a new default, would do to orders already running, without a copy of the workflow.
 */
import type { temporal } from '@temporalio/proto';
import { Worker, type ReplayResult, type ReplayWorkerOptions } from '@temporalio/worker';
import { createDataConverter } from '../../../src/codec/data-converter';
import { PayloadKeyRing } from '../../../src/codec/key-ring';

/** One swap: imports written `request` (exactly), from files under `src/`, load `replacement` instead. */
export interface ImportSwap {
  readonly request: string;
  readonly replacement: string;
}

/** What webpack hands `beforeResolve`: the import as written and the importing file's folder. */
interface ResolveData {
  request: string;
  readonly context: string;
}

/** The part of webpack's compiler the swap uses (typed here: webpack is the SDK's dependency, not ours). */
interface Compiler {
  readonly hooks: {
    readonly normalModuleFactory: {
      tap(name: string, handler: (factory: NormalModuleFactory) => void): void;
    };
  };
}
interface NormalModuleFactory {
  readonly hooks: {
    readonly beforeResolve: { tap(name: string, handler: (data: ResolveData) => void): void };
  };
}

/** A webpack plugin that swaps the imports; the test modules' own imports are left alone. */
function importSwapPlugin(swaps: readonly ImportSwap[]): { apply(compiler: Compiler): void } {
  return {
    apply(compiler) {
      compiler.hooks.normalModuleFactory.tap('ImportSwap', (factory) => {
        factory.hooks.beforeResolve.tap('ImportSwap', (data) => {
          if (!/[\\/]src([\\/]|$)/.test(data.context)) return;
          const swap = swaps.find((candidate) => candidate.request === data.request);
          if (swap) data.request = swap.replacement;
        });
      });
    },
  };
}

/** A history to replay, named for the report. */
export interface NamedHistory {
  readonly workflowId: string;
  readonly history: temporal.api.history.v1.IHistory;
}

/**
 * Replays `histories` against `src/workflows` with `swaps` applied (none: the real code), decoding payloads
 * with `payloadKeys` (the recorded histories are unencrypted; a live stack's are not); `observe` adds sinks and
 * workflow interceptors that watch the replay.
 */
export async function replayVariant(
  histories: readonly NamedHistory[],
  swaps: readonly ImportSwap[] = [],
  payloadKeys: PayloadKeyRing = PayloadKeyRing.empty(),
  observe: Pick<ReplayWorkerOptions, 'sinks' | 'interceptors'> = {},
): Promise<ReplayResult[]> {
  const results: ReplayResult[] = [];
  const replay = Worker.runReplayHistories(
    {
      ...observe,
      workflowsPath: require.resolve('../../../src/workflows'),
      dataConverter: createDataConverter(payloadKeys),
      replayName: 'badge-order-variant-replay',
      bundlerOptions: {
        webpackConfigHook: (config) => ({
          ...config,
          plugins: [...(config.plugins ?? []), importSwapPlugin(swaps)],
        }),
      },
    },
    histories,
  );
  for await (const result of replay) results.push(result);
  return results;
}
