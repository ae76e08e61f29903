/**
 * `npm run chaos [-- --orders 20 --worker-kills 3 --temporal-restarts 1 --seed 1 --time-limit 300
 * --profile reference --keys-ignored]`: places orders while the sandbox injects faults, worker processes are
 * killed with SIGKILL and the Temporal dev server restarts; then checks that nothing was lost or duplicated
 * and no secret reached a history. Everything runs on loopback and stops at the end. Exits 1 on any violation.
 */
import { Command, InvalidArgumentError } from 'commander';
import { Runtime, DefaultLogger } from '@temporalio/worker';
import { runMain } from '../../src/main/run-main';
import { resolveProfile, SANDBOX_PROFILE_NAMES } from '../../src/sandbox';
import { formatChaosReport, runChaos } from './';

function boundedInteger(min: number, max: number): (value: string) => number {
  return (value) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return parsed;
  };
}

function sandboxProfile(value: string): string {
  try {
    resolveProfile(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  return value;
}

async function main(argv: string[]): Promise<number> {
  const options = new Command()
    .name('chaos')
    .description('Chaos run against a local dev server and sandbox; exits 1 on any violation.')
    .option('--orders <n>', 'orders to place', boundedInteger(1, 200), 20)
    .option('--worker-kills <n>', 'worker processes to kill with SIGKILL', boundedInteger(0, 20), 3)
    .option('--temporal-restarts <n>', 'Temporal dev server restarts', boundedInteger(0, 5), 1)
    .option('--seed <n>', 'seed of the sandbox fault dice', boundedInteger(0, 2 ** 31), 1)
    .option('--token-ttl <seconds>', 'platform token lifetime', boundedInteger(1, 900), 3)
    .option(
      '--time-limit <seconds>',
      'the whole run must end within this time',
      boundedInteger(30, 3600),
      300,
    )
    .option(
      '--disrupt-anytime',
      'also kill and restart during order creation (each costs a 1-minute timeout)',
    )
    .option(
      '--profile <name>',
      `sandbox profile: ${SANDBOX_PROFILE_NAMES.join(', ')} or random:<seed>`,
      sandboxProfile,
      'reference',
    )
    .option(
      '--keys-ignored',
      'the sandbox ignores Idempotency-Key (whatever the profile says); held orders are reconciled from its records',
    )
    .option('--json', 'print the report as JSON')
    .parse(argv)
    .opts<{
      orders: number;
      workerKills: number;
      temporalRestarts: number;
      seed: number;
      tokenTtl: number;
      timeLimit: number;
      disruptAnytime?: boolean;
      profile: string;
      keysIgnored?: boolean;
      json?: boolean;
    }>();
  const startedAt = Date.now();
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const report = await runChaos({
    orders: options.orders,
    workerKills: options.workerKills,
    temporalRestarts: options.temporalRestarts,
    seed: options.seed,
    tokenTtlSeconds: options.tokenTtl,
    timeLimitMs: options.timeLimit * 1000,
    disruptAnytime: options.disruptAnytime ?? false,
    profile: options.profile,
    // Absent: the profile decides (legacy and json-api ignore the key).
    ...(options.keysIgnored ? { keysIgnored: true } : {}),
    stopOnSignals: true,
    log: (message) => console.error(`[chaos ${((Date.now() - startedAt) / 1000).toFixed(1)}s] ${message}`),
  });
  console.log(options.json ? JSON.stringify(report, null, 2) : formatChaosReport(report));
  return report.ok ? 0 : 1;
}

runMain(() => main(process.argv));
