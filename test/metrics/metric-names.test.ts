/**
 * Every metric the dashboard (deploy/grafana) and the alert rules (deploy/prometheus) use is one a real worker
 * exports: a worker process with a metrics endpoint, an order that completes, one that waits for repair and a
 * nightly replay run, then one scrape. A renamed metric breaks this test, not an operator's night.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { METRIC_NAMES } from '../../src/metrics';
import { applyReplaySchedule, describeReplaySchedule, triggerReplay } from '../../src/temporal/schedule';
import { startMetricsWorker } from '../helpers/metrics-worker';
import { useTestStack } from '../helpers/stack';
import { completedOrder, orderAwaitingRepair } from '../helpers/orders';
import { pollUntil } from '../../tools/dev/poll';

const ROOT = join(__dirname, '..', '..');
const vehicle = { licensePlate: 'B-MN 7' };
const badge = { type: 'green' };

/** Metric names in a PromQL expression: ours and the SDK's share the `badge_` and `temporal_` prefixes. */
export function metricNamesIn(expression: string): string[] {
  return [...expression.matchAll(/\b((?:badge|temporal)_[a-zA-Z0-9_]+)\b/g)].map((match) => match[1]!);
}

/** Every PromQL expression of the alert rules file. */
function alertExpressions(): string[] {
  const rules = load(readFileSync(join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as {
    groups: { rules: { expr: string }[] }[];
  };
  return rules.groups.flatMap((group) => group.rules.map((rule) => rule.expr));
}

/** Every PromQL expression of the dashboard (panel targets and template variable queries). */
function dashboardExpressions(): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        if ((key === 'expr' || key === 'query') && typeof child === 'string') found.push(child);
        else visit(child);
      }
    }
  };
  visit(JSON.parse(readFileSync(join(ROOT, 'deploy/grafana/badge-orders.json'), 'utf8')));
  return found;
}

/** Names of the samples in a Prometheus exposition (histograms appear as `_bucket`, `_sum`, `_count`). */
function exportedNames(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'))
      .map((line) => /^[a-zA-Z_:][\w:]*/.exec(line)?.[0] ?? ''),
  );
}

const stack = useTestStack();

it('exports every metric the dashboard and the alert rules use', async () => {
  const cleanUp: (() => Promise<unknown>)[] = [];
  const { worker, scrape } = await startMetricsWorker(stack, { STATUS_METRICS_INTERVAL_MS: '1000' });
  try {
    await completedOrder(stack, { orderRef: 'names-ok', stockId: 1001, vehicle, badge });
    await orderAwaitingRepair(stack, 'names-stuck', vehicle);
    // A workflow type no worker knows: its workflow tasks fail, as after a non-deterministic deploy.
    const broken = await stack.temporal.client.workflow.start('noSuchWorkflowType', {
      taskQueue: stack.taskQueue,
      workflowId: 'names-failing-task',
    });
    cleanUp.push(() => broken.terminate('test over'));
    await applyReplaySchedule(stack.temporal.client, {
      taskQueue: stack.taskQueue,
      time: { hour: 2, minute: 0 },
      timezone: 'Europe/Berlin',
      maxConcurrentSignals: 2,
    });
    await triggerReplay(stack.temporal.client);
    const schedule = await pollUntil(
      () => describeReplaySchedule(stack.temporal.client),
      (summary) => summary.recentRuns.length === 1,
      { what: 'the Schedule to start the replay' },
    );
    await stack.temporal.client.workflow.getHandle(schedule.recentRuns[0]?.workflowId ?? '').result();

    // The gauges read from visibility appear once a collection after the replay has run.
    const text = await pollUntil(
      scrape,
      (body) =>
        exportedNames(body).has(METRIC_NAMES.replayLastSuccess) &&
        exportedNames(body).has('temporal_workflow_task_execution_failed') &&
        /^badge_orders_in_status\{[^}]*status="AwaitingRepair"[^}]*\} 1$/m.test(body) &&
        /^badge_replay_schedule_active(\{[^}]*\})? 1$/m.test(body),
      { what: 'the gauges read from visibility', timeoutMs: 30_000 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nworker output: ${worker.output().slice(-3000)}`);
    });
    const exported = exportedNames(text);
    const used = new Set([...alertExpressions(), ...dashboardExpressions()].flatMap(metricNamesIn));
    expect(used.size).toBeGreaterThan(10);
    expect([...used].filter((name) => !exported.has(name)).sort()).toEqual([]);
    // And the gauges say what happened: the waiting order is counted, the replay's success is recent.
    // The labels the alert rules group by.
    expect(text).toMatch(
      /^temporal_workflow_task_execution_failed\{[^}]*failure_reason="[^"]+"[^}]*workflow_type="noSuchWorkflowType"/m,
    );
    expect(text).toMatch(/^temporal_num_pollers\{[^}]*poller_type="workflow_task"[^}]*task_queue="/m);
    const lastSuccess = /^badge_replay_last_success_timestamp_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    expect(Date.now() / 1000 - Number(lastSuccess)).toBeLessThan(3600);
  } finally {
    for (const step of cleanUp) await step().catch(() => undefined);
    await worker.kill('SIGTERM');
  }
});
