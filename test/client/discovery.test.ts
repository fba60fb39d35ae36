/**
 * Card discovery, caching and interface selection: from a base URL or a card URL, validated with
 * every problem named, cached by `Cache-Control` and revalidated with `ETag`, and the interface
 * chosen by the caller's preference among those at protocol version 1.0.
 */

import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import {
  AgentCardError,
  agentCardUrl,
  createCardResolver,
  createClient,
  NoCompatibleInterfaceError,
  type AgentCard,
  type ClientTransportFactory,
} from '../../src/client.js';
import { cardWith, startRawServer, startTandem, type SeenRequest } from './support.js';

const rpc = (url: string, protocolVersion = '1.0') => ({
  url,
  protocolBinding: 'JSONRPC',
  protocolVersion,
});
const rest = (url: string, protocolVersion = '1.0') => ({
  url,
  protocolBinding: 'HTTP+JSON',
  protocolVersion,
});
const grpc = { url: 'grpc.example.com:443', protocolBinding: 'GRPC', protocolVersion: '1.0' };

/** A server answering card requests with `card` and `headers`; 304 on a matching ETag. */
async function cardServer(
  card: unknown,
  headers: Record<string, string> = {},
): Promise<{ url: string; requests: SeenRequest[] }> {
  return startRawServer((request, res: ServerResponse) => {
    const etag = headers.etag;
    if (etag !== undefined && request.headers['if-none-match'] === etag) {
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(card));
  });
}

describe('card URL resolution', () => {
  it('appends the well-known path to a base URL and keeps a card URL', () => {
    expect(agentCardUrl('http://h:1')).toBe('http://h:1/.well-known/agent-card.json');
    expect(agentCardUrl('http://h/agents/dice/')).toBe(
      'http://h/agents/dice/.well-known/agent-card.json',
    );
    expect(agentCardUrl('http://h/cards/dice.json')).toBe('http://h/cards/dice.json');
    expect(agentCardUrl('http://h/.well-known/other')).toBe('http://h/.well-known/other');
    expect(() => agentCardUrl('not a url')).toThrow(/not an absolute URL/);
    expect(() => agentCardUrl('ftp://h')).toThrow(/not an http\(s\) URL/);
  });

  it('discovers Tandem agents from the base URL and from the card URL', async () => {
    const { url } = await startTandem();
    const fromBase = await createClient(url, { cardResolver: createCardResolver() });
    const fromCard = await createClient(`${url}/.well-known/agent-card.json`, {
      cardResolver: createCardResolver(),
    });
    expect(fromBase.card).toEqual(fromCard.card);
    expect(fromBase.selectedInterface.url).toBe(`${url}/a2a`);
  });
});

describe('card validation', () => {
  it('names every problem of an invalid card', async () => {
    const server = await cardServer({ name: 'Broken', supportedInterfaces: 'nope', skills: [] });
    const error = await createClient(server.url, { cardResolver: createCardResolver() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentCardError);
    const fields = (error as AgentCardError).violations.map((v) => v.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'description',
        'supportedInterfaces',
        'version',
        'capabilities',
        'skills',
      ]),
    );
    for (const field of fields) expect((error as Error).message).toContain(field);
  });

  it('recognizes an A2A 0.3 card', async () => {
    const server = await cardServer({ name: 'Old', protocolVersion: '0.3.0', url: 'http://x' });
    await expect(createClient(server.url, { cardResolver: createCardResolver() })).rejects.toThrow(
      /looks like an A2A 0\.3\.0 card/,
    );
  });

  it('reports an unreachable card with the URL', async () => {
    const server = await startRawServer((_, res) => void res.writeHead(404).end('no'));
    const error = await createClient(server.url, {
      cardResolver: createCardResolver(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentCardError);
    expect((error as Error).message).toMatch(
      /^http:\/\/127\.0\.0\.1:\d+ is an HTTP server, but there is no agent card at \/\.well-known\/agent-card\.json \(HTTP 404\)/,
    );
  });
});

describe('card caching', () => {
  const card = cardWith([rpc('/rpc')]);

  it('reuses a card within max-age without a request', async () => {
    const server = await cardServer(card, { 'cache-control': 'public, max-age=60' });
    const resolver = createCardResolver();
    await resolver.resolve(server.url);
    await resolver.resolve(server.url);
    await createClient(server.url, { cardResolver: resolver });
    expect(server.requests).toHaveLength(1);
  });

  it('revalidates a stale card with If-None-Match and reuses it on 304', async () => {
    const server = await cardServer(card, { 'cache-control': 'max-age=1', etag: '"v1"' });
    let now = 1_000_000;
    const resolver = createCardResolver({ now: () => now });
    const first = await resolver.resolve(server.url);
    now += 500;
    await resolver.resolve(server.url);
    expect(server.requests).toHaveLength(1);
    now += 1_000;
    const second = await resolver.resolve(server.url);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.headers['if-none-match']).toBe('"v1"');
    expect(second.card).toBe(first.card);
    await resolver.resolve(server.url);
    expect(server.requests).toHaveLength(2);
  });

  it('revalidates every time under no-cache, and keeps nothing under no-store', async () => {
    const noCache = await cardServer(card, { 'cache-control': 'no-cache', etag: '"a"' });
    const resolver = createCardResolver();
    await resolver.resolve(noCache.url);
    await resolver.resolve(noCache.url);
    expect(noCache.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, '"a"']);

    const noStore = await cardServer(card, { 'cache-control': 'no-store', etag: '"b"' });
    await resolver.resolve(noStore.url);
    await resolver.resolve(noStore.url);
    expect(noStore.requests.map((r) => r.headers['if-none-match'])).toEqual([undefined, undefined]);
  });

  it('caches Tandem cards (max-age and ETag) and sends A2A-Version', async () => {
    const { url } = await startTandem();
    const resolver = createCardResolver();
    const seen: string[] = [];
    await createClient(url, {
      cardResolver: resolver,
      interceptors: [
        (next) => (call) => {
          seen.push(`${call.operation} ${call.headers.get('a2a-version')}`);
          return next(call);
        },
      ],
    });
    await createClient(url, { cardResolver: resolver });
    expect(seen).toEqual(['GetAgentCard 1.0']);
  });

  it('forgets cards on clear', async () => {
    const server = await cardServer(card, { 'cache-control': 'max-age=60' });
    const resolver = createCardResolver();
    await resolver.resolve(server.url);
    resolver.clear(server.url);
    await resolver.resolve(server.url);
    resolver.clear();
    await resolver.resolve(server.url);
    expect(server.requests).toHaveLength(3);
  });
});

