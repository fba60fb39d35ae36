/**
 * `tandem inspect` over plain HTTP, as a hostile page or a careless script would reach it: what
 * it serves (the page with its policy, JavaScript within its size budget), what it refuses (a
 * foreign Host, a call without the run's token or from another origin, bad requests — each with
 * a message that says why), its push receiver's token check, and that credentials given to it
 * never come back out. Also the command line: connecting at start-up, --help, bad flags.
 */

import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, type ServerProcess } from '../support/processes.js';
import { runCli } from '../cli/cli-harness.js';
import { startInspector, startServe, type InspectorProcess } from './browser-harness.js';

/** The page's JavaScript may weigh this much, gzipped. */
const JS_BUDGET_BYTES = 150 * 1024;
const SECRET = `secret-${crypto.randomUUID()}`;

let serve: { url: string; process: ServerProcess };
let inspector: InspectorProcess;
let token = '';

/** A raw request, so that `Host` can be anything. */
function raw(
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  const url = new URL(path, inspector.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: options.method ?? 'GET',
        headers: { host: url.host, ...options.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

function api(route: string, body?: unknown, headers: Record<string, string> = {}) {
  return raw(`/api/${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'x-inspector-token': token,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  requireBuild();
  serve = await startServe(['--agent', 'echo', '--push-allow', '127.0.0.1']);
  inspector = await startInspector([serve.url, '--header', `X-Secret: ${SECRET}`]);
  const page = await raw('/');
  token = /name="inspector-token" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
});

afterAll(async () => {
  await Promise.all([inspector?.stop(), serve?.process.terminate()]);
});

describe('what tandem inspect serves', () => {
  it('connects at start-up to the URL it was given', async () => {
    await inspector.process.line(/^Connected to Echo$/);
    const session = JSON.parse((await api('session')).body) as { connection: { url: string } };
    expect(session.connection.url).toBe(serve.url);
  });

  it('serves the page with its token and a policy that keeps it to its own origin', async () => {
    const page = await raw('/');
    expect(page.status).toBe(200);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const policy = String(page.headers['content-security-policy']);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
  });

  it(`serves JavaScript of at most ${JS_BUDGET_BYTES / 1024} KB gzipped`, async () => {
    const script = await raw('/assets/inspector.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');
    const gzipped = gzipSync(Buffer.from(script.body)).byteLength;
    expect(gzipped).toBeLessThanOrEqual(JS_BUDGET_BYTES);
    // Nothing in it reaches for the network beyond the inspector.
    expect(script.body).not.toMatch(/fonts\.googleapis|unpkg\.com|cdn\.jsdelivr/);
  });

  it('refuses a Host that is not its own (DNS rebinding), on every route', async () => {
    for (const path of ['/', '/assets/inspector.js', '/api/session', '/push/receiver']) {
      const answer = await raw(path, {
        headers: {
          host: `rebound.example:${new URL(inspector.url).port}`,
          'x-inspector-token': token,
        },
      });
      expect(answer.status).toBe(421);
      expect(answer.body).toContain('DNS rebinding');
    }
  });

  it('refuses API calls without the run token or from another origin', async () => {
    expect((await api('session', undefined, { 'x-inspector-token': 'wrong' })).status).toBe(403);
    const foreign = await api('session', undefined, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('origin http://evil.example');
    expect((await api('session', undefined, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    // A form post cannot carry the header; a simple POST without it is refused too.
    const form = await raw('/api/connect', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=http://evil',
    });
    expect(form.status).toBe(403);
  });

  it('answers a bad request with what is wrong, and changes nothing', async () => {
    const before = (await api('session')).body;
    const cases: Array<[unknown, string]> = [
      ['not json', 'not JSON'],
      [{}, 'url is required'],
      [{ url: serve.url, binding: 'SOAP' }, 'binding must be one of'],
      [
        { url: serve.url, credentials: { headers: [{ name: 'Bad Name', value: 'x' }] } },
        'credentials.headers[0].name',
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await api('connect', body);
      expect(answer.status).toBe(400);
      expect(answer.body).toContain(message);
    }
    const wrongType = await raw('/api/connect', {
      method: 'POST',
      headers: { 'x-inspector-token': token, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toContain('Content-Type: application/json');
    const gone = await api('send', {
      connectionId: 'nope',
      parts: [{ kind: 'text', text: 'x' }],
      stream: false,
    });
    expect(gone.status).toBe(409);
    expect(gone.body).toContain('connect again');
    const connectionId = (JSON.parse(before) as { connection: { id: string } }).connection.id;
    const badPart = await api('send', { connectionId, parts: [{ kind: 'data' }], stream: false });
    expect(badPart.status).toBe(400);
    expect(badPart.body).toContain('parts[0].data is required');
    const after = (await api('session')).body;
    expect((JSON.parse(after) as { connection: unknown }).connection).toEqual(
      (JSON.parse(before) as { connection: unknown }).connection,
    );
  });

  it('never lets a credential it was given come back out', async () => {
    const { connection } = JSON.parse((await api('session')).body) as {
      connection: { id: string };
    };
    const answer = await api('send', {
      connectionId: connection.id,
      parts: [{ kind: 'text', text: 'echo hi' }],
      stream: false,
    });
    expect(answer.status).toBe(200);
    const session = (await api('session')).body;
    expect(session).toContain('x-secret');
    expect(session).toContain('•••');
    expect(session).not.toContain(SECRET);
    expect(inspector.process.lines.join('\n')).not.toContain(SECRET);
  });

  it('checks the token of every push delivery, and keeps the refused ones', async () => {
    const delivery = await raw('/push/receiver', {
      method: 'POST',
      headers: { 'content-type': 'application/a2a+json', 'x-a2a-notification-token': 'forged' },
      body: JSON.stringify({
        statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING' } },
      }),
    });
    expect(delivery.status).toBe(401);
    const { deliveries } = JSON.parse((await api('session')).body) as {
      deliveries: Array<{ token: string; kind: string; headers: Array<[string, string]> }>;
    };
    const last = deliveries.at(-1);
    expect(last?.token).toBe('mismatch');
    expect(last?.kind).toBe('statusUpdate');
    expect(last?.headers).toContainEqual(['x-a2a-notification-token', '•••']);
  });
});

describe('the tandem inspect command line', () => {
  it('prints its help, and refuses bad flags with exit 2', async () => {
    const help = await runCli(['inspect', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: tandem inspect [url]');
    const bad = await runCli(['inspect', '--port', 'x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--port must be an integer');
    const list = await runCli(['--help']);
    expect(list.stdout).toMatch(/inspect +Open the web inspector/);
  });

  it('says when the port is taken, and how to pick another', async () => {
    const port = new URL(inspector.url).port;
    const taken = await runCli(['inspect', '--port', port, '--no-open']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain('EADDRINUSE');
    expect(taken.stderr).toContain('--port');
  });
});
