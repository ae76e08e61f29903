/**
 * Redirects by their meaning (RFC 9110 §15.4): the one decision whether the client follows a 3xx, and how.
 * `PlatformHttp.send` carries it out; the failure table (`REDIRECTED`, and `UNEXPECTED_RESPONSE` for a 303)
 * says what a redirect that is not followed means.
 *
 * - 307 and 308 say the request was not processed and is to be repeated at `Location`: followed with the same
 *   method and body (an upload's file read again).
 * - 303 says the request was processed and its result is at `Location`: read with a GET.
 * - 301 and 302 let a client turn a POST into a GET (§15.4.2–3), which would drop the body: followed by a GET
 *   only; after a POST nothing was processed and nothing is sent again.
 * - Only on the platform's own origin: the bearer token (and the body) never go to another host, port or
 *   scheme, so never from https to http either. At most {@link MAX_REDIRECTS} in a row.
 */

/** Most redirects one call follows in a row. */
export const MAX_REDIRECTS = 5;

/** What to do with a 3xx answer: send the request to `target` with `method`, or not (and why not). */
export type RedirectStep =
  { readonly target: URL; readonly method: 'GET' | 'POST' } | { readonly refused: string };

/**
 * The step for one 3xx answer.
 * @param answered the request's method, the URL that answered (on the platform's origin), the status and its
 *   `Location`, and how many redirects were followed before
 */
export function redirectStep(answered: {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly status: number;
  readonly location: string | undefined;
  readonly followed: number;
}): RedirectStep {
  const { method, url, status, location } = answered;
  const target = location === undefined ? null : URL.parse(location, url.href);
  // Another origin is named by its origin only: its path and query may carry anything.
  const shown =
    target === null ? 'no readable Location' : target.origin === url.origin ? target.pathname : target.origin;
  const repeat = status === 307 || status === 308;
  const read = status === 303 || (method === 'GET' && (status === 301 || status === 302));
  if (!repeat && !read) {
    return {
      refused:
        status === 301 || status === 302
          ? `redirected to ${shown}, but a ${method} is not sent again after ${status}`
          : `${status} is no redirect the client follows`,
    };
  }
  if (target === null) return { refused: 'redirected without a readable Location' };
  if (url.protocol === 'https:' && target.protocol === 'http:') {
    return { refused: `redirected from https to http (${target.origin}); not followed` };
  }
  if (target.origin !== url.origin) {
    return { refused: `redirected to another origin (${target.origin}); not followed with credentials` };
  }
  if (answered.followed >= MAX_REDIRECTS) {
    return { refused: `redirected more than ${MAX_REDIRECTS} times in a row (last to ${shown})` };
  }
  return { target, method: repeat ? method : 'GET' };
}
