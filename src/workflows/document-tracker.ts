/**
 * The state of an order's documents inside the workflow: what is pending, uploading, uploaded or failed,
 * which file each document currently uses, the idempotency key of its next upload, and whether an earlier
 * attempt may have stored a copy already.
 */
import type { DocumentInput, DocumentLinks, DocumentState, DocumentStatus } from '../contract';
import { documentSourceOf } from '../workflow-contract';
import { capLength } from './failures';

/** One document's whole state, as carried across continue-as-new. */
export interface TrackedDocument {
  readonly index: number;
  readonly path: string;
  sourcePath: string;
  contentType: string | undefined;
  filename: string | undefined;
  status: DocumentStatus;
  attempts: number;
  lastError: string | null;
  documentId: string | null;
  links: DocumentLinks | null;
  /** A failed attempt may have stored the file (it failed after the file was sent). */
  mayHaveBeenStored: boolean;
  /** Its last failure may have stored the file and ended its retries: a person decides (absent before 0.6.0). */
  held?: boolean;
  possibleDuplicate: boolean;
  /** Bumped by each replacement, so a new file gets a new idempotency key. */
  revision: number;
  /** A `replaceDocument` is checking a new file for this document: nothing else may queue it meanwhile. */
  claimed?: boolean;
}

/** What an upload of one document needs. */
export type UploadJob = Readonly<
  Pick<TrackedDocument, 'path' | 'sourcePath' | 'contentType' | 'filename' | 'index'> & {
    idempotencyKey: string;
  }
>;

/**
 * What a successful upload reports: `attempts` it took, and whether an attempt may have stored a copy before the
 * one that succeeded (`possibleDuplicate`).
 */
type UploadOutcome = Readonly<Pick<TrackedDocument, 'documentId' | 'possibleDuplicate' | 'attempts'>> & {
  readonly links: DocumentLinks;
};

/** What a failed upload reports: whether the platform may hold the file (the attempt failed after sending it). */
type UploadFailure = Readonly<
  Pick<TrackedDocument, 'attempts' | 'mayHaveBeenStored'> & { error: string; held: boolean }
>;

/** Tracks every document of one order. */
export class DocumentTracker {
  private readonly documents: TrackedDocument[];

  constructor(
    documents: readonly DocumentInput[],
    private readonly workflowId: string,
    restored?: readonly TrackedDocument[],
  ) {
    if (restored !== undefined) {
      // A continued run: every document as the previous run left it (a claim does not survive a run).
      this.documents = restored.map((document) => ({ ...document, claimed: false }));
      return;
    }
    this.documents = documents.map((document, index) => ({
      index,
      // A document named by reference is keyed by its reference.
      path: documentSourceOf(document),
      sourcePath: documentSourceOf(document),
      contentType: document.contentType,
      filename: document.filename,
      status: 'pending',
      attempts: 0,
      lastError: null,
      documentId: null,
      links: null,
      mayHaveBeenStored: false,
      possibleDuplicate: false,
      revision: 0,
    }));
  }

  /** Documents waiting to be uploaded, as upload jobs. */
  pendingJobs(): UploadJob[] {
    return this.documents
      .filter((document) => document.status === 'pending')
      .map((document) => ({
        path: document.path,
        sourcePath: document.sourcePath,
        contentType: document.contentType,
        filename: document.filename,
        index: document.index,
        idempotencyKey: this.keyOf(document),
      }));
  }

  get count(): number {
    return this.documents.length;
  }

  hasPending(): boolean {
    return this.documents.some((document) => document.status === 'pending');
  }

  allUploaded(): boolean {
    return this.documents.every((document) => document.status === 'uploaded');
  }

  failed(): DocumentState[] {
    return this.view().filter((document) => document.status === 'failed');
  }

  find(path: string): DocumentState | undefined {
    const document = this.documents.find((candidate) => candidate.path === path);
    return document && this.stateOf(document);
  }

  markUploading(path: string): void {
    this.get(path).status = 'uploading';
  }

  markUploaded(path: string, outcome: UploadOutcome): void {
    const document = this.get(path);
    Object.assign(document, {
      status: 'uploaded',
      documentId: outcome.documentId,
      links: outcome.links,
      lastError: null,
      attempts: document.attempts + outcome.attempts,
      // A copy may exist when this upload's own attempts say so, or when an earlier round failed after
      // sending the same file under the same key (a platform that ignores keys stores it twice).
      possibleDuplicate: outcome.possibleDuplicate || document.mayHaveBeenStored,
    });
  }

