/**
 * Summarises V8 CPU profiles (`--cpu-prof`) of the worker processes into where their time goes: self time by
 * package (`node_modules/<pkg>`), by folder of our own code (`src/<folder>`), Node internals, the workflow
 * bundle (by the module each line belongs to), and the garbage collector. `summariseProfile` is pure; `summariseProfileDir` reads the files.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a `.cpuprofile` file that the summary reads. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber?: number };
  }[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  /** Microseconds between consecutive samples (the first from `startTime`). */
  readonly timeDeltas?: readonly number[];
}

/** Self time of one bucket. */
export interface ProfileBucket {
  readonly bucket: string;
  readonly selfMs: number;
  /** Share of the profiles' busy (non-idle) time. */
  readonly share: number;
}

/** Where each module of a webpack workflow bundle starts: 0-based line and module id, in line order. */
export type BundleIndex = readonly { readonly line: number; readonly module: string }[];

const RUNTIME = '(webpack runtime)';

/** The bucket of the SDK's per-promise stack capture in the workflow sandbox (`vm-shared.js`). */
const SDK_PROMISE_HOOK = '@temporalio/worker: promise stacks';

/**
 * Indexes a workflow bundle by the `/***\/ "<module id>"` lines webpack writes before each module, the
 * `;// <module id>` and `// MODULE: <module id>` lines before each part of a scope-hoisted module, and its
 * runtime's `/******\/` lines.
 */
export function indexBundle(code: string): BundleIndex {
  const index: { line: number; module: string }[] = [];
  code.split('\n').forEach((text, line) => {
    const match = /^(?:\/\*{3}\/ "([^"]+)"|(?:;\/\/|\/\/ MODULE:) (\.\/\S+)$)/.exec(text);
    const module = match?.[1] ?? match?.[2];
    if (module) index.push({ line, module });
    // webpack prefixes its own runtime's lines with /******/.
    else if (text.startsWith('/******/') && index[index.length - 1]?.module !== RUNTIME) {
      index.push({ line, module: RUNTIME });
    }
  });
  return index;
}

/** The bucket of a line of a bundle: `bundle: <package>` or `bundle: src/<folder>`; webpack's runtime after the last module. */
export function bundleBucket(index: BundleIndex, line: number): string {
  let found: string | undefined;
  for (const entry of index) {
    if (entry.line > line) break;
    found = entry.module;
  }
  if (found === undefined || found === RUNTIME) return 'bundle: webpack runtime';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(found);
  if (modules?.[1]) return `bundle: ${modules[1]}`;
  const parts = found.replace(/^\.\//, '').split('/');
  return `bundle: ${parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts.join('/')}`;
}

/** Which bucket a frame's time belongs to. */
export function bucketOf(
  functionName: string,
  url: string,
  projectRoot: string,
  bundles?: ReadonlyMap<string, BundleIndex>,
  line = 0,
): string {
  if (url === '') {
    if (functionName === '(garbage collector)' || functionName === '(program)' || functionName === '(idle)') {
      return functionName;
    }
    // Native frames may be named by a whole regular expression; keep the start.
    return `(native) ${(functionName || 'anonymous').slice(0, 40)}`;
  }
  const bundle = bundles?.get(url);
  if (bundle) return bundleBucket(bundle, line);
  // The SDK captures a stack trace for every promise workflow code creates (for the stack trace query): a cost
  // that grows with the workflow's promises, not with Temporal's work, so it gets a bucket of its own.
  if (/@temporalio\/worker\/lib\/workflow\/vm-shared\.js$/.test(url)) return SDK_PROMISE_HOOK;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules?.[1]) return modules[1];
  if (url.startsWith('node:')) {
    const parts = url.split('/');
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : url;
  }
  const path = url.replace(/^file:\/\//, '');
  if (path.startsWith(projectRoot)) {
    const parts = path.slice(projectRoot.length).replace(/^\//, '').split('/');
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts.join('/');
  }
  if (/bundle/.test(url)) return 'workflow bundle';
  if (url.startsWith('evalmachine')) return 'workflow sandbox (vm)';
  return 'other';
}

/** A span of the monotonic clock (`process.hrtime`), in microseconds, as V8 profiles time their samples. */
export type TimeWindowUs = readonly [number, number];

/**
 * Adds the self time of the profile's samples to their buckets: each sample weighs the time since the
 * previous one. With `windows`, only samples inside one of them count (V8 stamps samples with the same
 * monotonic clock as `process.hrtime`, so windows from the bench process apply).
 */
export function addProfile(
  totals: Map<string, number>,
  profile: CpuProfile,
  projectRoot: string,
  windows?: readonly TimeWindowUs[],
  bundles?: ReadonlyMap<string, BundleIndex>,
): void {
  const buckets = new Map<number, string>();
  for (const { id, callFrame } of profile.nodes) {
    buckets.set(
      id,
      bucketOf(callFrame.functionName, callFrame.url, projectRoot, bundles, callFrame.lineNumber),
    );
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let time = profile.startTime;
  samples.forEach((nodeId, index) => {
    const delta = deltas[index] ?? 0;
    time += delta;
    if (windows && !windows.some(([from, to]) => time >= from && time <= to)) return;
    const bucket = buckets.get(nodeId) ?? 'other';
    totals.set(bucket, (totals.get(bucket) ?? 0) + delta / 1000);
  });
}

/** Buckets by self time, largest first, shares of busy time (idle excluded); `limit` buckets at most. */
export function summariseProfile(totals: ReadonlyMap<string, number>, limit = 15): ProfileBucket[] {
  const busy = [...totals].filter(([bucket]) => bucket !== '(idle)');
  const busyMs = busy.reduce((sum, [, ms]) => sum + ms, 0);
  return busy
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([bucket, selfMs]) => ({ bucket, selfMs, share: busyMs === 0 ? 0 : selfMs / busyMs }));
}

/**
 * Summarises every `.cpuprofile` in `dir` (all threads of all processes together), counting only samples in
 * `windows` when given; [] when there is none.
 */
export function summariseProfileDir(
  dir: string,
  projectRoot: string,
  windows?: readonly TimeWindowUs[],
  bundles?: ReadonlyMap<string, BundleIndex>,
  limit = 15,
): ProfileBucket[] {
  if (!existsSync(dir)) return [];
  const totals = new Map<string, number>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    addProfile(totals, profile, projectRoot, windows, bundles);
  }
  return summariseProfile(totals, limit);
}
