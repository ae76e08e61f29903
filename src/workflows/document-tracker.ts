/**
 * The state of an order's documents inside the workflow: what is pending, uploading, uploaded or failed,
 * which file each document currently uses, and the idempotency key of its next upload.
 */
import type { DocumentInput, DocumentLinks, DocumentState, DocumentStatus } from '../contract';

interface TrackedDocument {
  readonly index: number;
  readonly path: string;
  sourcePath: string;
  contentType: string | undefined;
  filename: string | undefined;
  status: DocumentStatus;
  attempts: number;
  lastError: string | null;
  links: DocumentLinks | null;
  /** Bumped by each replacement, so a new file gets a new idempotency key. */
  revision: number;
}

/** What an upload of one document needs. */
export interface UploadJob {
  readonly path: string;
  readonly sourcePath: string;
  readonly contentType: string | undefined;
  readonly filename: string | undefined;
  readonly idempotencyKey: string;
  readonly index: number;
}

/** Tracks every document of one order. */
export class DocumentTracker {
  private readonly documents: TrackedDocument[];

  constructor(
    documents: readonly DocumentInput[],
    private readonly workflowId: string,
  ) {
    this.documents = documents.map((document, index) => ({
      index,
      path: document.path,
      sourcePath: document.path,
      contentType: document.contentType,
      filename: document.filename,
      status: 'pending',
      attempts: 0,
      lastError: null,
      links: null,
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
        idempotencyKey: `${this.workflowId}:doc:${document.index}${document.revision > 0 ? `:r${document.revision}` : ''}`,
      }));
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
    return this.view().find((document) => document.path === path);
  }

  markUploading(path: string): void {
    this.get(path).status = 'uploading';
  }

  markUploaded(path: string, links: DocumentLinks, attempts: number): void {
    const document = this.get(path);
    Object.assign(document, {
      status: 'uploaded',
      links,
      lastError: null,
      attempts: document.attempts + attempts,
    });
  }

  markFailed(path: string, error: string, attempts: number): void {
    const document = this.get(path);
    Object.assign(document, { status: 'failed', lastError: error, attempts: document.attempts + attempts });
  }

  /** Puts every failed document back in the queue; returns how many. */
  retryFailed(): number {
    const failed = this.documents.filter((document) => document.status === 'failed');
    for (const document of failed) document.status = 'pending';
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
    document.status = 'pending';
  }

  /** Read-only snapshot for the status query and results. */
  view(): DocumentState[] {
    return this.documents.map((document) => ({
      path: document.path,
      status: document.status,
      attempts: document.attempts,
      lastError: document.lastError,
      links: document.links,
      sourcePath: document.sourcePath,
    }));
  }

  private get(path: string): TrackedDocument {
    const document = this.documents.find((candidate) => candidate.path === path);
    if (!document) throw new Error(`unknown document ${path}`);
    return document;
  }
}
