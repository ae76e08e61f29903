/**
 * The operator's view in a real browser: the dev server's Web UI (decoding payloads through the codec server)
 * over the real service. An operator finds an order awaiting repair, reads its decrypted input, repairs it with
 * `retryUploads` sent from the UI, and finds the nightly replay Schedule. Screenshots of each step (and of a
 * failing step) are saved under `artifacts/e2e/operator-web-ui/`.
 */
import { temporal } from '@temporalio/proto';
import type { Page } from 'playwright-core';
import { REPLAY_SCHEDULE_ID, badgeOrderWorkflowId, type BadgeOrderInput } from '../../src/contract';
import { WORKFLOW_TYPES } from '../../src/workflow-contract';
import { ENCRYPTED_ENCODING } from '../../src/codec/encryption-codec';
import { applyReplaySchedule } from '../../src/temporal/schedule';
import type { InProcessWorker } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';
import { launchBrowser, type E2eBrowser } from './browser';
import { startWebUiStack, type WebUiStack } from './web-ui-stack';

/** Upper bound for one UI condition on a busy 2-core machine; Playwright polls until then. */
const UI_TIMEOUT_MS = 60_000;
const AWAITING_REPAIR_QUERY = 'BadgeOrderStatus="AwaitingRepair"';
const LICENSE_PLATE = 'B-DE 2026';

let ui: WebUiStack;
let worker: InProcessWorker;
let browser: E2eBrowser;
let page: Page;

beforeAll(async () => {
  ui = await startWebUiStack();
  worker = await ui.stack.startWorker();
  browser = await launchBrowser({ artifacts: 'operator-web-ui' });
  page = browser.page;
  page.setDefaultTimeout(UI_TIMEOUT_MS);
});

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await ui?.teardown();
});

/** Runs one step and saves a screenshot named after it: of the result, or of the page when it failed. */
async function step(name: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    await browser.screenshot(`${name}-FAILED`).catch(() => undefined);
    throw error;
  }
  await browser.screenshot(name);
}

function demoLikeOrder(orderRef: string): BadgeOrderInput {
  ui.stack.writeDocument(
    'vehicle-photo.jpg',
    Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(4 * 1024, 1)]),
  );
  // text/plain is not among the sandbox's accepted types: the platform rejects it with 422.
  ui.stack.writeDocument('handwritten-note.txt', 'A note the platform will not accept.\n');
  return {
    orderRef,
    vehicle: {
      licensePlate: LICENSE_PLATE,
      vin: 'WVWZZZ1JZXW000001',
      fuel: 'diesel',
      emissionClass: 'Euro 6',
    },
    badge: { type: 'green', validFrom: '2027-01-01' },
    documents: [{ path: 'vehicle-photo.jpg' }, { path: 'handwritten-note.txt' }],
  };
}

describe('the Web UI for operators', () => {
  it('finds the order awaiting repair, shows its decrypted input and repairs it with a signal', async () => {
    const { stack, uiUrl } = ui;
    const orderRef = 'e2e-awaiting-repair';
    const workflowId = badgeOrderWorkflowId(orderRef);
    await stack.orders.startOrder(demoLikeOrder(orderRef));
    await pollUntil(
      () => stack.orders.status(orderRef),
      (status) => status.phase === 'awaiting-repair',
      { what: 'the order to wait for repair' },
    );
    // The list reads visibility, which lags the workflow: wait until it lists the order before opening it.
    await pollUntil(
      () => stack.temporal.client.workflow.count(AWAITING_REPAIR_QUERY),
      (result) => result.count === 1,
      { what: 'visibility to list the order as AwaitingRepair' },
    );
    // What the server stores is encrypted: the plate can only appear in the UI through the codec server.
    const rawHistory = await stack.temporal.rawClient.workflow.getHandle(workflowId).fetchHistory();
    const storedInput =
      rawHistory.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0] ?? null;
    expect(Buffer.from(storedInput?.metadata?.encoding ?? []).toString('utf8')).toBe(ENCRYPTED_ENCODING);
    expect(Buffer.from(storedInput?.data ?? []).toString('latin1')).not.toContain(LICENSE_PLATE);

    await step('01-workflows-awaiting-repair', async () => {
      await page.goto(
        `${uiUrl}/namespaces/default/workflows?query=${encodeURIComponent(AWAITING_REPAIR_QUERY)}`,
      );
      await page.getByRole('link', { name: workflowId, exact: true }).waitFor();
    });

    await step('02-order-decrypted-input', async () => {
      await page.getByRole('link', { name: workflowId, exact: true }).click();
      await page.getByTestId('execution-status').filter({ hasText: 'Running' }).waitFor();
      await page.getByText(LICENSE_PLATE).first().waitFor();
      await page.getByText('handwritten-note.txt').first().waitFor();
    });

    // The cause goes away: the platform now accepts plain text.
    const rules = await stack.sandbox.control.rules();
    await stack.sandbox.control.setRules({
      acceptedContentTypes: [...rules.acceptedContentTypes, 'text/plain'],
    });

    await step('03-send-retry-uploads', async () => {
      await page.getByRole('button', { name: 'More Actions' }).click();
      await page.getByRole('menuitem', { name: 'Send a Signal' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Select a signal' }).click();
      // The UI offers the signals the workflow defines (from the SDK's workflow metadata query).
      await page.getByRole('option', { name: 'retryUploads', exact: true }).click();
      await page.getByRole('listbox').waitFor({ state: 'hidden' });
      await dialog.getByRole('button', { name: 'retryUploads' }).waitFor();
    });

    await step('04-order-completed', async () => {
      await page.getByRole('dialog').getByRole('button', { name: 'Submit' }).click();
      await page.getByText('Workflow signaled.').first().waitFor();
      await page.getByTestId('execution-status').filter({ hasText: 'Completed' }).waitFor();
    });

    // The UI sent the signal (this test sent none), and the platform holds the repaired document.
    const history = await stack.temporal.client.workflow.getHandle(workflowId).fetchHistory();
    const signals = (history.events ?? []).filter(
      (event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    );
    expect(signals.map((event) => event.workflowExecutionSignaledEventAttributes?.signalName)).toEqual([
      'retryUploads',
    ]);
    const result = await stack.orders.status(orderRef);
    expect(result.phase).toBe('completed');
    expect(result.documents.map((document) => document.status)).toEqual(['uploaded', 'uploaded']);
    const state = await stack.sandbox.control.state();
    expect(state.documents.map((document) => document.filename).sort()).toEqual([
      'handwritten-note.txt',
      'vehicle-photo.jpg',
    ]);
  });

  it('shows the nightly replay Schedule', async () => {
    const { stack, uiUrl } = ui;
    await applyReplaySchedule(stack.temporal.client, {
      taskQueue: stack.taskQueue,
      time: { hour: 2, minute: 0 },
      timezone: 'Europe/Berlin',
      maxConcurrentSignals: 10,
    });

    await step('05-schedules', async () => {
      await page.goto(`${uiUrl}/namespaces/default/schedules`);
      await page.getByRole('link', { name: REPLAY_SCHEDULE_ID, exact: true }).waitFor();
    });

    await step('06-schedule-nightly-replay', async () => {
      await page.getByRole('link', { name: REPLAY_SCHEDULE_ID, exact: true }).click();
      await page.getByRole('heading', { name: REPLAY_SCHEDULE_ID }).waitFor();
      await page.getByText(WORKFLOW_TYPES.replayFailedUploads).first().waitFor();
      await page.getByText('Europe/Berlin').first().waitFor();
    });
  });
});
