/**
 * Certificates the mutual-TLS tests create: a CA, a server certificate for 127.0.0.1 signed by
 * it, client certificates signed by it, and a client certificate signed by another CA (which the
 * server must not trust). Made with the `openssl` command, present wherever Node is built or
 * deployed: Node's own crypto can make keys but not X.509 certificates, and a dependency
 * (`selfsigned`, node-forge) would add a second TLS stack just for tests.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A key and its certificate, PEM, and where they are on disk (for CLI flags). */
export interface Credential {
  readonly cert: string;
  readonly key: string;
  readonly certPath: string;
  readonly keyPath: string;
}

/** What a test of mutual TLS needs. */
export interface TestPki {
  readonly dir: string;
  readonly ca: Credential;
  readonly server: Credential;
  /** Signed by {@link ca}, subject `CN=<name>,O=Tandem Tests`. */
  client(name: string): Credential;
  /** A client certificate signed by a CA the server does not trust. */
  readonly stranger: Credential;
  remove(): void;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function credential(dir: string, name: string): Credential {
  const certPath = join(dir, `${name}.crt`);
  const keyPath = join(dir, `${name}.key`);
  return {
    cert: readFileSync(certPath, 'utf8'),
    key: readFileSync(keyPath, 'utf8'),
    certPath,
    keyPath,
  };
}

function makeCa(dir: string, name: string): Credential {
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign',
  ]);
  return credential(dir, name);
}

function makeSigned(
  dir: string,
  name: string,
  subject: string,
  ca: string,
  ext: string,
): Credential {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  ]);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
  return credential(dir, name);
}

/** Creates the CA, the server certificate and the stranger in a fresh temporary directory. */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'tandem-pki-'));
  const ca = makeCa(dir, 'ca');
  const server = makeSigned(
    dir,
    'server',
    '/CN=127.0.0.1',
    'ca',
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n',
  );
  makeCa(dir, 'other-ca');
  const stranger = makeSigned(
    dir,
    'stranger',
    '/CN=mallory/O=Tandem Tests',
    'other-ca',
    'extendedKeyUsage=clientAuth\n',
  );
  const clients = new Map<string, Credential>();
  return {
    dir,
    ca,
    server,
    stranger,
    client(name) {
      let found = clients.get(name);
      if (found === undefined) {
        found = makeSigned(
          dir,
          `client-${name}`,
          `/CN=${name}/O=Tandem Tests`,
          'ca',
          'extendedKeyUsage=clientAuth\n',
        );
        clients.set(name, found);
      }
      return found;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
