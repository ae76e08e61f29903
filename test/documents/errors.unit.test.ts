/**
 * Which errno codes are final for a document. The real-file tests cover ENOENT, ENOTDIR, ELOOP and EACCES; the
 * codes a test cannot provoke safely in a shared test process (EMFILE, EIO, …) are classified here.
 */
import {
  classifyDocumentError,
  DocumentUnavailableError,
  InvalidDocumentError,
} from '../../src/documents/errors';

const systemError = (code: string): Error =>
  Object.assign(new Error(`${code}: failed, open '/srv/host/secret/path'`), { code });

describe('classifyDocumentError', () => {
  it.each(['ENOENT', 'ENOTDIR', 'ELOOP'])('%s is final', (code) => {
    const error = classifyDocumentError(systemError(code), 'docs/a.pdf', 'open');
    expect(error).toBeInstanceOf(InvalidDocumentError);
    expect(error).toMatchObject({ code: 'INVALID_DOCUMENT', fsCode: code, relativePath: 'docs/a.pdf' });
  });

  it.each(['EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'EIO', 'ESTALE', 'EAGAIN', 'ENOMEM'])(
    '%s is retryable and names only the relative path',
    (code) => {
      const error = classifyDocumentError(systemError(code), 'docs/a.pdf', 'read');
      expect(error).toBeInstanceOf(DocumentUnavailableError);
      expect(error).toMatchObject({ code: 'DOCUMENT_UNAVAILABLE', fsCode: code });
      expect(error.message).toBe(`docs/a.pdf: cannot read the file right now (${code}); will retry`);
    },
  );

  it('an error without an errno code is retryable', () => {
    const error = classifyDocumentError(new Error('/srv/host/secret/path went away'), 'docs/a.pdf', 'open');
    expect(error).toBeInstanceOf(DocumentUnavailableError);
    expect(error.message).toBe('docs/a.pdf: cannot open the file right now (unknown error); will retry');
  });

  it('keeps our own errors as they are', () => {
    const invalid = new InvalidDocumentError({ relativePath: 'a', message: 'a: is empty' });
    expect(classifyDocumentError(invalid, 'a', 'open')).toBe(invalid);
  });
});
