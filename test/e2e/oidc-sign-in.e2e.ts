/**
 * Operator sign-in as production runs it (docs/security.md, "Operator sign-in"), in a real browser: the
 * production Web UI server signs the operator in at a real OIDC provider on loopback and passes the operator's
 * access token to our codec server, which decodes only for a token of that provider (JWKS), that issuer and that
 * UI's audience. A second UI for read-only operators (`TEMPORAL_DISABLE_WRITE_ACTIONS`) offers no write actions.
 * Screenshots of each step (and of a failing one) go to `artifacts/e2e/oidc-sign-in/`.
 *
 * The Temporal frontend is the test stack's dev server; `temporalAddress` below is all a cluster needs.
 */
import { request as httpsRequest } from 'node:https';
import { temporal } from '@temporalio/proto';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { badgeOrderWorkflowId, type BadgeOrderInput } from '../../src/contract';
import { CleanupList } from '../../tools/stack';
import { LOCAL_OPERATOR, startOidcWebUis, type OidcWebUis } from '../../tools/oidc';
import { startTestStack, type InProcessWorker, type TestStack } from '../helpers/stack';
import { waitFor } from '../helpers/wait';
import { launchBrowser, type E2eBrowser } from './browser';

/** Upper bound for one UI condition on a busy 2-core machine; Playwright polls until then. */
const UI_TIMEOUT_MS = 60_000;
const LICENSE_PLATE = 'B-OP 2027';
const ORDER_REF = 'e2e-oidc-awaiting-repair';
const WORKFLOW_ID = badgeOrderWorkflowId(ORDER_REF);

const ROLES = { operators: {}, auditors: { disableWriteActions: true } } as const;
type Role = keyof typeof ROLES;

let stack: TestStack;
let worker: InProcessWorker;
let cleanups: CleanupList;
let oidc: OidcWebUis<Role>;
let browser: E2eBrowser;
let page: Page;

beforeAll(async () => {
  stack = await startTestStack();
  worker = await stack.startWorker();
  cleanups = new CleanupList();
  oidc = await startOidcWebUis({
    temporalAddress: stack.temporal.server.address,
    namespace: stack.temporal.server.namespace,
    payloadKeys: stack.payloadKeys,
    roles: ROLES,
    cleanups,
  });
  // The codec servers' certificate is a throwaway self-signed one for 127.0.0.1.
  browser = await launchBrowser({ artifacts: 'oidc-sign-in', ignoreHttpsErrors: true });
  page = browser.page;
  page.setDefaultTimeout(UI_TIMEOUT_MS);

  // An order that stays running (it waits for repair): its input holds the plate, encrypted in Temporal.
  stack.writeDocument(
    'vehicle-photo.jpg',
    Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.alloc(1024, 1)]),
  );
  // text/plain is not among the sandbox's accepted types: the platform rejects it and the order waits.
  stack.writeDocument('handwritten-note.txt', 'A note the platform will not accept.\n');
  const input: BadgeOrderInput = {
    orderRef: ORDER_REF,
    vehicle: {
      licensePlate: LICENSE_PLATE,
      vin: 'WVWZZZ1JZXW000002',
      fuel: 'petrol',
      emissionClass: 'Euro 6',
    },
    badge: { type: 'green', validFrom: '2027-01-01' },
    documents: [{ path: 'vehicle-photo.jpg' }, { path: 'handwritten-note.txt' }],
  };
  await stack.orders.startOrder(input);
  await waitFor(
    () => stack.orders.status(ORDER_REF),
    (status) => status.phase === 'awaiting-repair',
    { what: 'the order to wait for repair' },
  );
});

