/**
 * The failures a first deployment runs into, as the CLI reports them (child processes against
 * real servers): a wrong URL (a typo in the agent's path, an interface URL for a base URL, a web
 * server with no agent), an agent that requires a credential (the same words on every binding),
 * `card --verify` without the right key, a stream whose server went away, Ctrl-C on `subscribe`,
 * and `--json` failures as one JSON object on stdout.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, SERVE_URL_LINE, ServerProcess } from '../support/processes.js';
import { CliProcess, ensureBuilt, runCli } from './cli-harness.js';
import { openGate, startCliServer, type CliTestServer } from './cli-server.js';

const TOKEN = 'first-token-0123456789abcdef';

let server: CliTestServer;
let web: { url: string; close(): Promise<void> };
let dir: string;

/** A web server that is no agent: HTML for every path, 404 under /missing. */
async function startWebServer(): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/missing') === true ? 404 : 200, {
      'content-type': 'text/html',
    });
    res.end('<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

/** Starts `tandem serve` in a child process; resolves once it printed its URL. */
async function serve(args: readonly string[]): Promise<{ process: ServerProcess; url: string }> {
  const child = new ServerProcess([CLI, 'serve', '--port', '0', '--store', 'memory', ...args]);
  const [, url = ''] = await child.line(SERVE_URL_LINE, 30_000);
  return { process: child, url };
}

beforeAll(async () => {
  await ensureBuilt();
  server = await startCliServer();
  web = await startWebServer();
  dir = mkdtempSync(join(tmpdir(), 'tandem-cli-errors-'));
}, 120_000);

afterAll(async () => {
  await Promise.all([server.close(), web.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** The lines of a text, without the empty last one. */
const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe.concurrent('wrong URLs', () => {
  it('answers a typo in the agent path with the agents there, in one short line', async () => {
    const base = server.urlOf('dice').replace(/\/agents\/dice$/, '');
    const { code, stderr } = await runCli(['tasks', `${base}/agents/dcie`]);
    expect(code).toBe(3);
    const [line, ...rest] = lines(stderr);
    expect(rest).toEqual([]);
    expect(line?.length).toBeLessThan(300);
    expect(line).toContain(
      `${base} is an HTTP server, but there is no agent card at /agents/dcie/.well-known/agent-card.json (HTTP 404)`,
    );
    expect(line).toContain('the agents there are /agents/dice, /agents/echo, /agents/kit');
  });

  it('understands a JSON-RPC endpoint URL given for the base URL', async () => {
    await server.send('echo', 'echo found');
    const { code, stdout } = await runCli(['tasks', `${server.urlOf('echo')}/a2a`]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/completed/);
  });

  it.each([
    [
      '/missing/agent',
      /is an HTTP server, but there is no agent card at \/missing\/agent\/\.well-known\/agent-card\.json \(HTTP 404\); give the agent's base URL/,
    ],
    [
      '/site',
      /answered an HTML page, not an agent card; give the agent's base URL or its card URL/,
    ],
  ])('says what a web server at %s is, without pasting its HTML', async (path, message) => {
    const { code, stderr } = await runCli(['card', `${web.url}${path}`]);
    expect(code).toBe(3);
    const [line, ...rest] = lines(stderr);
    expect(rest).toEqual([]);
    expect(line).toMatch(message);
    expect(line?.length).toBeLessThan(300);
    expect(line).not.toMatch(/<html|<!DOCTYPE|<body|nginx/i);
  });
});

describe('an agent that requires a bearer token', () => {
  let agent: { process: ServerProcess; url: string };
  beforeAll(async () => {
    const tokens = join(dir, 'tokens.txt');
    writeFileSync(tokens, `alice ${TOKEN}\n`);
    agent = await serve([
      '--agent',
      'echo',
      '--grpc-port',
      '0',
      '--auth',
      'bearer',
      '--token-file',
      tokens,
      '--log-level',
      'silent',
    ]);
  }, 60_000);
  afterAll(() => agent.process.kill9());

  it.each(['jsonrpc', 'rest', 'grpc'])(
    'says what to pass over %s, warns before sending, and never shows -32600',
    async (binding) => {
      const missing = await runCli(['tasks', agent.url, '--binding', binding]);
      expect(missing.code).toBe(3);
      expect(lines(missing.stderr)).toEqual([
        "tandem tasks: warning: the agent's card requires a bearer token and none was given; pass --token-file PATH or set TANDEM_TOKEN",
        'tandem: the agent requires a bearer token (HTTP 401); pass --token-file PATH or set TANDEM_TOKEN',
      ]);
      const wrong = await runCli(['tasks', agent.url, '--binding', binding], {
        env: { TANDEM_TOKEN: 'wrong-token-0123456789abcdef' },
      });
      expect(wrong.code).toBe(3);
      expect(lines(wrong.stderr)).toEqual([
        expect.stringMatching(/^tandem: the agent refused the bearer token \(HTTP 401\)/),
      ]);
      for (const output of [missing.stderr, wrong.stderr]) {
        expect(output).not.toMatch(/InvalidRequestError|-32600/);
      }
      const right = await runCli(['tasks', agent.url, '--binding', binding], {
        env: { TANDEM_TOKEN: TOKEN },
      });
      expect(right).toMatchObject({ code: 0, stderr: '' });
    },
  );
});

describe('card --verify', () => {
  it('names no internal function, translates a key of another algorithm, and suggests --trust-key', async () => {
    const signer = join(dir, 'signer');
    const other = join(dir, 'other');
    expect((await runCli(['keygen', '--out', signer, '--alg', 'EdDSA'])).code).toBe(0);
    expect((await runCli(['keygen', '--out', other, '--alg', 'ES256'])).code).toBe(0);
    const signed = await serve(['--agent', 'echo', '--sign-card', `${signer}.key.pem`]);
    const unsigned = await serve(['--agent', 'echo']);
    try {
      const untrusted = await runCli(['card', signed.url, '--verify']);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(
        /no signature that verifies: .*no key is trusted: pass --trust-key PATH/,
      );

      const mismatched = await runCli([
        'card',
        signed.url,
        '--verify',
        '--trust-key',
        `${other}.pub.pem`,
      ]);
      expect(mismatched.code).toBe(1);
      expect(mismatched.stderr).toMatch(/the trusted key is ES256, the signature EdDSA/);

      const none = await runCli(['card', unsigned.url, '--verify']);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/is not signed, and a signed card was required/);
      for (const output of [untrusted.stderr, mismatched.stderr, none.stderr]) {
        expect(output).not.toMatch(/verifyCard|Invalid key for this operation/);
        expect(lines(output)).toHaveLength(1);
      }
    } finally {
      await Promise.all([signed.process.kill9(), unsigned.process.kill9()]);
    }
  });
});

describe('streams and Ctrl-C', () => {
  it('suggests tandem subscribe when the server goes away mid-stream', async () => {
    const agent = await serve(['--agent', 'echo', '--log-level', 'silent']);
    try {
      const cli = new CliProcess(['stream', agent.url, 'slowstream', '50', '200']);
      await cli.waitFor(/^task (\S+)/m);
      const taskId = /^task (\S+)/m.exec(cli.stdout)?.[1] ?? '';
      await agent.process.kill9();
      expect(await cli.exited).toBe(3);
      expect(cli.stderr).toContain(
        `the task may still be running: follow it with tandem subscribe ${agent.url} ${taskId}`,
      );
    } finally {
      await agent.process.kill9();
    }
  });

  it('says on subscribe Ctrl-C that it detached and the task keeps running', async () => {
    const task = await server.send('kit', 'gate detach', { wait: false });
    const cli = new CliProcess(['subscribe', server.urlOf('kit'), task.id]);
    await cli.waitFor('before');
    cli.signal('SIGINT');
    expect(await cli.exited).toBe(130);
    expect(cli.stderr).toContain(
      `tandem: detached; the task keeps running (follow it again with: tandem subscribe ${server.urlOf('kit')} ${task.id})`,
    );
    openGate('detach');
  });
});

describe.concurrent('--json failures', () => {
  it('prints one JSON object on stdout and the line on stderr', async () => {
    const { code, stdout, stderr } = await runCli(['get', server.urlOf('echo'), 'nope', '--json']);
    expect(code).toBe(3);
    const { error } = JSON.parse(stdout) as { error: Record<string, unknown> };
    expect(Object.keys(error).sort()).toEqual(['code', 'exitCode', 'message', 'type']);
    expect(error).toMatchObject({ type: 'TaskNotFoundError', code: -32001, exitCode: 3 });
    expect(error.message).toMatch(/^TaskNotFoundError \(-32001\): /);
    expect(lines(stderr)).toEqual([expect.stringMatching(/^tandem: TaskNotFoundError/)]);
  });

  it('does so for a usage error too', async () => {
    const { code, stdout } = await runCli([
      'tasks',
      server.urlOf('echo'),
      '--json',
      '--limit',
      '0',
    ]);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ error: { type: 'UsageError', exitCode: 2 } });
  });
});
