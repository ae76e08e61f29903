/**
 * Step: stream one document to the platform, linked to the order: from DOCUMENTS_ROOT (a path), or from the
 * document store (a `sha256:` reference; its stream is checked against the reference before its last chunk).
 *
 * Heartbeats say this worker is alive and carry what later attempts must know: whether an earlier attempt
 * may already have stored the file. An attempt counts as possibly stored from the moment its request may
 * have left (a retry's first heartbeat says so before anything is sent; for a first attempt, the absence of
 * any record says so) until it fails in a way that proves otherwise; a retry after that is flagged `possibleDuplicate`. When in doubt, flag: a missing flag hides a
 * duplicate, an extra flag only asks someone to look.
 */
import { basename } from 'node:path';
import { Context } from '@temporalio/activity';
import { isDocumentReference } from '../contract';
import { defaultReferenceFilename, withOpenedDocument } from '../documents';
import type { UploadSource } from '../platform';
import { callOutcomeOf, toApplicationFailure } from './to-application-failure';
import { DEFAULT_PLATFORM_BEHAVIOUR, type ActivityDependencies } from './dependencies';
import type { UploadDocumentInput, UploadDocumentResult } from './types';

/** What an upload attempt records in its heartbeats for the next attempt. */
interface UploadHeartbeat {
  readonly bytesSent: number;
  readonly sizeBytes: number | null;
  /** This attempt's request may be with the platform. */
  readonly inFlight: boolean;
  /** An earlier attempt may have stored the file. */
  readonly mayHaveStored: boolean;
}

function isUploadHeartbeat(value: unknown): value is UploadHeartbeat {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as UploadHeartbeat).inFlight === 'boolean' &&
    typeof (value as UploadHeartbeat).mayHaveStored === 'boolean'
  );
}

/** Creates the `uploadDocument` activity. */
export function uploadDocumentActivity(
  deps: ActivityDependencies,
): (input: UploadDocumentInput) => Promise<UploadDocumentResult> {
  const heartbeatIntervalMs = deps.heartbeatIntervalMs ?? 1_000;
  const behaviour = deps.behaviour ?? DEFAULT_PLATFORM_BEHAVIOUR;
  return async function uploadDocument(input) {
    const context = Context.current();
    const attempt = context.info.attempt;
    const previous: unknown = context.info.heartbeatDetails;
    // No record of an earlier attempt that was started: assume the worst.
    const mayHaveStored = isUploadHeartbeat(previous)
      ? previous.mayHaveStored || previous.inFlight
      : attempt > 1;
    let beat: UploadHeartbeat = { bytesSent: 0, sizeBytes: null, inFlight: true, mayHaveStored };
    // A retry overwrites the record of the attempt before it first. A first attempt has no record to
    // overwrite, and a retry that finds none assumes the worst already: the opening heartbeat (a call to the
    // server for every document) would tell later attempts nothing more.
    if (attempt > 1 || previous !== undefined) context.heartbeat(beat);
    try {
      const send = async (
        document: UploadSource,
        defaults: { readonly filename: string; readonly contentType?: string },
      ): Promise<UploadDocumentResult> => {
        beat = { ...beat, sizeBytes: document.sizeBytes };
        const timer = setInterval(() => context.heartbeat(beat), heartbeatIntervalMs);
        try {
          const contentType = input.contentType ?? defaults.contentType;
          const uploaded = await deps.platform.uploadDocument({
            source: document,
            // Scheduled before 0.4.0, the ids may be numbers.
            orderId: String(input.orderId),
            documentOwner: String(input.documentOwner),
            idempotencyKey: input.idempotencyKey,
            ...(contentType !== undefined && { contentType }),
            filename: input.filename ?? defaults.filename,
            signal: context.cancellationSignal,
            onProgress: (bytesSent) => {
              beat = { ...beat, bytesSent };
            },
          });
          return {
            documentId: uploaded.documentId,
            // The signed download link is a credential: it never enters workflow history.
            links: { original: uploaded.links.original, thumbnail: uploaded.links.thumbnail },
            sizeBytes: document.sizeBytes,
            attempt,
            possibleDuplicate: mayHaveStored,
          };
        } finally {
          clearInterval(timer);
        }
      };
      if (isDocumentReference(input.path)) {
        const stored = await deps.documentStore.open({ ref: input.path });
        try {
          return await send(stored, {
            filename: defaultReferenceFilename(stored.reference.ref),
            contentType: stored.reference.contentType,
          });
        } finally {
          // As `withOpenedDocument`: closing never changes what the platform answered.
          await stored.close().catch(() => undefined);
        }
      }
      return await withOpenedDocument(
        deps.documentsRoot,
        input.path,
        (document) => send(document, { filename: basename(input.path) }),
        { within: input.documentsFolder },
      );
    } catch (error) {
      const outcome = callOutcomeOf(error);
      context.heartbeat({
        ...beat,
        inFlight: false,
        mayHaveStored: mayHaveStored || outcome === 'maybe-applied',
      });
      throw toApplicationFailure(error, attempt, {
        cancellationSignal: context.cancellationSignal,
        holdWhenMaybeApplied: behaviour.uploadUnknownOutcome === 'hold',
      });
    }
  };
}
