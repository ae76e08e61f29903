/**
 * The alert rules (deploy/prometheus/alerts.yml) are valid, and their unit tests (alerts.test.yml) pass with the
 * pinned promtool: each alert fired by its series and silent on a healthy one. Each alert links to its section
 * of the runbook. `.ci/run` builds promtool before `npm test` (`npm run go-tools -- promtool`).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { ensureGoTool, GO_TOOLS } from '../../tools/go-tools/go-tools';

const run = promisify(execFile);
const FOLDER = join(__dirname, '..', '..', 'deploy', 'prometheus');

interface AlertRule {
  readonly alert: string;
  readonly expr: string;
  readonly annotations?: { readonly runbook_url?: string };
}
interface RuleTest {
  readonly alert_rule_test?: readonly {
    readonly alertname: string;
    readonly exp_alerts?: readonly unknown[];
  }[];
}

const rules = (
  load(readFileSync(join(FOLDER, 'alerts.yml'), 'utf8')) as { groups: { rules: AlertRule[] }[] }
).groups.flatMap((group) => group.rules);
const ruleTests = (
  load(readFileSync(join(FOLDER, 'alerts.test.yml'), 'utf8')) as { tests: RuleTest[] }
).tests.flatMap((test) => test.alert_rule_test ?? []);

let promtool: string;
beforeAll(async () => {
  promtool = await ensureGoTool(GO_TOOLS.promtool);
}, 30 * 60_000);

it('promtool finds the rules valid', async () => {
  const { stdout } = await run(promtool, ['check', 'rules', 'alerts.yml'], { cwd: FOLDER });
  expect(stdout).toContain(`SUCCESS: ${rules.length} rules found`);
});

it('promtool passes the rules’ unit tests', async () => {
  const result = await run(promtool, ['test', 'rules', 'alerts.test.yml'], { cwd: FOLDER }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      throw new Error(`promtool test rules failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    },
  );
  expect(result.stdout).toContain('SUCCESS');
});

it('tests every alert firing and silent, and links each to its runbook section', () => {
  const runbook = readFileSync(join(__dirname, '..', '..', 'docs', 'runbook.md'), 'utf8');
  const anchors = new Set(
    [...runbook.matchAll(/^#+\s+(.+)$/gm)].map((heading) =>
      heading[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
  for (const rule of rules) {
    const cases = ruleTests.filter((test) => test.alertname === rule.alert);
    expect({ alert: rule.alert, fires: cases.some((test) => (test.exp_alerts ?? []).length > 0) }).toEqual({
      alert: rule.alert,
      fires: true,
    });
    expect({ alert: rule.alert, silent: cases.some((test) => (test.exp_alerts ?? []).length === 0) }).toEqual(
      {
        alert: rule.alert,
        silent: true,
      },
    );
    const url = rule.annotations?.runbook_url ?? '';
    expect(url).toMatch(/^docs\/runbook\.md#/);
    expect({ alert: rule.alert, anchor: anchors.has(url.split('#')[1] ?? '') }).toEqual({
      alert: rule.alert,
      anchor: true,
    });
  }
});
