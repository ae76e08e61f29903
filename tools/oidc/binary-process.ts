/**
 * A server program of the dev tooling (the Web UI server, the OIDC provider) run as a child process of the dev tooling: tied to this process
 * (Linux kills it when this process dies, even by SIGKILL), its output kept for error messages, and ready
 * only once a probe over HTTP says so.
 */
import { get as httpsGet } from 'node:https';
import { startChildProcess, withParentDeathSignal, type ChildProcessHandle } from '../dev/child-process';
import { pollUntil } from '../dev/poll';

/** Options of {@link startBinaryProcess}. */
export interface BinaryProcessOptions {
  /** For messages, e.g. `web-ui-server`. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  /** The working folder. @default this process's */
  readonly cwd?: string;
  /** The whole environment of the child (PATH is added): none of this process's variables leak in. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Starts `command args` with exactly `env` (plus PATH); see the module comment. */
export function startBinaryProcess(options: BinaryProcessOptions): ChildProcessHandle {
  const [command, args] = withParentDeathSignal(options.command, options.args);
  // Enough output for a start-up failure.
  return startChildProcess({ ...options, command, args, maxOutputChars: 256 * 1024 });
}

/** Options of {@link waitUntilServing}. */
export interface WaitUntilServingOptions {
  /** Whether an answer's status means ready. @default 200 only */
  readonly ready?: (status: number) => boolean;
  /** @default 60 s */
  readonly timeoutMs?: number;
  /** For an `https://` URL: the certificate (PEM) to trust, e.g. a self-signed one. */
  readonly ca?: string;
}

/** The status of `GET url`, or null when nothing answers. */
function probe(url: string, ca: string | undefined): Promise<number | null> {
  if (!url.startsWith('https:') || ca === undefined) {
    return fetch(url, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.status,
      () => null,
    );
  }
  return new Promise((resolveStatus) => {
    const request = httpsGet(url, { ca, timeout: 5_000 }, (response) => {
      response.resume();
      resolveStatus(response.statusCode ?? null);
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolveStatus(null));
  });
}

/**
 * Resolves once `GET url` answers with a status `ready` accepts; rejects when the process exits first (with
 * its output) or after `timeoutMs`. The process is left running either way: the caller's cleanup stops it.
 */
export async function waitUntilServing(
  child: ChildProcessHandle,
  url: string,
  options: WaitUntilServingOptions = {},
): Promise<void> {
  const ready = options.ready ?? ((status: number) => status === 200);
  await pollUntil(
    () => probe(url, options.ca),
    (status) => status !== null && ready(status),
    { what: `${child.name} to answer ${url}`, timeoutMs: options.timeoutMs ?? 60_000, processes: [child] },
  );
}
