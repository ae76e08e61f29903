/**
 * The one URL policy of every process: which hosts are this machine, and when a URL that carries credentials,
 * keys or documents may be used (`https://`, or `http://` only to this machine unless allowed explicitly).
 */
import ipaddr from 'ipaddr.js';

/** A host as written in a URL or a host list, compared bare: lowercase, an IPv6 address without `[ ]`. */
export function bareHostname(hostname: string): string {
  return hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

/** Whether `host` is this machine: `localhost` and names below it, 127.0.0.0/8, `::1` (bracketed or not). */
export function isLoopbackHost(host: string): boolean {
  const bare = bareHostname(host);
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  // An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/** What a URL's refusal says, by its use. */
interface SecureUrlUse {
  /** `http://` anywhere, said on purpose (a variable such as `BADGE_ALLOW_INSECURE_HTTP`). @default false */
  readonly allowInsecureHttp?: boolean;
  /** What travels in clear and the variable that allows it, e.g. `{ what: 'documents', variable: '…' }`. */
  readonly inClear?: { readonly what: string; readonly variable: string };
  /** Where credentials belong instead of the URL, e.g. `use BADGE_USERNAME and BADGE_PASSWORD`. */
  readonly credentialsHint?: string;
}

/**
 * Why `text` may not be used as a URL that carries secrets, or `undefined` when it may: `https://`, or
 * `http://` to this machine, or `http://` anywhere with `allowInsecureHttp`; never with `user:password@`.
 */
export function insecureUrlProblem(text: string, use: SecureUrlUse = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be a URL';
  }
  if (url.username !== '' || url.password !== '') {
    return `must not contain credentials (user:password@)${use.credentialsHint ? `: ${use.credentialsHint}` : ''}`;
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'must be an http:// or https:// URL';
  if (use.allowInsecureHttp === true || isLoopbackHost(url.hostname)) return undefined;
  return use.inClear === undefined
    ? 'must be an https:// URL (http:// only on loopback)'
    : `sends ${use.inClear.what} in clear over http:// to ${url.hostname}: use https://, or set ${use.inClear.variable}=true`;
}

/** The origin of a URL (`https://host:port`), never its credentials, path or query: what logs may show. */
export function urlOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}
