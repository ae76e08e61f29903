/**
 * Repairs the demo's AwaitingRepair order: replaces the rejected .txt with a PDF through the
 * `replaceDocument` update and prints the document's new state.
 */
import { BadgeOrdersClient } from '../src/client/badge-orders-client';
import { loadTemporalConfig } from '../src/config';
import { connectClient } from '../src/temporal/connection';

async function main(): Promise<void> {
  const config = loadTemporalConfig();
  const client = await connectClient(config);
  try {
    const orders = new BadgeOrdersClient({ client, taskQueue: config.taskQueue });
    const document = await orders.replaceDocument('demo-awaiting-repair', {
      path: 'handwritten-note.txt',
      newPath: 'handwritten-note.pdf',
    });
    console.log(`handwritten-note.txt is now ${document.status} (from ${document.sourcePath})`);
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
