/**
 * The official Temporal CLI against our codec server, as an operator runs it: a real dev server, the sandbox,
 * a worker encrypting with the stack's key, the codec server on port 0, and the CLI binary the project
 * resolves (tools/dev/temporal-cli.ts) with `--codec-endpoint` and `--codec-auth`. With the codec endpoint the
 * CLI shows payloads in clear and sends encrypted ones; without it, it sees only ciphertext.
 */
import { ENCRYPTED_ENCODING } from '../../src/codec/encryption-codec';
import { badgeOrderWorkflowId } from '../../src/contract';
import { useTestStack } from '../helpers/stack';
import { useTemporalCli } from '../helpers/temporal-cli';
import { orderAwaitingRepair } from '../helpers/orders';
import { pollUntil } from '../../tools/dev/poll';

const TOKEN = 'cli-codec-test-token-0123456789';
const badge = { type: 'green' };

/**
 * The CLI's JSON output with every base64 string (payload data and metadata) decoded next to it, as a person
 * reading the payloads would see them.
 */
function payloadText(stdout: string): string {
  const decoded = [...stdout.matchAll(/"([A-Za-z0-9+/]{4,}={0,2})"/g)].map((match) =>
    Buffer.from(match[1] ?? '', 'base64').toString('utf8'),
  );
  return [stdout, ...decoded].join('\n');
}

