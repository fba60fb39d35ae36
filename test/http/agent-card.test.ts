import { describe, expect, it } from 'vitest';
import { createHttpCore } from '../../src/http/http-core.js';
import { ifNoneMatchMatches } from '../../src/http/agent-card-route.js';
import { ConfigurationError, parseMessage, type AgentCard } from '../../src/index.js';
import { defineAgent, jsonRpcBinding, restBinding } from '../../src/server.js';
import { extensionAgent, handlerFor, startServer, testAgent } from './support.js';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

const CARD = '/.well-known/agent-card.json';

async function card(url: string, headers: Record<string, string> = {}): Promise<AgentCard> {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  return (await response.json()) as AgentCard;
}

/** GET with an arbitrary Host header (fetch does not allow setting it). */
function getWithHost(
  port: number,
  path: string,
  host: string | undefined,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ port, host: '127.0.0.1', path, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    if (host !== undefined) req.setHeader('host', host);
    req.on('error', reject);
    req.end();
  });
}

describe('agent card', () => {
  it('serves a valid card with an absolute JSON-RPC URL from Host', async () => {
    const { url, port } = await startServer();
    const served = await card(`${url}${CARD}`);
    expect(parseMessage('AgentCard', served).success).toBe(true);
    expect(served.name).toBe('Test agent');
    expect(served.supportedInterfaces).toEqual([
      { url: `http://127.0.0.1:${port}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `http://127.0.0.1:${port}`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(served.capabilities.streaming).toBe(true);
  });

  it('uses X-Forwarded-Proto and the first X-Forwarded-Host', async () => {
    const { url } = await startServer();
    const served = await card(`${url}${CARD}`, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'agents.example.com, internal:8080',
    });
    expect(served.supportedInterfaces[0]?.url).toBe('https://agents.example.com/a2a');
  });

  it('prefers publicUrl, with its path prefix', async () => {
    const { url } = await startServer({ publicUrl: 'https://public.example.com/base/' });
    const served = await card(`${url}${CARD}`, { 'x-forwarded-host': 'ignored.example.com' });
    expect(served.supportedInterfaces[0]?.url).toBe('https://public.example.com/base/a2a');
  });

  it.each([
    ['0.0.0.0:9999', 'http://127.0.0.1:9999/a2a'],
    ['[::]:9999', 'http://127.0.0.1:9999/a2a'],
    ['bad host/with slash', undefined],
  ])('never publishes a bind address (Host %s)', async (host, expected) => {
    const { port } = await startServer();
    const { status, body } = await getWithHost(port, CARD, host);
    expect(status).toBe(200);
    const served = JSON.parse(body) as AgentCard;
    expect(served.supportedInterfaces[0]?.url).toBe(expected ?? `http://127.0.0.1:${port}/a2a`);
  });

  it('falls back to the loopback address for an HTTP/1.0 request without Host', async () => {
    const { port } = await startServer();
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${CARD} HTTP/1.0\r\n\r\n`));
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    const served = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as AgentCard;
    expect(served.supportedInterfaces[0]?.url).toBe(`http://127.0.0.1:${port}/a2a`);
  });

  it('sends Cache-Control and an ETag, and 304 for a matching If-None-Match', async () => {
    const { url } = await startServer({ cardMaxAgeSeconds: 60 });
    const first = await fetch(`${url}${CARD}`);
    expect(first.headers.get('content-type')).toBe('application/json');
    expect(first.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await fetch(`${url}${CARD}`);
    expect(again.headers.get('etag')).toBe(etag);
    const conditional = await fetch(`${url}${CARD}`, {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(conditional.status).toBe(304);
    expect(conditional.headers.get('etag')).toBe(etag);
    expect(await conditional.text()).toBe('');
    const stale = await fetch(`${url}${CARD}`, { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
  });

  it('gives each base URL its own ETag', async () => {
    const { url } = await startServer();
    const a = await fetch(`${url}${CARD}`, { headers: { 'x-forwarded-host': 'a.example.com' } });
    const b = await fetch(`${url}${CARD}`, { headers: { 'x-forwarded-host': 'b.example.com' } });
    expect(a.headers.get('etag')).not.toBe(b.headers.get('etag'));
  });

  it('answers HEAD with headers only', async () => {
    const { url } = await startServer();
    const response = await fetch(`${url}${CARD}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).not.toBeNull();
    expect(await response.text()).toBe('');
  });

  it('refuses an invalid card at startup with a ConfigurationError', () => {
    const broken = defineAgent({
      card: { name: '', description: 'x', skills: [] },
      execute: () => {},
    });
    expect(() => createHttpCore({ agents: [{ path: '', handler: handlerFor(broken) }] })).toThrow(
      ConfigurationError,
    );
  });

  it('matches If-None-Match lists, weak validators and *', () => {
    expect(ifNoneMatchMatches('"a", "b"', '"b"')).toBe(true);
    expect(ifNoneMatchMatches('W/"b"', '"b"')).toBe(true);
    expect(ifNoneMatchMatches('*', '"b"')).toBe(true);
    expect(ifNoneMatchMatches('"a"', '"b"')).toBe(false);
    expect(ifNoneMatchMatches(null, '"b"')).toBe(false);
  });
});

describe('server routes', () => {
  it('answers /healthz', async () => {
    const { url } = await startServer();
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers an unknown path with a 404 JSON body', async () => {
    const { url } = await startServer();
    const response = await fetch(`${url}/nope`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  });

  it('answers a wrong method on a read route with 405 and Allow', async () => {
    const { url } = await startServer();
    const response = await fetch(`${url}${CARD}`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('answers CORS preflights and adds CORS headers to responses', async () => {
    const { url } = await startServer();
    const preflight = await fetch(`${url}/a2a`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, a2a-version',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
    const allowed = preflight.headers.get('access-control-allow-headers') ?? '';
    for (const header of [
      'Content-Type',
      'Authorization',
      'A2A-Version',
      'A2A-Extensions',
      'Last-Event-ID',
      'X-API-Key',
    ]) {
      expect(allowed).toContain(header);
    }
    const cardResponse = await fetch(`${url}${CARD}`, {
      headers: { origin: 'https://app.example.com' },
    });
    expect(cardResponse.headers.get('access-control-allow-origin')).toBe('*');
    expect(cardResponse.headers.get('access-control-expose-headers')).toContain('A2A-Extensions');
    expect(cardResponse.headers.get('access-control-expose-headers')).toContain('ETag');
  });

  it('echoes only listed origins when corsOrigins is a list', async () => {
    const { url } = await startServer({ corsOrigins: ['https://app.example.com'] });
    const ok = await fetch(`${url}/healthz`, { headers: { origin: 'https://app.example.com' } });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(ok.headers.get('vary')).toBe('Origin');
    const other = await fetch(`${url}/healthz`, {
      headers: { origin: 'https://evil.example.com' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('several agents', () => {
  async function startTwo(): Promise<{ url: string; port: number }> {
    return startServer({
      agents: [
        { path: '/agents/test', handler: handlerFor(testAgent) },
        {
          path: '/agents/ext',
          handler: handlerFor(extensionAgent),
          bindings: [jsonRpcBinding({ path: '/rpc' }), restBinding()],
        },
      ],
    });
  }

  it('lists the agents at /', async () => {
    const { url, port } = await startTwo();
    const index = (await (await fetch(`${url}/`)).json()) as { agents: Record<string, string>[] };
    const base = `http://127.0.0.1:${port}`;
    expect(index.agents).toEqual([
      {
        name: 'Test agent',
        description: 'Echoes, streams and sleeps on command',
        path: '/agents/test',
        cardUrl: `${base}/agents/test${CARD}`,
        url: `${base}/agents/test/a2a`,
      },
      {
        name: 'Extension agent',
        description: 'Requires an extension',
        path: '/agents/ext',
        cardUrl: `${base}/agents/ext${CARD}`,
        url: `${base}/agents/ext/rpc`,
      },
    ]);
  });

  it('serves each card at its path and the first one at the root', async () => {
    const { url, port } = await startTwo();
    const ext = await card(`${url}/agents/ext${CARD}`);
    expect(ext.supportedInterfaces[0]?.url).toBe(`http://127.0.0.1:${port}/agents/ext/rpc`);
    const root = await card(`${url}${CARD}`);
    expect(root.name).toBe('Test agent');
    expect(root.supportedInterfaces[0]?.url).toBe(`http://127.0.0.1:${port}/agents/test/a2a`);
  });

  it('routes JSON-RPC to each agent', async () => {
    const { url } = await startTwo();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    const headers = { 'content-type': 'application/json', 'a2a-version': '1.0' };
    const test = await fetch(`${url}/agents/test/a2a`, { method: 'POST', headers, body });
    expect(await test.json()).toMatchObject({ error: { code: -32001 } });
    const ext = await fetch(`${url}/agents/ext/rpc`, { method: 'POST', headers, body });
    expect(await ext.json()).toMatchObject({ error: { code: -32008 } });
    expect((await fetch(`${url}/a2a`, { method: 'POST', headers, body })).status).toBe(404);
  });

  it('refuses two agents on the same path', () => {
    expect(() =>
      createHttpCore({
        agents: [
          { path: '/x', handler: handlerFor() },
          { path: '/x/', handler: handlerFor() },
        ],
      }),
    ).toThrow(/Two routes claim \/x\/a2a/);
  });
});
