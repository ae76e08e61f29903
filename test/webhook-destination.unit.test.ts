/**
 * Where webhooks may go: the URL rules the API and the worker apply, every spelling of an internal address, and
 * the delivery's lookup (each resolved address checked, exactly those handed to the connection). No network:
 * the resolvers here are functions.
 */
import type { LookupAddress } from 'node:dns';
import {
  callbackUrlProblem,
  destinationLookup,
  listedHost,
  WebhookDestinationError,
} from '../src/webhook-destination';
import { answering } from './helpers/host-resolver';

const PUBLIC = { allowHttpLoopback: false };
const HINT = 'internal receivers must be named in WEBHOOK_ALLOWED_HOSTS by the operators';
const internal = (what: string): string => `must lead to a public address (${what}; ${HINT})`;

describe('callbackUrlProblem', () => {
  it.each([
    ['https://hooks.example/orders?tenant=7', true, null],
    ['https://93.184.215.14/hooks', false, null],
    ['https://[2606:4700::1]/hooks', false, null],
    ['http://127.0.0.1:8080/hooks', true, null],
    ['http://[::1]/hooks', true, null],
    ['http://localhost/hooks', false, 'must be an https:// URL (http:// to this machine is switched off)'],
    ['http://hooks.example/orders', true, 'must be an https:// URL (http:// only to this machine)'],
    ['ftp://hooks.example/orders', true, 'must be an https:// URL'],
    ['https://user:pw@hooks.example/', true, 'must not contain credentials (user:password@)'],
    ['https://hooks.example/#top', true, 'must not contain a fragment (#…)'],
    ['/relative/path', true, 'must be an absolute URL'],
  ])('%s (this machine allowed: %s) → %s', (url, allowHttpLoopback, problem) => {
    expect(callbackUrlProblem(url, { allowHttpLoopback })).toBe(problem);
  });

  // The review's list, and the other ranges and spellings that lead to the same places.
  it.each([
    ['https://127.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://127.1/', '127.0.0.1 is a loopback address'],
    ['https://0x7f000001/', '127.0.0.1 is a loopback address'],
    ['https://2130706433/', '127.0.0.1 is a loopback address'],
    ['https://0177.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://0x7f.0.0.1/', '127.0.0.1 is a loopback address'],
    ['https://[::1]/', '::1 is a loopback address'],
    ['https://[::ffff:127.0.0.1]/', '127.0.0.1 is a loopback address'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', '127.0.0.1 is a loopback address'],
    ['https://[::127.0.0.1]/', '::7f00:1 is an IPv4-compatible address'],
    ['https://localhost/', 'localhost is this machine'],
    ['https://api.localhost/', 'api.localhost is this machine'],
    ['https://0.0.0.0/', '0.0.0.0 is the unspecified address'],
    ['https://0/', '0.0.0.0 is the unspecified address'],
    ['https://[::]/', ':: is the unspecified address'],
    ['https://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address'],
    ['https://[fe80::1]/', 'fe80::1 is a link-local address'],
    ['https://10.0.0.7/', '10.0.0.7 is a private (RFC 1918) address'],
    ['https://172.16.5.4/', '172.16.5.4 is a private (RFC 1918) address'],
    ['https://192.168.1.1/', '192.168.1.1 is a private (RFC 1918) address'],
    ['https://0xc0a80101/', '192.168.1.1 is a private (RFC 1918) address'],
    ['https://[::ffff:10.0.0.7]/', '10.0.0.7 is a private (RFC 1918) address'],
    ['https://[fd12:3456::1]/', 'fd12:3456::1 is a unique local (ULA) address'],
    ['https://100.64.0.1/', '100.64.0.1 is a shared (CGNAT) address'],
    ['https://224.0.0.1/', '224.0.0.1 is a multicast address'],
    ['https://[ff02::1]/', 'ff02::1 is a multicast address'],
    ['https://255.255.255.255/', '255.255.255.255 is the broadcast address'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1 is a special-purpose address'],
  ])('refuses %s: %s', (url, what) => {
    expect(callbackUrlProblem(url, PUBLIC)).toBe(internal(what));
  });

  it('allows this machine with WEBHOOK_ALLOW_HTTP_LOOPBACK, and nothing else internal', () => {
    const local = { allowHttpLoopback: true };
    expect(callbackUrlProblem('https://0x7f000001:8443/', local)).toBeNull();
    expect(callbackUrlProblem('http://localhost:8080/', local)).toBeNull();
    expect(callbackUrlProblem('https://10.0.0.7/', local)).toBe(
      internal('10.0.0.7 is a private (RFC 1918) address'),
    );
  });

  const allowedHosts = [
    'hooks.example.com',
    '*.partner.example',
    '127.0.0.1:8080',
    '10.0.0.7',
    '2001:db8::7',
  ];
  const notListed = (host: string): string =>
    `must be on a host this service delivers webhooks to (${host} is not one; ask its operators)`;
  it.each([
    ['https://hooks.example.com/orders', null],
    ['https://HOOKS.example.com:443/orders', null],
    // A listed host is listed on its HTTPS port, 443, unless the entry names another.
    ['https://hooks.example.com:8443/orders', notListed('port 8443 of hooks.example.com')],
    ['https://hooks.example.com:22/orders', notListed('port 22 of hooks.example.com')],
    ['https://eu.orders.partner.example/hooks', null],
    ['https://partner.example/hooks', notListed('partner.example')],
    ['https://evilpartner.example/hooks', notListed('evilpartner.example')],
    ['https://hooks.example.com.evil.example/', notListed('hooks.example.com.evil.example')],
    // Listed on purpose: an internal receiver the operators named, in any spelling of its address.
    ['https://10.0.0.7/hooks', null],
    ['https://0x0a000007/hooks', null],
    ['https://10.0.0.8/hooks', notListed('10.0.0.8')],
    ['https://[2001:db8::7]/hooks', null],
    ['http://127.0.0.1:8080/hooks', null],
    ['http://127.0.0.1/hooks', notListed('port 80 of 127.0.0.1')],
    ['https://127.0.0.1/hooks', notListed('port 443 of 127.0.0.1')],
    ['https://10.0.0.7:6379/hooks', notListed('port 6379 of 10.0.0.7')],
    ['https://[2001:db8::7]:8443/hooks', notListed('port 8443 of [2001:db8::7]')],
    ['http://localhost/hooks', notListed('localhost')],
  ])('%s with WEBHOOK_ALLOWED_HOSTS → %s', (url, problem) => {
    expect(callbackUrlProblem(url, { allowHttpLoopback: true, allowedHosts })).toBe(problem);
  });

  it.each([
    ['hooks.example.com:8443', 'https://hooks.example.com:8443/x', 'https://hooks.example.com/x'],
    ['*.partner.example:9443', 'https://eu.partner.example:9443/x', 'https://eu.partner.example/x'],
    ['10.0.0.7:8443', 'https://10.0.0.7:8443/x', 'https://10.0.0.7/x'],
    ['[2001:db8::7]:8443', 'https://[2001:db8::7]:8443/x', 'https://[2001:db8::7]/x'],
    ['[2001:db8::7]', 'https://[2001:db8::7]/x', 'https://[2001:db8::7]:8443/x'],
  ])('opens only the port an entry names: %s lets %s through, not %s', (entry, open, closed) => {
    const policy = { allowHttpLoopback: false, allowedHosts: [entry] };
    expect(callbackUrlProblem(open, policy)).toBeNull();
    expect(callbackUrlProblem(closed, policy)).toMatch(
      /^must be on a host this service delivers webhooks to \(port/,
    );
  });

  it('reads each entry as a host and a port, refusing what is neither', () => {
    expect(listedHost(' Hooks.Example.com ')).toEqual({ host: 'hooks.example.com', port: 443 });
    expect(listedHost('hooks.example.com:8443')).toEqual({ host: 'hooks.example.com', port: 8443 });
    expect(listedHost('2001:db8::7')).toEqual({ host: '2001:db8::7', port: 443 });
    expect(listedHost('[2001:db8::7]:8443')).toEqual({ host: '2001:db8::7', port: 8443 });
    // Every port of a host, said on purpose (tests: receivers on ports of their own).
    expect(listedHost('127.0.0.1:*')).toEqual({ host: '127.0.0.1', port: '*' });
    expect(listedHost('[::1]:*')).toEqual({ host: '::1', port: '*' });
    const everyPort = { allowHttpLoopback: true, allowedHosts: ['127.0.0.1:*'] };
    expect(callbackUrlProblem('http://127.0.0.1:39217/x', everyPort)).toBeNull();
    expect(callbackUrlProblem('https://127.0.0.1/x', everyPort)).toBeNull();
    expect(callbackUrlProblem('http://127.0.0.2:39217/x', everyPort)).toMatch(/\(127\.0\.0\.2 is not one/);
    for (const entry of [
      'hooks.example.com:0',
      'hooks.example.com:70000',
      'hooks.example.com:',
      'https://x/y',
      '[10.0.0.1]:1',
      'a b',
    ]) {
      expect(listedHost(entry)).toBeNull();
    }
  });

  it('checks the scheme before the host list', () => {
    expect(callbackUrlProblem('http://localhost/hooks', { allowHttpLoopback: false, allowedHosts })).toBe(
      'must be an https:// URL (http:// to this machine is switched off)',
    );
  });
});

describe('destinationLookup', () => {
  /** Calls the lookup as node's connection does, with `all: true`. */
  function lookUp(
    lookup: ReturnType<typeof destinationLookup>,
    hostname: string,
  ): Promise<readonly LookupAddress[]> {
    return new Promise((resolve, reject) => {
      lookup(hostname, { all: true }, (error, addresses) => {
        if (error) reject(error);
        else resolve(addresses as LookupAddress[]);
      });
    });
  }

  const v4 = (address: string): LookupAddress => ({ address, family: 4 });
  const v6 = (address: string): LookupAddress => ({ address, family: 6 });

  it.each([
    [[v4('127.0.0.1')], '127.0.0.1 is a loopback address'],
    [[v6('::ffff:127.0.0.1')], '127.0.0.1 is a loopback address'],
    [[v6('::ffff:7f00:1')], '127.0.0.1 is a loopback address'],
    [[v4('169.254.169.254')], '169.254.169.254 is a link-local address'],
    [[v4('10.1.2.3')], '10.1.2.3 is a private (RFC 1918) address'],
    [[v4('100.100.100.200')], '100.100.100.200 is a shared (CGNAT) address'],
    [[v6('fd00::5')], 'fd00::5 is a unique local (ULA) address'],
    [[v4('0.0.0.0')], '0.0.0.0 is the unspecified address'],
    // One internal address among public ones refuses the name whole.
    [[v4('93.184.215.14'), v4('10.0.0.1')], '10.0.0.1 is a private (RFC 1918) address'],
  ])('refuses a name that resolves to %j', async (addresses, what) => {
    const resolver = answering(addresses);
    const lookup = destinationLookup({ policy: PUBLIC, resolve: resolver });
    const refusal = lookUp(lookup, 'hooks.example');
    await expect(refusal).rejects.toBeInstanceOf(WebhookDestinationError);
    await expect(refusal).rejects.toThrow(`hooks.example resolves to ${what}; ${HINT}`);
  });

  it('hands the connection exactly the addresses it checked: a rebinding resolver gains nothing', async () => {
    // Public for the first question, loopback for the next: the answer that was checked is the one used.
    const resolver = answering([v4('93.184.215.14')], [v4('127.0.0.1')]);
    const lookup = destinationLookup({ policy: PUBLIC, resolve: resolver });
    await expect(lookUp(lookup, 'rebind.example')).resolves.toEqual([v4('93.184.215.14')]);
    expect(resolver.calls).toBe(1);
    // The next connection asks again, and is refused.
    await expect(lookUp(lookup, 'rebind.example')).rejects.toBeInstanceOf(WebhookDestinationError);
    expect(resolver.calls).toBe(2);
  });

  it('answers a single address when the connection does not ask for all', async () => {
    const resolver = answering([v6('2606:4700::1'), v4('93.184.215.14')]);
    const lookup = destinationLookup({ policy: PUBLIC, resolve: resolver });
    const answer = await new Promise<unknown[]>((resolve) => {
      lookup('hooks.example', {}, (...args) => resolve(args));
    });
    expect(answer).toEqual([null, '2606:4700::1', 6]);
  });

  it('pins but does not judge a host the operators listed', async () => {
    const resolver = answering([v4('10.0.0.7')]);
    const lookup = destinationLookup({
      policy: { allowHttpLoopback: false, allowedHosts: ['billing.internal.example'] },
      resolve: resolver,
    });
    await expect(lookUp(lookup, 'billing.internal.example')).resolves.toEqual([v4('10.0.0.7')]);
  });
});