  markFailed(path: string, failure: UploadFailure): void {
    const document = this.get(path);
    Object.assign(document, {
      status: 'failed',
      // Capped here too: the caller's text may come from anywhere, and every status answer carries it.
      lastError: capLength(failure.error),
      attempts: document.attempts + failure.attempts,
      mayHaveBeenStored: document.mayHaveBeenStored || failure.mayHaveBeenStored,
      held: failure.held,
    });
  }

  /**
   * A person's answer about a held document: the platform holds it under `documentId` (it counts as uploaded), or
   * it holds none (it is queued again, and no earlier attempt counts as a possible copy any more).
   */
  reconcile(path: string, answer: { readonly documentId: string } | { readonly notStored: true }): void {
    const document = this.get(path);
    document.mayHaveBeenStored = false;
    if ('documentId' in answer) {
      Object.assign(document, { status: 'uploaded', documentId: answer.documentId, lastError: null });
    } else {
      document.status = 'pending';
    }
  }

  /** Every document's whole state, for continue-as-new. */
  snapshot(): TrackedDocument[] {
    return this.documents.map((document) => ({ ...document, claimed: false }));
  }

  /** Whether a replacement is being checked for some document. */
  hasClaimed(): boolean {
    return this.documents.some((document) => document.claimed === true);
  }

  /** Whether the document is claimed by a replacement in progress. */
  isClaimed(path: string): boolean {
    return this.get(path).claimed === true;
  }

  /**
   * Claims a failed document for a replacement before its new file is checked, so that a `retryUploads`
   * arriving meanwhile does not upload the old file.
   */
  claim(path: string): void {
    this.get(path).claimed = true;
  }

  /** Gives up a claim (the new file was refused): the document stays failed. */
  release(path: string): void {
    this.get(path).claimed = false;
  }

  /**
   * Puts every failed document back in the queue, except those claimed by a replacement and, with `skipHeld`,
   * those held for a person; with `newKeys` each under a new idempotency key (its request changed: another
   * owner). A copy an earlier attempt may have stored stays counted, so the upload is flagged
   * `possibleDuplicate` if that was so. Returns how many.
   */
  requeueFailed(options: { readonly newKeys: boolean; readonly skipHeld?: boolean }): number {
    const failed = this.documents.filter(
      (document) =>
        document.status === 'failed' &&
        document.claimed !== true &&
        !(options.skipHeld === true && isHeld(document)),
    );
    for (const document of failed) {
      if (options.newKeys) document.revision += 1;
      document.status = 'pending';
    }
    return failed.length;
  }

  /** Swaps a failed document's file and queues it again under a new idempotency key. */
  replace(path: string, newPath: string, contentType: string | undefined): void {
    const document = this.get(path);
    document.sourcePath = newPath;
    document.contentType = contentType;
    // The platform sees the new file under its own name, not the name given for the old one.
    document.filename = undefined;
    document.revision += 1;
    // A copy of the old file is not a copy of the new one.
    document.mayHaveBeenStored = false;
    document.claimed = false;
    document.status = 'pending';
  }

  /** Read-only snapshot for the status query and results. */
  view(): DocumentState[] {
    return this.documents.map((document) => this.stateOf(document));
  }

  private get(path: string): TrackedDocument {
    const document = this.documents.find((candidate) => candidate.path === path);
    if (!document) throw new Error(`unknown document ${path}`);
    return document;
  }

  /** The `Idempotency-Key` of the document's uploads: a new one with each revision (a new file or request). */
  private keyOf(document: TrackedDocument): string {
    return `${this.workflowId}:doc:${document.index}${document.revision > 0 ? `:r${document.revision}` : ''}`;
  }

  /** What the status query and results show of one document. */
  private stateOf(document: TrackedDocument): DocumentState {
    return {
      path: document.path,
      status: document.status,
      attempts: document.attempts,
      lastError: document.lastError,
      documentId: document.documentId,
      links: document.links,
      possibleDuplicate: document.possibleDuplicate,
      sourcePath: document.sourcePath,
      held: isHeld(document),
      idempotencyKey: this.keyOf(document),
    };
  }
}

/** Whether the document waits for a person: it failed last, and that failure held it. */
function isHeld(document: TrackedDocument): boolean {
  return document.status === 'failed' && document.held === true;
}
