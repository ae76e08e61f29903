/**
 * Orders whose documents are references to objects in an S3-compatible store (versitygw on loopback): a real
 * dev server, the real sandbox over HTTP, and a worker whose document store is S3 (`DOCUMENT_STORE=s3`).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { documentStoreConfigSchema } from '../../src/config';
import { createS3DocumentStore, type DocumentStore } from '../../src/documents';
import { startLocalS3, type LocalS3 } from '../../tools/stack/s3';
import { useTestStack } from '../helpers/stack';
import { pollUntil } from '../../tools/dev/poll';

const vehicle = { licensePlate: 'B-S3 1234', vin: 'WVWZZZ1JZXW000003' };
const badge = { type: 'green' };
const PREFIX = 'orders/';
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

describe('orders naming documents by reference, store = S3', () => {
  const stack = useTestStack({ resetSandbox: true });
  let s3: LocalS3;
  let store: DocumentStore;

  beforeAll(async () => {
    s3 = await startLocalS3({ cleanups: { add: (name, stop) => stack.local.onStop(name, stop) } });
    store = createS3DocumentStore({
      bucket: s3.bucket,
      prefix: PREFIX,
      endpoint: s3.endpoint,
      credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      maxBytes: 64 * 1024 * 1024,
    });
    // The worker as configured from the environment: DOCUMENT_STORE=s3 and its settings.
    await stack.local.startWorker({
      config: {
        documentStore: documentStoreConfigSchema.parse({
          kind: 's3',
          bucket: s3.bucket,
          prefix: PREFIX,
          endpoint: s3.endpoint,
          credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
        }),
      },
    });
  }, 600_000);

  const put = (bytes: Buffer, contentType: string) =>
    store.put({ owner: 'client-a', body: Readable.from([bytes]), contentType, maxBytes: 64 * 1024 * 1024 });

  it('completes, and the platform holds exactly the stored bytes', async () => {
    const photo = randomBytes(3 * 1024 * 1024 + 5);
    const form = Buffer.from('%PDF-1.4 application form by reference');
    const photoRef = await put(photo, 'image/jpeg');
    const formRef = await put(form, 'application/pdf');
    const started = await stack.orders.startOrder({
      orderRef: 's3-happy',
      vehicle,
      badge,
      documents: [{ ref: photoRef.ref }, { ref: formRef.ref, filename: 'application.pdf' }],
    });
    const result = await started.handle.result();
    expect(result.documents.map((document) => [document.path, document.status])).toEqual([
      [photoRef.ref, 'uploaded'],
      [formRef.ref, 'uploaded'],
    ]);
    const stored = await stack.sandbox.control.listDocuments({ orderId: result.orderId });
    expect(stored.map((document) => document.sha256).sort()).toEqual([sha256(photo), sha256(form)].sort());
    const byHash = new Map(stored.map((document) => [document.sha256, document]));
    expect(byHash.get(sha256(photo))).toMatchObject({ size: photo.length, content_type: 'image/jpeg' });
    expect(byHash.get(sha256(form))).toMatchObject({
      filename: 'application.pdf',
      content_type: 'application/pdf',
    });
  });

  it('an object changed in S3 after put fails that document for good; the platform never gets the changed bytes', async () => {
    const good = randomBytes(200_000);
    const tampered = randomBytes(512 * 1024);
    const goodRef = await put(good, 'image/png');
    const tamperedRef = await put(tampered, 'image/png');
    const changed = Buffer.from(tampered);
    changed[changed.length - 1] = (changed[changed.length - 1] ?? 0) ^ 0x01;
    await s3.client.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: `${PREFIX}sha256/${tamperedRef.ref.slice('sha256:'.length)}`,
        Body: changed,
      }),
    );
    await stack.orders.startOrder({
      orderRef: 's3-tampered',
      vehicle,
      badge,
      documents: [{ ref: goodRef.ref }, { ref: tamperedRef.ref }],
    });
    const status = await pollUntil(
      () => stack.orders.status('s3-tampered'),
      (view) => view.searchStatus === 'AwaitingRepair',
      { what: 's3-tampered to await repair', timeoutMs: 120_000 },
    );
    const failed = status.documents.find((document) => document.path === tamperedRef.ref);
    expect(failed?.status).toBe('failed');
    expect(failed?.lastError).toContain('no longer matches its reference');
    // For good: the mismatch ends the upload at the attempt that finds it (an attempt before it may have met a
    // passing transport error; that one is retried, as it should be).
    const history = await stack.orders.getHandle('s3-tampered').fetchHistory();
    const uploadFailures = (history.events ?? []).flatMap((event) => {
      const info = event.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo;
      return info ? [{ type: info.type, nonRetryable: info.nonRetryable }] : [];
    });
    expect(uploadFailures).toEqual([{ type: 'INVALID_DOCUMENT', nonRetryable: true }]);
    expect(status.documents.find((document) => document.path === goodRef.ref)?.status).toBe('uploaded');
    const all = await stack.sandbox.control.listDocuments();
    const hashes = all.map((document) => document.sha256);
    expect(hashes).toContain(sha256(good));
    expect(hashes).not.toContain(sha256(changed));
    expect(hashes).not.toContain(sha256(tampered));
  });
});
