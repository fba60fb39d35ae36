/**
 * Mutual TLS (`--auth mtls`): over HTTPS with trusted client CAs, a client certificate the CA
 * signed authenticates the principal its subject names; no certificate, or one of another CA, is
 * refused `UNAUTHENTICATED` — on every binding, in process, with Tandem's client over gRPC
 * (`ClientOptions.tls`), and end to end with `tandem serve --auth mtls` and the CLI's
 * `--cert`/`--key`/`--ca` over HTTP and gRPC. The certificates are made by the test.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcStatusError } from '../../src/bindings/grpc/grpc-client-transport.js';
import { GrpcCode } from '../../src/bindings/grpc/grpc-status.js';
import { createClient, textOf as answerText, type ClientTls } from '../../src/client.js';
import { defineAgent, mtlsAuthentication, type AgentDefinition } from '../../src/server.js';
import { refusal } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { useBehaviourEnv } from '../support/behaviour-env.js';
import { createTestPki, type Credential, type TestPki } from '../support/certificates.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { createDriver, fetchCard, isHttpBinding } from '../support/drivers/bindings.js';
import { clientTlsOf } from '../../src/cli/client-tls.js';
import { describeMatrix } from '../support/matrix.js';
import { send, textOf } from '../support/messages.js';
import { requireBuild, serverProcesses, CLI } from '../support/processes.js';
import { runCli } from '../cli/cli-harness.js';

const whoAmI: AgentDefinition = defineAgent({
  card: testCard('Who am I'),
  execute: (ctx) => ctx.reply(ctx.caller.principal.id),
});

let pki: TestPki;
beforeAll(() => {
  pki = createTestPki();
});
afterAll(() => pki.remove());

describeMatrix(
  'mutual TLS',
  ({ binding, store }) => {
    const env = useBehaviourEnv({ binding, store });
    let as: (client: Credential | undefined) => A2ADriver;
    let url: string;
    beforeAll(async () => {
      const server = await env.serve(whoAmI, {
        http: {
          tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert },
          authenticate: mtlsAuthentication(),
        },
        connection: { tls: { ca: pki.ca.cert } },
      });
      url = server.url;
      as = (client) =>
        createDriver(binding, server.agent.url, {
          tls: {
            ca: pki.ca.cert,
            ...(client === undefined ? {} : { cert: client.cert, key: client.key }),
          },
        });
    });

    it('authenticates the subject of a certificate the trusted CA signed', async () => {
      expect(url).toMatch(/^https:/);
      const reply = await as(pki.client('alice')).sendMessage(send('who'));
      expect(textOf(reply.message)).toBe('mtls:CN=alice,O=Tandem Tests');
    });

    it('refuses a call without a certificate, and one from another CA', async () => {
      const none = await refusal(as(undefined).listTasks(), 'UNAUTHENTICATED');
      expect(none.message).toBe(
        'Authentication required: connect with a client certificate this agent trusts',
      );
      if (isHttpBinding(binding))
        expect(none.transport.wwwAuthenticate).toBe('MutualTLS realm="a2a"');
      await refusal(as(pki.stranger).listTasks(), 'UNAUTHENTICATED');
    });

    it('declares the scheme in the card, which needs no certificate', async () => {
      const card = await fetchCard(url, { tls: { ca: pki.ca.cert } });
      expect(card.securitySchemes).toEqual({
        mtls: {
          mtlsSecurityScheme: {
            description: 'A client certificate issued by a CA this agent trusts',
          },
        },
      });
      expect(card.securityRequirements).toEqual([{ schemes: { mtls: { list: [] } } }]);
    });
  },
  { stores: ['memory'] },
);

describe("Tandem's client over gRPC with ClientOptions.tls", () => {
  const env = useBehaviourEnv({ binding: 'grpc', store: 'memory' });
  let url: string;
  beforeAll(async () => {
    const server = await env.serve(whoAmI, {
      http: {
        tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca.cert },
        authenticate: mtlsAuthentication(),
      },
      connection: { tls: { ca: pki.ca.cert } },
    });
    url = server.url;
  });

  /** A client of the agent over gRPC; the card comes over HTTPS, trusting the test CA. */
  const clientWith = (tls: ClientTls) => {
    const cardFetch = clientTlsOf({ ca: pki.ca.certPath })?.fetch;
    if (cardFetch === undefined) throw new Error('no fetch for --ca');
    return createClient(url, { bindings: ['GRPC'], tls, fetch: cardFetch, retry: false });
  };

  it('presents the certificate: the principal is its subject', async () => {
    const alice = pki.client('alice');
    // Bytes work as well as PEM text.
    const client = await clientWith({
      ca: Buffer.from(pki.ca.cert),
      cert: alice.cert,
      key: alice.key,
    });
    expect(client.selectedInterface.protocolBinding).toBe('GRPC');
    expect(client.selectedInterface.url).toMatch(/^127\.0\.0\.1:\d+$/);
    const reply = await client.send('who');
    expect(answerText(reply)).toBe('mtls:CN=alice,O=Tandem Tests');
  });

  it('is refused UNAUTHENTICATED without a certificate, and with one of another CA', async () => {
    for (const tls of [
      { ca: pki.ca.cert },
      { ca: pki.ca.cert, cert: pki.stranger.cert, key: pki.stranger.key },
    ]) {
      const client = await clientWith(tls);
      const error = await client.listTasks({}).then(
        () => expect.fail('listTasks answered'),
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GrpcStatusError);
      expect((error as GrpcStatusError).grpcCode).toBe(GrpcCode.UNAUTHENTICATED);
      expect((error as GrpcStatusError).status).toBe(401);
    }
  });

  it('does not trust the agent without the CA that signed its certificate', async () => {
    const alice = pki.client('alice');
    const client = await clientWith({ cert: alice.cert, key: alice.key });
    await expect(client.listTasks({})).rejects.toThrow(/unreachable/);
  });

  it('refuses a certificate without its key at creation', async () => {
    await expect(clientWith({ cert: pki.client('alice').cert })).rejects.toThrow(
      'tls.cert and tls.key go together',
    );
  });
});