describe('interface selection', () => {
  const select = async (interfaces: AgentCard['supportedInterfaces'], bindings?: string[]) => {
    const server = await cardServer(cardWith(interfaces));
    const client = await createClient(server.url, {
      cardResolver: createCardResolver(),
      ...(bindings === undefined ? {} : { bindings }),
    });
    return { interface: client.selectedInterface, base: server.url };
  };

  it('prefers JSON-RPC by default, then follows the caller order, then the card order', async () => {
    const interfaces = [rest('http://a/rest'), rpc('http://a/rpc'), rpc('http://b/rpc')];
    expect((await select(interfaces)).interface.url).toBe('http://a/rpc');
    expect((await select(interfaces, ['HTTP+JSON', 'JSONRPC'])).interface.url).toBe(
      'http://a/rest',
    );
  });

  it('only takes protocol version 1.0 (a patch part is fine)', async () => {
    const picked = await select([rpc('http://old/rpc', '0.3'), rpc('http://new/rpc', '1.0.2')]);
    expect(picked.interface.url).toBe('http://new/rpc');
  });

  it('resolves relative interface URLs against the card URL', async () => {
    const picked = await select([rpc('/agents/x/rpc')]);
    expect(picked.interface.url).toBe(`${picked.base}/agents/x/rpc`);
  });

  it('says what the card offers when nothing fits', async () => {
    const oldGrpc = { ...grpc, protocolVersion: '0.2' };
    const error = await select([rpc('http://old/rpc', '0.2'), oldGrpc], ['JSONRPC', 'GRPC']).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NoCompatibleInterfaceError);
    const message = (error as Error).message;
    expect(message).toContain('JSONRPC 0.2 at http://old/rpc');
    expect(message).toContain('GRPC 0.2 at grpc.example.com:443');
    expect(message).toContain('accepts JSONRPC, GRPC at protocol version 1.0');
    expect(message).toContain('(JSONRPC, HTTP+JSON and GRPC at 0.3 too)');
  });

  it('takes a GRPC interface at 0.3 when the card has no 1.0 one', async () => {
    const picked = await select([{ ...grpc, protocolVersion: '0.3' }], ['GRPC']);
    expect(picked.interface).toMatchObject({ protocolBinding: 'GRPC', protocolVersion: '0.3' });
  });

  it('takes a GRPC interface with its bare host:port URL as it is', async () => {
    const picked = await select([grpc], ['GRPC']);
    expect(picked.interface.url).toBe('grpc.example.com:443');
  });

  it('accepts a card given in the options', async () => {
    const client = await createClient('http://agent.example.com', {
      card: cardWith([rpc('/a2a')]),
    });
    expect(client.selectedInterface.url).toBe('http://agent.example.com/a2a');
  });

  it('uses a custom transport for a custom binding', async () => {
    const binding = 'https://example.com/bindings/loopback/v1';
    const seen: string[] = [];
    const loopback: ClientTransportFactory = ({ agentInterface }) => ({
      protocolBinding: binding,
      unary(call) {
        seen.push(`${call.operation} ${agentInterface.url} ${JSON.stringify(call.message)}`);
        const task = { id: 't1', status: { state: 'TASK_STATE_COMPLETED' as const } };
        return Promise.resolve({ stream: false, message: task as never, headers: new Headers() });
      },
      stream: () => Promise.reject(new Error('no streams here')),
    });
    const client = await createClient('http://agent.example.com', {
      card: cardWith([
        { url: '/loop', protocolBinding: binding, protocolVersion: '1.0', tenant: 'x' },
      ]),
      bindings: [binding],
      transports: { [binding]: loopback },
    });
    expect((await client.getTask({ id: 't1' })).id).toBe('t1');
    expect(seen).toEqual(['GetTask http://agent.example.com/loop {"id":"t1","tenant":"x"}']);
  });
});
