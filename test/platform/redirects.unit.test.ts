/** The redirect decision (`redirectStep`) as a table: each 3xx, method, Location and hop count. */
import { MAX_REDIRECTS, redirectStep } from '../../src/platform/redirects';

const at = new URL('https://platform.test/base/badge/v2/api/v1/orders');

type Row = readonly [
  status: number,
  method: 'GET' | 'POST',
  location: string | undefined,
  expected: { readonly to: string; readonly method: 'GET' | 'POST' } | RegExp,
];

const rows: readonly Row[] = [
  [307, 'POST', 'orders/', { to: 'https://platform.test/base/badge/v2/api/v1/orders/', method: 'POST' }],
  [308, 'POST', '/base/x?a=1', { to: 'https://platform.test/base/x?a=1', method: 'POST' }],
  [307, 'GET', '/base/x', { to: 'https://platform.test/base/x', method: 'GET' }],
  [
    303,
    'POST',
    '/base/badge/v2/api/v1/orders/5',
    { to: 'https://platform.test/base/badge/v2/api/v1/orders/5', method: 'GET' },
  ],
  [301, 'GET', '/moved', { to: 'https://platform.test/moved', method: 'GET' }],
  [302, 'GET', '/moved', { to: 'https://platform.test/moved', method: 'GET' }],
  [301, 'POST', '/moved', /^redirected to \/moved, but a POST is not sent again after 301$/],
  [302, 'POST', 'https://other.test/x?secret=1', /^redirected to https:\/\/other\.test, but a POST/],
  [300, 'GET', '/x', /^300 is no redirect the client follows$/],
  [304, 'GET', undefined, /^304 is no redirect/],
  [307, 'POST', undefined, /^redirected without a readable Location$/],
  [307, 'POST', 'http://platform.test/x', /^redirected from https to http \(http:\/\/platform\.test\)/],
  [
    307,
    'POST',
    'https://evil.platform.test/x',
    /^redirected to another origin \(https:\/\/evil\.platform\.test\)/,
  ],
  [
    303,
    'POST',
    'https://platform.test:8443/x',
    /^redirected to another origin \(https:\/\/platform\.test:8443\)/,
  ],
];

it.each(rows)('%i after a %s to %p', (status, method, location, expected) => {
  const step = redirectStep({ method, url: at, status, location, followed: 0 });
  if (expected instanceof RegExp) expect('refused' in step && step.refused).toMatch(expected);
  else expect('target' in step && { to: step.target.href, method: step.method }).toEqual(expected);
});

it(`stops after ${MAX_REDIRECTS} redirects in a row`, () => {
  const step = (followed: number) =>
    redirectStep({ method: 'POST', url: at, status: 307, location: '/base/y', followed });
  expect(step(MAX_REDIRECTS - 1)).toHaveProperty('target');
  expect(step(MAX_REDIRECTS)).toEqual({
    refused: `redirected more than ${MAX_REDIRECTS} times in a row (last to /base/y)`,
  });
});