describe('tandem serve --auth mtls with the CLI', () => {
  const processes = serverProcesses();
  beforeAll(() => requireBuild());

  it('serves HTTPS to clients with a certificate, and refuses the others', async () => {
    const { url } = await processes.start(
      [
        CLI,
        'serve',
        '--port',
        '0',
        '--store',
        'memory',
        '--agent',
        'echo',
        '--log-level',
        'silent',
        '--auth',
        'mtls',
        '--tls-cert',
        pki.server.certPath,
        '--tls-key',
        pki.server.keyPath,
        '--tls-ca',
        pki.ca.certPath,
      ],
      /^Tandem is serving .* at (https:\/\/\S+)$/,
    );
    const alice = pki.client('alice');
    const sent = await runCli([
      'send',
      url,
      'echo hello over mTLS',
      '--cert',
      alice.certPath,
      '--key',
      alice.keyPath,
      '--ca',
      pki.ca.certPath,
    ]);
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('hello over mTLS');
    const anonymous = await runCli(['send', url, 'hello', '--ca', pki.ca.certPath]);
    expect(anonymous.code).toBe(3);
    expect(anonymous.stderr).toMatch(/client certificate/);
    const stranger = await runCli([
      'send',
      url,
      'hello',
      '--cert',
      pki.stranger.certPath,
      '--key',
      pki.stranger.keyPath,
      '--ca',
      pki.ca.certPath,
    ]);
    expect(stranger.code).toBe(3);
  });

  it('serves TLS gRPC to clients with a certificate: --binding grpc --cert --key --ca', async () => {
    const { process: serve, url } = await processes.start(
      [
        ...[CLI, 'serve', '--port', '0', '--grpc-port', '0', '--store', 'memory'],
        ...['--agent', 'echo', '--log-level', 'silent', '--auth', 'mtls'],
        ...['--tls-cert', pki.server.certPath, '--tls-key', pki.server.keyPath],
        ...['--tls-ca', pki.ca.certPath],
      ],
      /^Tandem is serving .* at (https:\/\/\S+)$/,
    );
    await serve.line(/^ {2}gRPC +(\S+)$/, 5_000);
    const alice = pki.client('alice');
    const tls = ['--cert', alice.certPath, '--key', alice.keyPath, '--ca', pki.ca.certPath];
    const sent = await runCli(['send', url, 'echo hello over gRPC', '--binding', 'grpc', ...tls]);
    // Empty stderr: no DEP0123 warning for TLS to an IP address either.
    expect(sent.stderr).toBe('');
    expect(sent.code).toBe(0);
    expect(sent.stdout).toContain('hello over gRPC');
    const listed = await runCli(['tasks', url, '--binding', 'grpc', '--json', ...tls]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.stdout) as { tasks: unknown[] }).tasks).toHaveLength(1);
    const anonymous = await runCli([
      'send',
      url,
      'hello',
      '--binding',
      'grpc',
      '--ca',
      pki.ca.certPath,
    ]);
    expect(anonymous.code).toBe(3);
    expect(anonymous.stderr).toMatch(/client certificate/);
  });
});
