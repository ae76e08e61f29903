/**
 * Where an order's webhooks may go. Whoever may place orders names the `callbackUrl`, and the worker sends a
 * request there: without this policy that is a request forgery into the worker's network (loopback, the cloud's
 * metadata address, internal services). So a destination must be a public address, unless the operators name
 * the receiver in `WEBHOOK_ALLOWED_HOSTS` (or allow this machine for tests with `WEBHOOK_ALLOW_HTTP_LOOPBACK`).
 *
 * The HTTP API checks the URL when it accepts an order ({@link callbackUrlProblem}); the worker checks it again
 * at every delivery and checks each address the name resolves to ({@link destinationLookup}), and connects to
 * exactly the address it checked: a name that resolves to a public address for the check and to an internal
 * one for the connection (DNS rebinding) gains nothing.
 */
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { callbackUrlShapeProblem } from './contract';
import { bareHostname, isLoopbackHost } from './url-policy';

/** Where the workers deliver webhooks: their `WEBHOOK_ALLOW_HTTP_LOOPBACK` and `WEBHOOK_ALLOWED_HOSTS`. */
export interface CallbackUrlPolicy {
  /** Deliver to this machine (`http://` or `https://` to loopback): tests and local receivers. */
  readonly allowHttpLoopback: boolean;
  /**
   * Host names (`hooks.example.com`), IP addresses (IPv6 in `[ ]` with a port), or `*.example.com` (any name
   * below it), each on port 443 or the one it names (`hooks.example.com:8443`; `:*` every port, on purpose). When set, only these hosts and
   * ports receive webhooks, and they may be internal (the operators named them on purpose). Empty or left out:
   * any host whose addresses are public.
   */
  readonly allowedHosts?: readonly string[];
}

/** How each special-purpose range is named in a refusal. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  loopback: 'a loopback',
  private: 'a private (RFC 1918)',
  uniqueLocal: 'a unique local (ULA)',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a shared (CGNAT)',
  multicast: 'a multicast',
  unspecified: 'the unspecified',
  broadcast: 'the broadcast',
  ipv4Compatible: 'an IPv4-compatible',
};

/** ::/96 (`::a.b.c.d`, deprecated) only ever names an IPv4 address, though ipaddr.js counts it as unicast. */
const isIpv4Compatible = (address: ipaddr.IPv4 | ipaddr.IPv6): boolean =>
  address.kind() === 'ipv6' &&
  address
    .toByteArray()
    .slice(0, 12)
    .every((byte) => byte === 0);

/**
 * Why webhooks may not go to `address` (an IP address in any spelling ipaddr.js reads: dotted, hex, octal,
 * a single number, IPv6, IPv4-mapped), or null when they may: only global unicast addresses, and loopback
 * where `allowHttpLoopback`. Not for hosts the operators listed: those may be internal.
 */
function addressProblem(address: string, policy: CallbackUrlPolicy): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
    parsed = ipaddr.process(bareHostname(address));
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range() === 'unicast' && isIpv4Compatible(parsed) ? 'ipv4Compatible' : parsed.range();
  if (range === 'unicast' || (range === 'loopback' && policy.allowHttpLoopback)) return null;
  return `${parsed.toString()} is ${RANGE_NAMES[range] ?? 'a special-purpose'} address`;
}

/** A host name, or `*.` and a domain (an IPv4 address is one too): an entry of `allowedHosts` without its port. */
const HOST_NAME = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/;
/** An IPv6 address in `[ ]`, with a port (or `*`) or not. */
const BRACKETED_IPV6 = /^\[([0-9a-f:.]+)\](?::(\d{1,5}|\*))?$/;
/** The port of an `allowedHosts` entry that names none: an operator who lists a host opens its HTTPS port only. */
const DEFAULT_LISTED_PORT = 443;

/**
 * The host (lowercase, an IPv6 address bare) and port of an `allowedHosts` entry (see {@link CallbackUrlPolicy}),
 * or null when it is none: a host name, `*.domain`, an IPv4 address or an IPv6 address (in `[ ]` for a port),
 * then `:port`, `:*` (every port, said on purpose) or nothing (443).
 */
