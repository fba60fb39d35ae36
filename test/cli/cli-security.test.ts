/**
 * The security of `tandem serve` end to end, in child processes: bearer tokens from a file,
 * re-read on SIGHUP (a file that no longer parses keeps the old tokens); API keys where the card
 * says, found there by the CLI's `--api-key`; the extended card for authenticated callers only,
 * on every binding; `tandem keygen`, `tandem serve --sign-card` and `tandem card --verify`;
 * `--admin` and the limit flags; JWTs by JWKS URL and by OpenID discovery.
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskNotFoundError } from '../../src/index.js';
import { createClient, type PublicJwk } from '../../src/client.js';
import { refusal, rejection } from '../support/a2a-errors.js';
import { isHttpBinding, BINDINGS, connectDriver } from '../support/drivers/bindings.js';
import { startIdentityProvider, type IdentityProvider } from '../support/identity-provider.js';
import { send } from '../support/messages.js';
import { CLI, SERVE_URL_LINE, requireBuild, serverProcesses } from '../support/processes.js';
import { runCli } from './cli-harness.js';

const T1 = 'first-token-0123456789abcdef';
const T2 = 'second-token-0123456789abcdef';
const KEY = 'service-key-0123456789abcdef';

let dir: string;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'tandem-cli-security-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const processes = serverProcesses();

function serve(args: readonly string[]) {
  return processes.start(
    [CLI, 'serve', '--port', '0', '--store', 'memory', '--agent', 'echo', ...args],
    SERVE_URL_LINE,
  );
}

describe('tandem serve --auth bearer --token-file', () => {
  it('re-reads the token file on SIGHUP, and keeps the old tokens when the new file is wrong', async () => {
    const file = join(dir, 'tokens.txt');
    writeFileSync(file, `# the operators\nalice ${T1}\n`);
    const { process: server, url } = await serve([
      '--auth',
      'bearer',
      '--token-file',
      file,
      '--log-level',
      'info',
    ]);
    expect((await runCli(['tasks', url, '--token', T1])).code).toBe(0);
    const refused = await runCli(['tasks', url, '--token', T2]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/bearer token is not valid/);
    expect(refused.stderr).not.toContain(T2);
    expect((await runCli(['tasks', url])).code).toBe(3);

    writeFileSync(file, `bob ${T2}\n`);
    process.kill(server.pid, 'SIGHUP');
    await server.line(/re-read credentials/);
    expect((await runCli(['tasks', url, '--token', T2])).code).toBe(0);
    expect((await runCli(['tasks', url, '--token', T1])).code).toBe(3);

    writeFileSync(file, `bob ${T2} extra-field\n`);
    process.kill(server.pid, 'SIGHUP');
    await server.line(/could not re-read credentials; keeping the old ones/);
    expect((await runCli(['tasks', url, '--token', T2])).code).toBe(0);
    // Neither the log nor the messages hold a token.
    const output = `${server.lines.join('\n')}\n${server.stderr}`;
    for (const token of [T1, T2]) expect(output).not.toContain(token);
  });

  it('refuses to start with a token file that does not parse, naming the line', async () => {
    const file = join(dir, 'short.txt');
    writeFileSync(file, 'alice short\n');
    const result = await runCli(['serve', '--port', '0', '--auth', 'bearer', '--token-file', file]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Line 1 of .*short\.txt: the secret is shorter than 16/);
    expect(result.stderr).not.toContain('short\n');
  });
});

describe('tandem serve: failed authentications', () => {
  it('holds off an address after --max-auth-failures, on HTTP and gRPC together', async () => {
    const file = join(dir, 'held-tokens.txt');
    writeFileSync(file, `alice ${T1}\n`);
    const { url } = await serve([
      ...['--auth', 'bearer', '--token-file', file, '--max-auth-failures', '2'],
      ...['--auth-failure-window', '10m', '--grpc-port', '0', '--log-level', 'silent'],
    ]);
    expect((await runCli(['tasks', url, '--binding', 'grpc', '--token', T2])).code).toBe(3);
    expect((await runCli(['tasks', url, '--binding', 'jsonrpc', '--token', T2])).code).toBe(3);
    // Two failures: the right token is not even checked now, on any binding.
    for (const binding of BINDINGS) {
      const held = await runCli(['tasks', url, '--binding', binding, '--token', T1]);
      expect([binding, held.code]).toEqual([binding, 3]);
      expect(held.stderr).toMatch(
        /Too many failed authentications from this address: at most 2 per 600 s; retry in \d+ s/,
      );
      expect(held.stderr).not.toContain(T1);
    }
  }, 60_000);

  it('refuses values that are no limit, and the flags without --auth', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--auth', 'bearer', '--max-auth-failures', '0'],
        /--max-auth-failures must be a whole number of at least 1, got "0"/,
      ],
      [
        ['--auth', 'bearer', '--auth-failure-window', 'soon'],
        /--auth-failure-window must be a duration/,
      ],
      [
        ['--auth', 'bearer', '--auth-failure-window', '500ms'],
        /--auth-failure-window must be at least 1s/,
      ],
      [
        ['--auth', 'bearer', '--max-auth-failures', 'off', '--auth-failure-window', '1m'],
        /--auth-failure-window has no effect with --max-auth-failures off/,
      ],
      [['--max-auth-failures', '3'], /--max-auth-failures and --auth-failure-window need --auth/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['serve', '--port', '0', '--store', 'memory', ...args], {
        env: { TANDEM_AUTH_TOKENS: T1 },
      });
      expect([args, result.code]).toEqual([args, 2]);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('client credentials', () => {
  it('reads --token-file, and warns about --token on the command line without repeating it', async () => {
    const file = join(dir, 'client-tokens.txt');
    writeFileSync(file, `alice ${T1}\n`);
    const { url } = await serve([
      '--auth',
      'bearer',
      '--token-file',
      file,
      '--log-level',
      'silent',
    ]);
    const tokenFile = join(dir, 'my-token');
    writeFileSync(tokenFile, `\n${T1}\n`);
    const fromFile = await runCli(['tasks', url, '--token-file', tokenFile]);
    expect([fromFile.code, fromFile.stderr]).toEqual([0, '']);
    const fromEnv = await runCli(['tasks', url], { env: { TANDEM_TOKEN: T1 } });
    expect([fromEnv.code, fromEnv.stderr]).toEqual([0, '']);
    const fromFlag = await runCli(['tasks', url, '--token', T1]);
    expect(fromFlag.code).toBe(0);
    expect(fromFlag.stderr).toMatch(
      /^tandem tasks: warning: --token on the command line is visible to every user of this machine \(ps\).*TANDEM_TOKEN or --token-file <path> instead\n$/,
    );
    expect(fromFlag.stderr).not.toContain(T1);
    const both = await runCli(['tasks', url, '--token', T1, '--token-file', tokenFile]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/Give --token or --token-file, not both/);
    const missing = await runCli(['tasks', url, '--api-key-file', join(dir, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--api-key-file .*nope cannot be read \(ENOENT\)/);
  });
});

describe('tandem serve --auth api-key', () => {
  it('takes the key in the query parameter the card names, where tandem --api-key sends it', async () => {
    const file = join(dir, 'keys.txt');
    writeFileSync(file, `svc ${KEY}\n`);
    const { url } = await serve([
      '--auth',
      'api-key',
      '--api-key-file',
      file,
      '--api-key-query',
      'key',
      '--log-level',
      'silent',
    ]);
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      securitySchemes: unknown;
    };
    expect(card.securitySchemes).toEqual({
      apiKey: { apiKeySecurityScheme: { location: 'query', name: 'key' } },
    });
    expect((await runCli(['tasks', url, '--api-key', KEY])).code).toBe(0);
    expect((await runCli(['tasks', url, '--api-key', 'wrong-key-0123456789abcdef'])).code).toBe(3);
  });
});

describe('tandem serve --extended-card with --auth', () => {
  it('serves the extended card to authenticated callers only, on every binding', async () => {
    const tokens = join(dir, 'ext-tokens.txt');
    writeFileSync(tokens, `alice ${T1}\n`);
    const fragment = join(dir, 'extended.json');
    writeFileSync(
      fragment,
      JSON.stringify({
        description: 'For friends only',
        skills: [{ id: 'secret', name: 'Secret', description: 'Hidden', tags: ['x'] }],
      }),
    );
    const { url } = await serve([
      '--auth',
      'bearer',
      '--token-file',
      tokens,
      '--extended-card',
      fragment,
      '--log-level',
      'silent',
    ]);
    // `tandem serve` here has no --grpc-port: the HTTP bindings only.
    for (const binding of BINDINGS.filter(isHttpBinding)) {
      const friend = await connectDriver(binding, url, {
        headers: { authorization: `Bearer ${T1}` },
      });
      const extended = await friend.getExtendedAgentCard();
      expect([binding, extended.description]).toEqual([binding, 'For friends only']);
      expect(extended.skills.map((skill) => skill.id)).toContain('secret');
      const stranger = await connectDriver(binding, url);
      await refusal(stranger.getExtendedAgentCard(), 'UNAUTHENTICATED');
    }
    const publicCard = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      description: string;
      capabilities: { extendedAgentCard?: boolean };
    };
    expect(publicCard.capabilities.extendedAgentCard).toBe(true);
    expect(publicCard.description).not.toBe('For friends only');
  });
});

describe('signed cards: tandem keygen, serve --sign-card, card --verify', () => {
  it('signs the served card with a generated key, which card --verify accepts and another refuses', async () => {
    const prefix = join(dir, 'signing');
    const generated = await runCli(['keygen', '--out', prefix, '--alg', 'EdDSA']);
    expect(generated.code).toBe(0);
    for (const suffix of ['.key.pem', '.pub.pem', '.jwks.json']) {
      expect(existsSync(`${prefix}${suffix}`)).toBe(true);
    }
    expect(statSync(`${prefix}.key.pem`).mode & 0o777).toBe(0o600);
    const jwks = JSON.parse(readFileSync(`${prefix}.jwks.json`, 'utf8')) as {
      keys: { kid: string; kty: string }[];
    };
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]?.kty).toBe('OKP');
    // Refuses to overwrite without --force.
    expect((await runCli(['keygen', '--out', prefix])).code).toBe(2);
    const other = join(dir, 'other');
    expect((await runCli(['keygen', '--out', other])).code).toBe(0);

    const { url } = await serve(['--sign-card', `${prefix}.key.pem`, '--log-level', 'silent']);
    const card = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      signatures: { protected: string }[];
    };
    expect(card.signatures).toHaveLength(1);
    const header = JSON.parse(
      Buffer.from(card.signatures[0]?.protected ?? '', 'base64url').toString(),
    ) as { kid: string; alg: string };
    expect(header).toMatchObject({ alg: 'EdDSA', kid: jwks.keys[0]?.kid });

    for (const trusted of [`${prefix}.pub.pem`, `${prefix}.jwks.json`]) {
      const verified = await runCli(['card', url, '--verify', '--trust-key', trusted]);
      expect([trusted, verified.code]).toEqual([trusted, 0]);
      expect(verified.stderr).toMatch(/the card's signature verifies \(kid .+, EdDSA/);
    }
    const refused = await runCli(['card', url, '--verify', '--trust-key', `${other}.pub.pem`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no signature that verifies/);
    const unsigned = await serve(['--log-level', 'silent']);
    const none = await runCli([
      'card',
      unsigned.url,
      '--verify',
      '--trust-key',
      `${prefix}.pub.pem`,
    ]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/is not signed/);
  });

  it('signs the card as served with --compat 0.3: its 0.3 fields and its 1.0 reading both verify', async () => {
    const prefix = join(dir, 'compat-signing');
    expect((await runCli(['keygen', '--out', prefix])).code).toBe(0);
    const { url } = await serve([
      '--sign-card',
      `${prefix}.key.pem`,
      '--compat',
      '0.3',
      '--log-level',
      'silent',
    ]);
    const served = (await (await fetch(`${url}/.well-known/agent-card.json`)).json()) as {
      protocolVersion?: string;
      signatures: { protected: string }[];
    };
    expect(served.protocolVersion).toBe('0.3.0');
    // One signature over the 1.0 reading, one over the card as served (with the 0.3 fields).
    expect(served.signatures).toHaveLength(2);
    // tandem card --verify checks the card as received (spec 8.4.3), 0.3 fields included.
    const verified = await runCli(['card', url, '--verify', '--trust-key', `${prefix}.pub.pem`]);
    expect(verified.stderr).toMatch(/the card's signature verifies/);
    expect(verified.code).toBe(0);
    // A 1.0 client that verifies the card it read into 1.0 (0.3 fields dropped) verifies too.
    const keys = (JSON.parse(readFileSync(`${prefix}.jwks.json`, 'utf8')) as { keys: PublicJwk[] })
      .keys;
    const client = await createClient(url, { verifyCard: { keys } });
    expect(client.card.signatures).toHaveLength(2);
    // The served card with only its 1.0 reading's signature does not verify as received: the
    // second signature is what covers the 0.3 fields. A card server on loopback serves it so.
    const trimmed = { ...served, signatures: served.signatures.slice(0, 1) };
    const cardServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(trimmed));
    });
    await new Promise<void>((resolve) => cardServer.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = cardServer.address() as AddressInfo;
      const refused = await runCli([
        'card',
        `http://127.0.0.1:${port}/.well-known/agent-card.json`,
        '--verify',
        '--trust-key',
        `${prefix}.pub.pem`,
      ]);
      expect(refused.stderr).toMatch(/no signature that verifies/);
      expect(refused.code).toBe(1);
    } finally {
      await new Promise<void>((resolve) => cardServer.close(() => resolve()));
    }
  });
});

describe('tandem serve --admin and limit flags', () => {
  it('lets an --admin principal read every caller’s tasks, and only read them', async () => {
    const file = join(dir, 'admin-tokens.txt');
    const OPS = 'ops-token-0123456789abcdef';
    writeFileSync(file, `alice ${T1}\nbob ${T2}\nops ${OPS}\n`);
    const { url } = await serve([
      '--auth',
      'bearer',
      '--token-file',
      file,
      '--admin',
      'ops',
      '--log-level',
      'silent',
    ]);
    const as = (token: string) =>
      connectDriver(BINDINGS[0] ?? 'jsonrpc', url, {
        headers: { authorization: `Bearer ${token}` },
      });
    const task = await (await as(T1)).sendTask(send('echo hi'));
    const ops = await as(OPS);
    expect((await ops.listTasks()).tasks.map((t) => t.id)).toEqual([task.id]);
    expect((await ops.getTask({ id: task.id })).id).toBe(task.id);
    expect((await (await as(T2)).listTasks()).tasks).toEqual([]);
    await rejection(ops.cancelTask({ id: task.id }), TaskNotFoundError);
  });

  it('refuses values that are no limit, and --admin without --auth', async () => {
    const cases: [string[], RegExp][] = [
      [['--max-history', '0'], /--max-history must be a whole number of at least 1, got "0"/],
      [['--max-artifact-bytes', '1e6'], /--max-artifact-bytes must be a whole number/],
      [['--limits', 'off', '--max-history', '5'], /--max-history has no effect with --limits off/],
      [['--admin', 'ops'], /--admin needs --auth/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['serve', '--port', '0', '--store', 'memory', ...args]);
      expect([args, result.code]).toEqual([args, 2]);
      expect(result.stderr).toMatch(message);
    }
  });
});

describe('tandem serve --auth jwt', () => {
  let idp: IdentityProvider;
  beforeAll(async () => {
    idp = await startIdentityProvider();
  });
  afterAll(() => idp.close());

  it('verifies tokens against --jwks-url with --issuer, --audience and --scope', async () => {
    const { url } = await serve([
      '--auth',
      'jwt',
      '--jwks-url',
      idp.jwksUrl,
      '--issuer',
      idp.issuer,
      '--audience',
      'tandem-tests',
      '--scope',
      'tasks',
      '--log-level',
      'silent',
    ]);
    const token = await idp.token('alice', 'tandem-tests', { claims: { scope: 'tasks' } });
    expect((await runCli(['tasks', url, '--token', token])).code).toBe(0);
    const unscoped = await idp.token('alice', 'tandem-tests');
    const refused = await runCli(['tasks', url, '--token', unscoped]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/lacks the scope\(s\) tasks/);
  });

  it('finds the issuer by --oidc-issuer discovery', async () => {
    const { url } = await serve([
      '--auth',
      'jwt',
      '--oidc-issuer',
      idp.issuer,
      '--audience',
      'tandem-tests',
      '--log-level',
      'silent',
    ]);
    const token = await idp.token('bob', 'tandem-tests');
    expect((await runCli(['tasks', url, '--token', token])).code).toBe(0);
    const other = await idp.token('bob', 'someone-else');
    expect((await runCli(['tasks', url, '--token', other])).code).toBe(3);
  });
});
