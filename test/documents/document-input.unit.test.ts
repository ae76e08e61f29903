/** The order contract's two ways of naming a document: `path` or `ref`, exactly one. */
import type { InvalidOrderInputError } from '../../src/contract';
import { parseBadgeOrderInput, replaceDocumentInputSchema } from '../../src/contract';

const ref = `sha256:${'ab'.repeat(32)}`;
const order = (documents: unknown[]): unknown => ({
  orderRef: 'r-1',
  vehicle: { vin: 'x' },
  badge: { type: 'green' },
  documents,
});
const issuesOf = (input: unknown): string => {
  try {
    parseBadgeOrderInput(input);
    return '';
  } catch (error) {
    return (error as InvalidOrderInputError).issues.join('; ');
  }
};

describe('document input: path or ref', () => {
  it('accepts either form, with contentType and filename', () => {
    const parsed = parseBadgeOrderInput(
      order([{ path: 'a/b.pdf' }, { ref, contentType: 'application/pdf', filename: 'form.pdf' }]),
    );
    expect(parsed.documents).toEqual([
      { path: 'a/b.pdf' },
      { ref, contentType: 'application/pdf', filename: 'form.pdf' },
    ]);
  });

  it('names the field when neither or both are given, or a reference is malformed', () => {
    expect(issuesOf(order([{ filename: 'x' }]))).toBe(
      'documents.0.path: is required (or "ref"): name the document once',
    );
    expect(issuesOf(order([{ path: 'a.pdf', ref }]))).toBe(
      'documents.0.ref: must not be given together with "path"',
    );
    expect(issuesOf(order([{ ref: 'sha256:ABC' }]))).toContain(
      'documents.0.ref: must be a document reference',
    );
    expect(issuesOf(order([{ ref: `sha1:${'a'.repeat(40)}` }]))).toContain('documents.0.ref:');
  });

  it('refuses a path shaped like a reference, so a source string is never ambiguous', () => {
    expect(issuesOf(order([{ path: ref }]))).toBe(
      'documents.0.path: is a document reference: name it with "ref", not "path"',
    );
  });

  it('refuses the same reference twice, naming it', () => {
    expect(issuesOf(order([{ ref }, { ref }]))).toBe('documents.1.ref: is listed twice');
  });

  it('replaceDocument takes a path or a reference as newPath', () => {
    expect(replaceDocumentInputSchema.safeParse({ path: 'a.pdf', newPath: ref }).success).toBe(true);
    expect(replaceDocumentInputSchema.safeParse({ path: ref, newPath: 'fixed/a.pdf' }).success).toBe(true);
    expect(replaceDocumentInputSchema.safeParse({ path: 'a.pdf', newPath: '../etc/passwd' }).success).toBe(
      false,
    );
  });
});
