/**
 * A throwaway self-signed certificate for a loopback HTTPS server (the codec server: the Web UI passes the
 * operator's access token only to an `https://` codec endpoint), made with the `openssl` command.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A certificate for `127.0.0.1` and its key, as PEM files and text. */
export interface LoopbackCertificate {
  readonly certFile: string;
  readonly keyFile: string;
  /** The certificate (PEM): the one CA a client needs to trust. */
  readonly cert: string;
}

/** Writes `loopback-cert.pem` and `loopback-key.pem` (valid one day, for IP 127.0.0.1) into `folder`. */
export function loopbackCertificate(folder: string): LoopbackCertificate {
  const certFile = join(folder, 'loopback-cert.pem');
  const keyFile = join(folder, 'loopback-key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8') };
}
