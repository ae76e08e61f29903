/**
 * Operator sign-in as production runs it (docs/security.md, "Operator sign-in"), in a real browser (Chromium,
 * as the e2e tests drive it), on the production-shaped stack: the cluster of tools/cluster (PostgreSQL, the four
 * Temporal services as separate processes, worker processes) started with `oidc`, so its Web UI servers — the
 * production UI server — sign the operator in at a real OIDC provider on loopback and pass the operator's access
 * token to our codec server processes (HTTPS), which decode only for a token of that provider (JWKS), that
 * issuer and that UI's audience. A second UI for read-only operators (`TEMPORAL_DISABLE_WRITE_ACTIONS`) offers
 * no write actions and refuses them. Screenshots of each step (and of a failing one) go to
 * `artifacts/e2e/oidc-sign-in/`.
 *
 * In the cluster tier (`npm run test:cluster`): it needs the cluster's PostgreSQL and server binaries, and
 * Chromium (`.ci/run` installs it before `npm test`).
 */
import { request as httpsRequest } from 'node:https';
import { temporal } from '@temporalio/proto';
import { decodeJwt } from 'jose';
import type { Locator, Page } from 'playwright-core';
import { generatePayloadKeyEntry } from '../../src/codec/key-ring';
import { badgeOrderWorkflowId, type BadgeOrderInput } from '../../src/contract';
import { startCluster, type Cluster } from '../../tools/cluster';
import { LOCAL_OPERATOR, WEB_UI_CALLBACK_PATH, type OidcWebUis } from '../../tools/oidc';
import type { LocalStack } from '../../tools/stack';
import { pollUntil } from '../../tools/dev/poll';
import { launchBrowser, type E2eBrowser } from '../e2e/browser';

/** Upper bound for one UI condition on a busy 2-core machine; Playwright polls until then. */
const UI_TIMEOUT_MS = 60_000;
const LICENSE_PLATE = 'B-OP 2027';
const ORDER_REF = 'e2e-oidc-awaiting-repair';
const WORKFLOW_ID = badgeOrderWorkflowId(ORDER_REF);

const ROLES = { operators: {}, auditors: { disableWriteActions: true } } as const;
type Role = keyof typeof ROLES;

let cluster: Cluster<Role> | undefined;
let stack: LocalStack;
let oidc: OidcWebUis<Role>;
let browser: E2eBrowser | undefined;
let page: Page;

beforeAll(async () => {
  cluster = await startCluster({
    // One worker process is all one order needs; the machine is shared.
    workers: 1,
    oidc: { roles: ROLES },
    // A random key: the order's input is stored encrypted, as in production.
    stack: { payloadKeys: generatePayloadKeyEntry('oidc-cluster-test'), worker: { logLevel: 'info' } },
  });
  stack = cluster.stack;
  if (!cluster.oidc) throw new Error('the cluster was started with oidc');
  oidc = cluster.oidc;
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
  await stack.orders().startOrder(input);
  await pollUntil(
    () => stack.orders().status(ORDER_REF),
    (status) => status.phase === 'awaiting-repair',
    { what: 'the order to wait for repair', timeoutMs: 120_000 },
  );
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
}, 120_000);

/** Runs one step and saves a screenshot named after it: of the result, or of the page when it failed. */
async function step(name: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    await browser?.screenshot(`${name}-FAILED`).catch(() => undefined);
    throw error;
  }
  await browser?.screenshot(name);
}

const workflowPath = (): string =>
  `/namespaces/${cluster?.namespace ?? ''}/workflows/${encodeURIComponent(WORKFLOW_ID)}`;

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

/** Fails unless a control reaches `state`: the UI may apply its settings (read-only) after it renders. */
async function expectState(locator: Locator, state: 'enabled' | 'disabled'): Promise<void> {
  await pollUntil(
    () => locator.isEnabled(),
    (isEnabled) => isEnabled === (state === 'enabled'),
    { timeoutMs: 15_000, what: `the control to be ${state}` },
  );
}

describe('operator sign-in with OIDC on the cluster', () => {
  it('serves every Web UI from the cluster’s frontend, with sign-in required', async () => {
    for (const ui of Object.values<{ readonly url: string }>(oidc.ui)) {
      // Without a session the UI server answers no API call: the frontend is reached only after sign-in.
      const unsigned = await fetch(`${ui.url}/api/v1/namespaces/${cluster?.namespace ?? ''}`);
      expect(unsigned.status).toBe(401);
    }
    expect(cluster?.webUiUrl).toBe(oidc.ui.operators.url);
  });

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
      await expectState(page.getByRole('button', { name: 'Request Cancellation' }), 'enabled');
      await page.getByRole('button', { name: 'More Actions' }).click();
      const signal = page.getByRole('menuitem', { name: 'Send a Signal' });
      await signal.waitFor();
      await expectState(signal, 'enabled');
      await expectState(page.getByRole('menuitem', { name: 'Terminate' }), 'enabled');
    });
  });

  it('gives read-only operators the decoded input but no write actions (TEMPORAL_DISABLE_WRITE_ACTIONS)', async () => {
    const ui = oidc.ui.auditors;
    await step('04-read-only-decoded-input', async () => {
      // Signed in at the provider already: the second UI's sign-in needs no password again.
      await page.goto(`${ui.url}${workflowPath()}`);
      const signIn = page.getByRole('button', { name: /sso|sign in|log ?in/i }).first();
      await Promise.race([page.getByText(LICENSE_PLATE).first().waitFor(), signIn.waitFor()]);
      if (await signIn.isVisible()) {
        // The provider knows the browser already and sends it straight back. The page is on the UI's origin all
        // along, so only the UI's callback answering (it sets the session) says the sign-in is done: leaving the
        // page before it would race the sign-in's own navigation.
        const callback = page.waitForResponse((response) =>
          response.url().startsWith(`${ui.url}${WEB_UI_CALLBACK_PATH}`),
        );
        await signIn.click();
        await callback;
      }
      await page.goto(`${ui.url}${workflowPath()}`);
      await page.getByTestId('execution-status').filter({ hasText: 'Running' }).waitFor();
      await page.getByText(LICENSE_PLATE).first().waitFor();
    });

    await step('05-read-only-no-write-actions', async () => {
      // The same buttons the operators' UI offers (step 03) are there, and disabled.
      const moreActions = page.getByRole('button', { name: 'More Actions' });
      await moreActions.waitFor();
      await expectState(moreActions, 'disabled');
      await expectState(page.getByRole('button', { name: 'Request Cancellation' }), 'disabled');
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