export function listedHost(entry: string): { readonly host: string; readonly port: number | '*' } | null {
  const text = entry.trim().toLowerCase();
  const bracketed = BRACKETED_IPV6.exec(text);
  const colon = text.lastIndexOf(':');
  const [host, portText] = bracketed
    ? [bracketed[1] ?? '', bracketed[2]]
    : isIP(text) === 6 || colon < 0
      ? [text, undefined]
      : [text.slice(0, colon), text.slice(colon + 1)];
  const valid = bracketed ? isIP(host) === 6 : HOST_NAME.test(host) || isIP(host) === 6;
  if (!valid) return null;
  if (portText === '*') return { host, port: '*' };
  const port =
    portText === undefined ? DEFAULT_LISTED_PORT : /^\d{1,5}$/.test(portText) ? Number(portText) : 0;
  return port >= 1 && port <= 65_535 ? { host, port } : null;
}

/**
 * Whether `hostname` (as `URL.hostname` gives it) on `port` matches one of `entries` (see
 * {@link CallbackUrlPolicy}); on any of their ports when `port` is not given.
 */
function isListed(hostname: string, entries: readonly string[], port?: number): boolean {
  const host = bareHostname(hostname);
  return entries.some((entry) => {
    const listed = listedHost(entry);
    if (listed === null || (port !== undefined && listed.port !== '*' && listed.port !== port)) return false;
    return listed.host.startsWith('*.') ? host.endsWith(listed.host.slice(1)) : host === listed.host;
  });
}

/** The port a URL connects to: its own, else its scheme's. */
const portOf = (url: URL): number =>
  url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);

const INTERNAL_HINT = 'internal receivers must be named in WEBHOOK_ALLOWED_HOSTS by the operators';

/**
 * Why `url` cannot receive an order's webhooks under `policy`, or null when it can (as far as the URL tells:
 * the addresses a name resolves to are checked at delivery). The shape first (`callbackUrlShapeProblem`), then
 * `http://` only with `allowHttpLoopback`, then the host list, then the host itself when it is an address or
 * `localhost`: the URL parser has already turned every numeric spelling (`0x7f000001`, `2130706433`,
 * `0177.0.0.1`, `[::ffff:127.0.0.1]`) into its canonical form.
 */
export function callbackUrlProblem(url: string, policy: CallbackUrlPolicy): string | null {
  const shape = callbackUrlShapeProblem(url);
  if (shape !== null) return shape;
  const parsed = new URL(url);
  const { protocol, hostname } = parsed;
  if (protocol === 'http:' && !policy.allowHttpLoopback) {
    return 'must be an https:// URL (http:// to this machine is switched off)';
  }
  const allowedHosts = policy.allowedHosts ?? [];
  if (allowedHosts.length > 0) {
    const port = portOf(parsed);
    return isListed(hostname, allowedHosts, port)
      ? null
      : `must be on a host this service delivers webhooks to (${isListed(hostname, allowedHosts) ? `port ${port} of ${hostname}` : hostname} is not one; ask its operators)`;
  }
  const host = bareHostname(hostname);
  // `localhost` and names below it are this machine, whatever a resolver says.
  const problem = ipaddr.isValid(host)
    ? addressProblem(host, policy)
    : isLoopbackHost(host) && !policy.allowHttpLoopback
      ? `${host} is this machine`
      : null;
  return problem === null ? null : `must lead to a public address (${problem}; ${INTERNAL_HINT})`;
}

/** Thrown (through the connection) when a callback host resolves to an address webhooks may not go to. */
export class WebhookDestinationError extends Error {
  override readonly name = 'WebhookDestinationError';
}

/** Resolves a host name to all its addresses (`dns.promises.lookup` with `all: true`, or a test's resolver). */
export type HostResolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/**
 * The `lookup` of a delivery's connection: resolves the host once, refuses when any of its addresses is not
 * allowed (a name that is partly internal is refused whole), and hands the connection exactly the addresses it
 * checked, so nothing resolves the name again between the check and the connection. For a listed host
 * (`WEBHOOK_ALLOWED_HOSTS`) the addresses are not checked, only pinned.
 */
export function destinationLookup(options: {
  readonly policy: CallbackUrlPolicy;
  readonly resolve: HostResolver;
}): LookupFunction {
  const { policy, resolve } = options;
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
          return;
        }
        // The URL's port was checked against the list before the connection asked for its addresses.
        if (!isListed(hostname, policy.allowedHosts ?? [])) {
          for (const { address } of addresses) {
            const problem = addressProblem(address, policy);
            if (problem !== null) {
              callback(
                new WebhookDestinationError(`${hostname} resolves to ${problem}; ${INTERNAL_HINT}`),
                [],
              );
              return;
            }
          }
        }
        const checked = addresses.map(({ address, family }) => ({ address, family }));
        if (lookupOptions.all === true) callback(null, checked);
        else callback(null, checked[0]?.address ?? '', checked[0]?.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), []),
    );
  };
}