afterAll(async () => {
  await browser?.close();
  await cleanups?.run();
  await worker?.stop();
  await stack?.teardown();
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

const workflowPath = (): string =>
  `/namespaces/${stack.temporal.server.namespace}/workflows/${encodeURIComponent(WORKFLOW_ID)}`;

/** `POST /decode` to a codec server with a bearer token; resolves with the status. */
function decodeWith(codecUrl: string, token: string): Promise<number> {
  const body = JSON.stringify({ payloads: [] });
  return new Promise((resolveStatus, reject) => {
    const request = httpsRequest(
      `${codecUrl}/decode`,
      {
        method: 'POST',
        ca: oidc.codecCertificate,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        resolveStatus(response.statusCode ?? 0);
      },
    );
    request.once('error', reject);
    request.end(body);
  });
}

/** An access token the provider issues to a role's client (client credentials): audience = that client's id. */
async function clientToken(role: Role): Promise<string> {
  const { clientId, clientSecret } = oidc.ui[role];
  const response = await fetch(oidc.provider.tokenUrl, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  const answer = (await response.json()) as { access_token?: string };
  expect(response.status).toBe(200);
  if (!answer.access_token) throw new Error('the provider issued no access token');
  return answer.access_token;
}

describe('operator sign-in with OIDC', () => {
  it('sends the operator to the provider, and the UI decodes the order through the codec server with their token', async () => {
    const ui = oidc.ui.operators;

    await step('01-provider-sign-in-page', async () => {
      await page.goto(`${ui.url}${workflowPath()}`);
      // Not signed in: the UI offers its provider's sign-in (or sends the browser there at once).
      const provider = new URL(oidc.provider.issuer);
      const signIn = page.getByRole('button', { name: /sso|sign in|log ?in/i }).first();
      await Promise.race([page.waitForURL((url) => url.host === provider.host), signIn.waitFor()]);
      if (new URL(page.url()).host !== provider.host) await signIn.click();
      await page.waitForURL((url) => url.host === provider.host);
      await page.getByRole('heading', { name: 'Operator sign-in' }).waitFor();
    });

    // What the browser sends to the codec server: the operator's own access token.
    const codecAuthorizations: Promise<string | null>[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${ui.codecUrl}/`) && request.method() === 'POST') {
        // headerValue() sees every header; headers() leaves out security-related ones.
        codecAuthorizations.push(request.headerValue('authorization'));
      }
    });

    await step('02-decoded-input-after-sign-in', async () => {
      await page.getByLabel('Email address').fill(LOCAL_OPERATOR.email);
      await page.getByLabel('Password').fill(LOCAL_OPERATOR.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.origin === ui.url);
      await page.goto(`${ui.url}${workflowPath()}`);
      await page.getByTestId('execution-status').filter({ hasText: 'Running' }).waitFor();
      // The plate is stored encrypted: it can only appear through the codec server, which needs the token.
      await page.getByText(LICENSE_PLATE).first().waitFor();
    });

    expect(codecAuthorizations.length).toBeGreaterThan(0);
    for (const authorization of await Promise.all(codecAuthorizations)) {
      expect(authorization).toMatch(/^Bearer \S+$/);
      const claims = decodeJwt((authorization ?? '').replace(/^Bearer /, ''));
      expect({ iss: claims.iss, aud: claims.aud, sub: claims.sub }).toEqual({
        iss: oidc.provider.issuer,
        aud: ui.clientId,
        sub: LOCAL_OPERATOR.userId,
      });
    }

    await step('03-operators-may-signal', async () => {
      expect(await page.getByRole('button', { name: 'Request Cancellation' }).isEnabled()).toBe(true);
      await page.getByRole('button', { name: 'More Actions' }).click();
      const signal = page.getByRole('menuitem', { name: 'Send a Signal' });
      await signal.waitFor();
      expect(await signal.isEnabled()).toBe(true);
      expect(await page.getByRole('menuitem', { name: 'Terminate' }).isEnabled()).toBe(true);
    });
  });

  it('gives read-only operators the decoded input but no write actions (TEMPORAL_DISABLE_WRITE_ACTIONS)', async () => {
    const ui = oidc.ui.auditors;
    await step('04-read-only-decoded-input', async () => {
      // Signed in at the provider already: the second UI's sign-in needs no password again.
      await page.goto(`${ui.url}${workflowPath()}`);
      const signIn = page.getByRole('button', { name: /sso|sign in|log ?in/i }).first();
      await Promise.race([page.getByText(LICENSE_PLATE).first().waitFor(), signIn.waitFor()]);
      if (await signIn.isVisible()) await signIn.click();
      await page.waitForURL((url) => url.origin === ui.url);
      await page.goto(`${ui.url}${workflowPath()}`);
      await page.getByTestId('execution-status').filter({ hasText: 'Running' }).waitFor();
      await page.getByText(LICENSE_PLATE).first().waitFor();
    });

    await step('05-read-only-no-write-actions', async () => {
      // The same buttons the operators' UI offers (step 03) are there, and disabled.
      const moreActions = page.getByRole('button', { name: 'More Actions' });
      await moreActions.waitFor();
      expect(await moreActions.isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Request Cancellation' }).isDisabled()).toBe(true);
    });

    // Not only hidden: the UI server refuses a write its own page did not offer (a signed-in browser's request,
    // with the session's cookies and CSRF token), and the order's history shows no signal.
    const csrf =
      (await page.context().cookies(ui.url)).find((cookie) => cookie.name === '_csrf')?.value ?? '';
    const signal = await page.request.post(`${ui.url}/api/v1${workflowPath()}/signal/retryUploads`, {
      headers: { 'x-csrf-token': csrf },
      data: {},
    });
    expect(signal.status()).toBe(405);
    const history = await stack.temporal.client.workflow.getHandle(WORKFLOW_ID).fetchHistory();
    const signalled = (history.events ?? []).filter(
      (event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    );
    expect(signalled).toEqual([]);
  });

  it('refuses, at the codec server, a token of the same provider for another audience', async () => {
    const operatorsToken = await clientToken('operators');
    const auditorsToken = await clientToken('auditors');
    // Each codec server takes its own UI's tokens and no other application's, though all are validly signed.
    expect(await decodeWith(oidc.ui.operators.codecUrl, operatorsToken)).toBe(200);
    expect(await decodeWith(oidc.ui.operators.codecUrl, auditorsToken)).toBe(401);
    expect(await decodeWith(oidc.ui.auditors.codecUrl, auditorsToken)).toBe(200);
    expect(await decodeWith(oidc.ui.auditors.codecUrl, operatorsToken)).toBe(401);
  });
});
