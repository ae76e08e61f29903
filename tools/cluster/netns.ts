/**
 * A separate host on this machine: a Linux network namespace joined to the host by a veth pair, so a worker
 * in it reaches the frontend and the platform only over that link — and loses them both when the link goes
 * down (a network partition), while its process keeps running. Needs root and iproute2 (`ip`).
 *
 * Namespaces are named `badge-<pid>-<n>`; {@link removeStaleNetworkNamespaces} removes those of processes that
 * died without cleaning up (a SIGKILLed test run).
 */
import { existsSync } from 'node:fs';
import { isProcessAlive } from '../dev/child-process';
import { runToCompletion } from './process';

const IP = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].find((path) => existsSync(path)) ?? 'ip';
const PREFIX = 'badge-';

async function ip(...args: string[]): Promise<string> {
  return runToCompletion({ name: `ip ${args.join(' ')}`, command: IP, args });
}

/** A network namespace with a link to the host. */
export interface NetworkNamespace {
  readonly name: string;
  /** The host's end of the link, the address processes in the namespace reach the host at. */
  readonly hostAddress: string;
  /** The namespace's own address. */
  readonly address: string;
  /** A command prefix that runs a program inside the namespace (`ip netns exec <name>`; same process). */
  readonly exec: readonly string[];
  /** Cuts the link (both directions): a partition. */
  disconnect(): Promise<void>;
  /** Restores the link. */
  reconnect(): Promise<void>;
  /** Deletes the namespace and its link; safe to call twice. */
  remove(): Promise<void>;
}

let created = 0;

/** Deletes `badge-<pid>-*` namespaces whose process no longer runs. */
export async function removeStaleNetworkNamespaces(): Promise<string[]> {
  const listing = await ip('netns', 'list');
  const stale = listing
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => {
      const match = /^badge-(\d+)-\d+$/.exec(name);
      return match !== null && !isProcessAlive(Number(match[1]));
    });
  for (const name of stale) await ip('netns', 'delete', name);
  return stale;
}

/**
 * Creates a namespace with a /30 link to the host. Addresses come from 10.213.0.0/16, one /30 per namespace
 * of this process (64 per process), so two runs on one machine are unlikely to collide on a link.
 */
export async function createNetworkNamespace(): Promise<NetworkNamespace> {
  const index = created++;
  const name = `${PREFIX}${process.pid}-${index}`;
  // Interface names are at most 15 characters.
  const tag = `${(process.pid % 100_000).toString(36)}${index.toString(36)}`;
  const hostLink = `bh${tag}`;
  const innerLink = `bn${tag}`;
  const block = ((process.pid % 256) * 64 + (index % 64)) * 4;
  const third = Math.floor(block / 256) % 256;
  const base = block % 256;
  const hostAddress = `10.213.${third}.${base + 1}`;
  const address = `10.213.${third}.${base + 2}`;
  let removed: Promise<void> | undefined;
  const remove = (): Promise<void> => {
    // Deleting the namespace deletes its end of the veth pair, and with it the host's end.
    removed ??= ip('netns', 'delete', name).then(() => undefined);
    return removed;
  };
  await ip('netns', 'add', name);
  try {
    await ip('link', 'add', hostLink, 'type', 'veth', 'peer', 'name', innerLink);
    await ip('link', 'set', innerLink, 'netns', name);
    await ip('addr', 'add', `${hostAddress}/30`, 'dev', hostLink);
    await ip('link', 'set', hostLink, 'up');
    await ip('netns', 'exec', name, IP, 'addr', 'add', `${address}/30`, 'dev', innerLink);
    await ip('netns', 'exec', name, IP, 'link', 'set', innerLink, 'up');
    await ip('netns', 'exec', name, IP, 'link', 'set', 'lo', 'up');
  } catch (error) {
    await ip('link', 'delete', hostLink).catch(() => undefined);
    await remove().catch(() => undefined);
    throw error;
  }
  return {
    name,
    hostAddress,
    address,
    exec: [IP, 'netns', 'exec', name],
    disconnect: () => ip('link', 'set', hostLink, 'down').then(() => undefined),
    reconnect: () => ip('link', 'set', hostLink, 'up').then(() => undefined),
    remove,
  };
}
