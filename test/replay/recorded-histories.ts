/**
 * The recorded histories of test/histories: one folder per released version (`test/histories/<version>/`),
 * each holding `<scenario>.json` as written by `npm run histories:export` with that version's code. The replay
 * tests read every folder, so an order started on any release kept here must replay on the current code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';

/** Where the version folders are. */
export const HISTORIES_DIR = join(__dirname, '..', 'histories');

/** One recorded history, named `<version>/<scenario>` (the replay worker reports it as the workflow id). */
export interface RecordedHistory {
  readonly version: string;
  readonly scenario: string;
  readonly workflowId: string;
  readonly history: temporal.api.history.v1.History;
}

/** The version folders, oldest first by semantic version. */
export function historyVersions(): string[] {
  return readdirSync(HISTORIES_DIR)
    .filter((entry) => statSync(join(HISTORIES_DIR, entry)).isDirectory())
    .sort(compareVersions);
}

/** `a` before `b` when its version is lower (numeric parts compared as numbers). */
export function compareVersions(a: string, b: string): number {
  const parts = (version: string): number[] =>
    version.split(/[.+-]/).map((part) => (/^\d+$/.test(part) ? Number(part) : 0));
  const left = parts(a);
  const right = parts(b);
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return a.localeCompare(b);
}

/**
 * Every recorded history of every version (or of the given ones). The files hold `JSON.stringify(history)` of
 * the fetched history (protobufjs' JSON form); `fromObject` reads it back, because the SDK's own
 * `historyFromJSON` fails under jest (two copies of protobufjs in the module registry).
 */
export function recordedHistories(versions: readonly string[] = historyVersions()): RecordedHistory[] {
  return versions.flatMap((version) =>
    readdirSync(join(HISTORIES_DIR, version))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => {
        const scenario = file.replace(/\.json$/, '');
        return {
          version,
          scenario,
          workflowId: `${version}/${scenario}`,
          history: temporal.api.history.v1.History.fromObject(
            JSON.parse(readFileSync(join(HISTORIES_DIR, version, file), 'utf8')) as Record<string, unknown>,
          ),
        };
      }),
  );
}

/** The workflow type a history records (from its first event). */
export function workflowTypeOf(history: temporal.api.history.v1.History): string | undefined {
  return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? undefined;
}
