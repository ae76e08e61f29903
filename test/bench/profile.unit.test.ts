import {
  addProfile,
  bucketOf,
  bundleBucket,
  indexBundle,
  summariseProfile,
  type CpuProfile,
} from '../../bench/profile';

const ROOT = '/work/project';

describe('bucketOf', () => {
  it('groups frames by package, our folders, Node internals and V8 pseudo-frames', () => {
    expect(bucketOf('f', `file://${ROOT}/node_modules/@temporalio/worker/lib/worker.js`, ROOT)).toBe(
      '@temporalio/worker',
    );
    expect(bucketOf('f', `${ROOT}/node_modules/axios/lib/axios.js`, ROOT)).toBe('axios');
    expect(bucketOf('f', `file://${ROOT}/src/platform/http.ts`, ROOT)).toBe('src/platform');
    expect(bucketOf('f', `file://${ROOT}/bench/floor/activities.ts`, ROOT)).toBe('bench/floor');
    expect(bucketOf('f', 'node:internal/streams/readable', ROOT)).toBe('node:internal/streams');
    expect(bucketOf('(garbage collector)', '', ROOT)).toBe('(garbage collector)');
    expect(bucketOf('postMessage', '', ROOT)).toBe('(native) postMessage');
    expect(bucketOf('f', 'file:///tmp/x/badge-bundle.js', ROOT)).toBe('workflow bundle');
  });

  it('gives the SDK stack capture of workflow promises a bucket of its own', () => {
    expect(bucketOf('init', `${ROOT}/node_modules/@temporalio/worker/lib/workflow/vm-shared.js`, ROOT)).toBe(
      '@temporalio/worker: promise stacks',
    );
  });
});

describe('addProfile and summariseProfile', () => {
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(idle)', url: '' } },
      { id: 2, callFrame: { functionName: 'send', url: `${ROOT}/node_modules/axios/index.js` } },
      { id: 3, callFrame: { functionName: '(garbage collector)', url: '' } },
    ],
    startTime: 1_000_000,
    endTime: 1_010_000,
    // Samples at 1_001_000 (axios), 1_003_000 (gc), 1_006_000 (axios), 1_010_000 (idle).
    samples: [2, 3, 2, 1],
    timeDeltas: [1_000, 2_000, 3_000, 4_000],
  };

  it('weighs each sample by the time since the previous one and leaves idle out of the shares', () => {
    const totals = new Map<string, number>();
    addProfile(totals, profile, ROOT);
    expect(Object.fromEntries(totals)).toEqual({ axios: 4, '(garbage collector)': 2, '(idle)': 4 });
    expect(summariseProfile(totals)).toEqual([
      { bucket: 'axios', selfMs: 4, share: 4 / 6 },
      { bucket: '(garbage collector)', selfMs: 2, share: 2 / 6 },
    ]);
  });

  it('counts only samples inside the windows when given', () => {
    const totals = new Map<string, number>();
    addProfile(totals, profile, ROOT, [[1_002_000, 1_007_000]]);
    expect(Object.fromEntries(totals)).toEqual({ '(garbage collector)': 2, axios: 3 });
  });
});

describe('workflow bundle modules', () => {
  const code = [
    '(() => {',
    '/***/ "./node_modules/zod/v4/core/core.js"',
    'function $constructor() {}',
    '/***/ "./src/workflows/badge-order.ts"',
    'async function badgeOrder() {}',
    '/***/ "./node_modules/@temporalio/workflow/lib/worker-interface.js"',
    'function activate() {}',
    '/***/ "./src/workflows/index.ts"',
    '// MODULE: ./src/contract.ts',
    'const contract = 1;',
    ';// ./src/failure-types.ts',
    'const FAILURE_TABLE = {};',
    '/******/ function __webpack_require__() {}',
    '/******/ // more runtime',
  ].join('\n');
  const index = indexBundle(code);

  it('indexes where each module starts, and each part of a scope-hoisted one', () => {
    expect(index).toEqual([
      { line: 1, module: './node_modules/zod/v4/core/core.js' },
      { line: 3, module: './src/workflows/badge-order.ts' },
      { line: 5, module: './node_modules/@temporalio/workflow/lib/worker-interface.js' },
      { line: 7, module: './src/workflows/index.ts' },
      { line: 8, module: './src/contract.ts' },
      { line: 10, module: './src/failure-types.ts' },
      { line: 12, module: '(webpack runtime)' },
    ]);
  });

  it('names the package or folder a bundle line belongs to', () => {
    expect(bundleBucket(index, 0)).toBe('bundle: webpack runtime');
    expect(bundleBucket(index, 2)).toBe('bundle: zod');
    expect(bundleBucket(index, 4)).toBe('bundle: src/workflows');
    expect(bundleBucket(index, 6)).toBe('bundle: @temporalio/workflow');
    expect(bundleBucket(index, 9)).toBe('bundle: src/contract.ts');
    expect(bundleBucket(index, 11)).toBe('bundle: src/failure-types.ts');
    expect(bundleBucket(index, 13)).toBe('bundle: webpack runtime');
    const bundles = new Map([['file:///tmp/b/badge-bundle.js', index]]);
    expect(bucketOf('f', 'file:///tmp/b/badge-bundle.js', ROOT, bundles, 2)).toBe('bundle: zod');
  });
});
