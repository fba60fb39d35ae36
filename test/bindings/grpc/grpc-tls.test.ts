/**
 * gRPC over TLS: the server's certificate, and mutual TLS — a verified client certificate reaches
 * the identity hook (as `peer.certificate`, like on HTTPS), and a client without one still
 * connects and is refused by the hook, not by the handshake. Certificates are made with the
 * `openssl` command for the test; without it the file is skipped with a message.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Metadata, credentials, type ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grpcMethodOf } from '../../../src/bindings/grpc/grpc-codec.js';
import { GrpcCode } from '../../../src/bindings/grpc/grpc-status.js';
import {
  AuthenticationError,
  createRequestHandler,
  createTaskRuntime,
  type Authenticator,
} from '../../../src/server.js';
import { MemoryTaskStore } from '../../../src/stores.js';
import { createGrpcServer, type A2AGrpcServer } from '../../../src/server-grpc.js';
import { testAgent } from '../../support/agents.js';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const OPENSSL = hasOpenssl();
if (!OPENSSL)
  console.warn('[tests] gRPC TLS tests skipped: no openssl command to make certificates');

interface Pem {
  readonly ca: Buffer;
  readonly serverCert: Buffer;
  readonly serverKey: Buffer;
  readonly clientCert: Buffer;
  readonly clientKey: Buffer;
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate (CN grpc-client). */
function makeCertificates(dir: string): Pem {
  const run = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  };
  const key = (name: string): void =>
    run('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', name);
  key('ca.key');
  run(
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-subj',
    '/CN=Test CA',
    '-days',
    '2',
    '-out',
    'ca.pem',
  );
  for (const [name, cn] of [
    ['server', '127.0.0.1'],
    ['client', 'grpc-client'],
  ] as const) {
    key(`${name}.key`);
    run('req', '-new', '-key', `${name}.key`, '-subj', `/CN=${cn}`, '-out', `${name}.csr`);
    run(
      ...['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key'],
      ...['-CAcreateserial', '-days', '2', '-out', `${name}.pem`, '-extfile', `${name}.ext`],
    );
  }
  const read = (name: string): Buffer => readFileSync(join(dir, name));
  return {
    ca: read('ca.pem'),
    serverCert: read('server.pem'),
    serverKey: read('server.key'),
    clientCert: read('client.pem'),
    clientKey: read('client.key'),
  };
}

describe.skipIf(!OPENSSL)('gRPC over TLS', () => {
  const runtime = createTaskRuntime({ store: new MemoryTaskStore() });
  const dir = mkdtempSync(join(tmpdir(), 'tandem-grpc-tls-'));
  let pem: Pem;
  let grpc: A2AGrpcServer;
  let address: string;
  const seen: (string | undefined)[] = [];

  beforeAll(async () => {
    writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\n');
    writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
    pem = makeCertificates(dir);
    await runtime.start();
    const authenticate: Authenticator = ({ peer }) => {
      const cn = peer.certificate?.subject.CN;
      seen.push(typeof cn === 'string' ? cn : undefined);
      return typeof cn === 'string'
        ? { id: cn, anonymous: false }
        : new AuthenticationError('Present a client certificate', { challenges: ['mTLS'] });
    };
    grpc = createGrpcServer({
      agents: [{ path: '', handler: createRequestHandler({ agent: testAgent, runtime }) }],
      tls: { cert: pem.serverCert, key: pem.serverKey, ca: pem.ca },
      authenticate,
    });
    ({ address } = await grpc.listen());
  });

  afterAll(async () => {
    await grpc.shutdown({ deadlineMs: 500 });
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function listTasks(client: Client): Promise<ServiceError | null> {
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    const method = grpcMethodOf('ListTasks');
    return new Promise((resolve) => {
      client.makeUnaryRequest(
        method.path,
        (b: Buffer) => b,
        (b: Buffer) => b,
        Buffer.from(method.request.encode({})),
        metadata,
        (error) => resolve(error),
      );
    });
  }

  it('hands a verified client certificate to the identity hook', async () => {
    const client = new Client(
      address,
      credentials.createSsl(pem.ca, pem.clientKey, pem.clientCert),
    );
    expect(await listTasks(client)).toBeNull();
    client.close();
    expect(seen.at(-1)).toBe('grpc-client');
  });

  it('lets a client without a certificate connect; the identity hook refuses it', async () => {
    const client = new Client(address, credentials.createSsl(pem.ca));
    const error = await listTasks(client);
    client.close();
    expect(error?.code).toBe(GrpcCode.UNAUTHENTICATED);
    expect(error?.metadata.get('www-authenticate')[0]).toBe('mTLS');
    expect(seen.at(-1)).toBeUndefined();
  });
});