describe('the Temporal CLI with our codec server', () => {
  const stack = useTestStack({ worker: true });
  const temporal = useTemporalCli(stack, { token: TOKEN }).run;

  /** The signal events of an order's raw history (as the server stores them). */
  async function signalInputs(
    orderRef: string,
  ): Promise<{ name: string; encodings: string[]; text: string }[]> {
    const history = await stack.temporal.rawClient.workflow
      .getHandle(badgeOrderWorkflowId(orderRef))
      .fetchHistory();
    return (history.events ?? [])
      .map((event) => event.workflowExecutionSignaledEventAttributes)
      .filter((signal) => signal !== null && signal !== undefined)
      .map((signal) => {
        const payloads = signal.input?.payloads ?? [];
        return {
          name: signal.signalName ?? '',
          encodings: payloads.map((payload) =>
            Buffer.from(payload.metadata?.encoding ?? []).toString('utf8'),
          ),
          text: payloads.map((payload) => Buffer.from(payload.data ?? []).toString('utf8')).join('\n'),
        };
      });
  }

  it('queries the status: in clear with the codec endpoint, encrypted without', async () => {
    await orderAwaitingRepair(stack, 'cli-query', { licensePlate: 'B-CQ 1' });
    const workflow = ['-w', badgeOrderWorkflowId('cli-query')];

    const decoded = await temporal(['workflow', 'query', ...workflow, '--name', 'status', '-o', 'json']);
    expect(decoded).toMatchObject({ code: 0 });
    expect(decoded.stdout).toContain('awaiting-repair');
    expect(decoded.stdout).toContain('cli-query/scan.gif');
    expect(decoded.stdout).toMatch(/"orderRef":\s*"cli-query"/);

    const raw = await temporal(['workflow', 'query', ...workflow, '--name', 'status', '-o', 'json'], {
      codec: false,
    });
    expect(raw.code).toBe(0);
    expect(raw.stdout).not.toContain('awaiting-repair');
    expect(raw.stdout).toContain(Buffer.from(ENCRYPTED_ENCODING).toString('base64'));
  });

  it('sends retryUploads without input, and with input encrypted by the codec server', async () => {
    await orderAwaitingRepair(stack, 'cli-signal', { licensePlate: 'B-CS 1' });
    const workflow = ['-w', badgeOrderWorkflowId('cli-signal')];

    const bare = await temporal(['workflow', 'signal', ...workflow, '--name', 'retryUploads']);
    expect(bare).toMatchObject({ code: 0 });
    // The signal reached the workflow: the refused scan was tried again.
    await pollUntil(
      () => stack.orders.status('cli-signal'),
      (status) => status.phase === 'awaiting-repair' && (status.documents[0]?.attempts ?? 0) >= 2,
    );

    const reason = 'operator note for B-CS 1';
    const withInput = await temporal([
      'workflow',
      'signal',
      ...workflow,
      '--name',
      'retryUploads',
      '--input',
      JSON.stringify({ reason }),
    ]);
    expect(withInput).toMatchObject({ code: 0 });
    await pollUntil(
      () => stack.orders.status('cli-signal'),
      (status) => (status.documents[0]?.attempts ?? 0) >= 3,
    );
    const signals = await signalInputs('cli-signal');
    expect(signals).toHaveLength(2);
    expect(signals[0]).toMatchObject({ name: 'retryUploads', encodings: [] });
    // The CLI's input went through /encode: the history holds it encrypted.
    expect(signals[1]).toMatchObject({ name: 'retryUploads', encodings: [ENCRYPTED_ENCODING] });
    expect(signals[1]?.text).not.toContain(reason);
  });

  it('executes the replaceDocument update with input and shows its decoded result', async () => {
    await orderAwaitingRepair(stack, 'cli-update', { licensePlate: 'B-CU 1' });
    const replacement = stack.writeDocument('cli-update/form.pdf', '%PDF-1.4 replacement');
    const result = await temporal([
      'workflow',
      'update',
      'execute',
      '-w',
      badgeOrderWorkflowId('cli-update'),
      '--name',
      'replaceDocument',
      '--input',
      JSON.stringify({ path: 'cli-update/scan.gif', newPath: replacement }),
      '-o',
      'json',
    ]);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toMatch(/"status":\s*"uploaded"/);
    expect(result.stdout).toContain('cli-update/form.pdf');
    const finished = await stack.orders.getHandle('cli-update').result();
    expect(finished.documents[0]?.status).toBe('uploaded');
  });

  it('shows the history with the order input in clear, and encrypted without the codec endpoint', async () => {
    stack.writeDocument('cli-show/form.pdf', '%PDF-1.4 show');
    const started = await stack.orders.startOrder({
      orderRef: 'cli-show',
      vehicle: { licensePlate: 'B-SH 4711' },
      badge,
      documents: [{ path: 'cli-show/form.pdf' }],
    });
    await started.handle.result();
    const workflow = ['-w', badgeOrderWorkflowId('cli-show')];

    // Text: the result, decoded.
    const text = await temporal(['workflow', 'show', ...workflow]);
    expect(text).toMatchObject({ code: 0 });
    expect(text.stdout).toMatch(/"orderRef":"cli-show"/);
    expect(text.stdout).toMatch(/ResultEncoding\s+json\/plain/);
    const rawText = await temporal(['workflow', 'show', ...workflow], { codec: false });
    expect(rawText.code).toBe(0);
    expect(rawText.stdout).not.toContain('"orderRef":"cli-show"');
    expect(rawText.stdout).toMatch(/ResultEncoding\s+binary\/encrypted/);

    // JSON: every event with its payloads; the start event's input holds the vehicle.
    const json = await temporal(['workflow', 'show', ...workflow, '-o', 'json']);
    expect(json).toMatchObject({ code: 0 });
    expect(payloadText(json.stdout)).toContain('B-SH 4711');
    const rawJson = await temporal(['workflow', 'show', ...workflow, '-o', 'json'], { codec: false });
    expect(rawJson.code).toBe(0);
    expect(payloadText(rawJson.stdout)).not.toContain('B-SH 4711');
    expect(payloadText(rawJson.stdout)).toContain(ENCRYPTED_ENCODING);
  });

  it('reports the codec server refusing a wrong token instead of showing ciphertext', async () => {
    await orderAwaitingRepair(stack, 'cli-refused', { licensePlate: 'B-CR 1' });
    const refused = await temporal(
      ['workflow', 'query', '-w', badgeOrderWorkflowId('cli-refused'), '--name', 'status'],
      { codecAuth: 'Bearer wrong-token' },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Unauthorized/);
    expect(refused.stdout).not.toContain('awaiting-repair');
  });
});
