/** One loopback and URL policy for every process (issue 30): the platform, S3, JWKS and callback URLs agree. */
import { insecureUrlProblem, isLoopbackHost } from '../src/url-policy';
import { callbackUrlShapeProblem } from '../src/contract';

describe('isLoopbackHost', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    'api.localhost',
    '127.0.0.1',
    '127.9.8.7',
    '::1',
    '[::1]',
    '[::ffff:127.0.0.1]',
  ])('%s is this machine', (host) => expect(isLoopbackHost(host)).toBe(true));
  it.each([
    '127.0.0.1.example.com',
    'localhost.example.com',
    '10.0.0.1',
    '::2',
    '[::]',
    '0.0.0.0',
    'example.com',
  ])('%s is not', (host) => expect(isLoopbackHost(host)).toBe(false));
});

describe('insecureUrlProblem', () => {
  it.each([
    'https://idp.example/jwks',
    'http://127.0.0.2:9/jwks',
    'http://[::1]:9/jwks',
    'http://a.localhost/',
  ])('accepts %s', (url) => expect(insecureUrlProblem(url)).toBeUndefined());

  it('refuses http:// off loopback unless allowed, and credentials always', () => {
    expect(insecureUrlProblem('http://idp.example/jwks')).toBe(
      'must be an https:// URL (http:// only on loopback)',
    );
    expect(insecureUrlProblem('http://idp.example/jwks', { allowInsecureHttp: true })).toBeUndefined();
    expect(
      insecureUrlProblem('http://s3.example', { inClear: { what: 'documents', variable: 'X_ALLOW' } }),
    ).toBe('sends documents in clear over http:// to s3.example: use https://, or set X_ALLOW=true');
    expect(insecureUrlProblem('https://u:p@idp.example/', { allowInsecureHttp: true })).toBe(
      'must not contain credentials (user:password@)',
    );
    expect(insecureUrlProblem('ftp://idp.example/')).toBe('must be an http:// or https:// URL');
    expect(insecureUrlProblem('nope')).toBe('must be a URL');
  });

  it('agrees with the callback URL check on what is this machine', () => {
    for (const url of [
      'http://127.0.0.2/h',
      'http://[::1]/h',
      'http://localhost/h',
      'http://example.com/h',
    ]) {
      expect(callbackUrlShapeProblem(url) === null).toBe(insecureUrlProblem(url) === undefined);
    }
  });
});
