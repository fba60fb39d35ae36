/**
 * The limits behind a reverse proxy (`trustProxy`), over real HTTP on loopback: anonymous
 * callers are keyed on the address the trusted proxies forwarded (`X-Forwarded-For`, or
 * `Forwarded` of RFC 7239), so two clients behind one proxy get separate limits; a header from
 * a peer that is not a trusted proxy is ignored (a client cannot pick its own key); without
 * `trustProxy` the first forwarded request is logged once.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { echo } from '../../src/agents/echo.js';
import {
  createA2AServer,
  createRequestHandler,
  type A2AServer,
  type TrustProxyOption,
} from '../../src/server.js';
import { recordingLogger, type RecordingLogger } from '../support/recording-logger.js';

const LIMIT = 2;

interface Running {
  readonly server: A2AServer;
  readonly url: string;
  readonly logger: RecordingLogger;
}

async function serve(trustProxy: TrustProxyOption | undefined): Promise<Running> {
  const logger = recordingLogger();
  const server = createA2AServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: echo }) }],
    limits: { requestsPerMinute: LIMIT },
    trustProxy,
    logger,
    http: { port: 0, host: '127.0.0.1' },
  });
  const address = await server.listen();
  return { server, url: address.http?.url ?? '', logger };
}

/** One GetTask over JSON-RPC with `headers`; resolves with the HTTP status. */
async function call(url: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(`${url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'none' } }),
  });
  await response.text();
  return response.status;
}

/** The statuses of `count` calls in a row. */
async function calls(url: string, headers: Record<string, string>, count: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push(await call(url, headers));
  return statuses;
}

const servers: Running[] = [];
let trusted: Running;
let untrusted: Running;
let hops: Running;
let none: Running;

beforeAll(async () => {
  [trusted, untrusted, hops, none] = await Promise.all([
    serve('loopback'),
    // The test's own address (loopback) is no proxy of these ranges.
    serve(['10.0.0.0/8', 'fd00::/8']),
    serve(1),
    serve(undefined),
  ]);
  servers.push(trusted, untrusted, hops, none);
});

afterAll(() => Promise.all(servers.map(({ server }) => server.shutdown({ deadlineMs: 100 }))));

describe('trustProxy', () => {
  it('through a trusted loopback proxy, two forwarded clients get separate limits', async () => {
    const first = await calls(trusted.url, { 'x-forwarded-for': '198.51.100.1' }, LIMIT + 1);
    const second = await calls(trusted.url, { 'x-forwarded-for': '198.51.100.2' }, LIMIT);
    expect(first).toEqual([200, 200, 429]);
    expect(second).toEqual([200, 200]);
    const refusal = trusted.logger
      .at('warn')
      .find((e) => e.message === 'a call was refused by a limit');
    expect(refusal?.context).toMatchObject({ caller: 'address:198.51.100.1' });
  });

  it('reads Forwarded (RFC 7239) when there is no X-Forwarded-For', async () => {
    const forwarded = { forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https' };
    expect(await calls(trusted.url, forwarded, LIMIT + 1)).toEqual([200, 200, 429]);
    const refusal = trusted.logger
      .at('warn')
      .filter((e) => e.message === 'a call was refused by a limit')
      .at(-1);
    expect(refusal?.context).toMatchObject({ caller: 'address:2001:db8:cafe::17' });
  });

  it('a client cannot pick its key by prepending addresses: the trusted hop reads from the right', async () => {
    // The proxy appended the real client (198.51.100.9) to what the client sent.
    const spoofed = { 'x-forwarded-for': '203.0.113.1, 198.51.100.9' };
    const rotated = { 'x-forwarded-for': '203.0.113.2, 198.51.100.9' };
    expect(await calls(trusted.url, spoofed, LIMIT)).toEqual([200, 200]);
    expect(await call(trusted.url, rotated)).toBe(429);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT; i += 1) {
      statuses.push(await call(untrusted.url, { 'x-forwarded-for': `198.51.100.${10 + i}` }));
    }
    // Each call claimed another client; all were counted as the one peer they came from.
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('with a number of hops, trusts that many proxies whatever their address', async () => {
    const first = await calls(
      hops.url,
      { 'x-forwarded-for': '203.0.113.7, 198.51.100.20' },
      LIMIT + 1,
    );
    const second = await calls(hops.url, { 'x-forwarded-for': '198.51.100.21' }, LIMIT);
    expect(first).toEqual([200, 200, 429]);
    expect(second).toEqual([200, 200]);
  });

  it('without trustProxy, ignores the headers and says so once', async () => {
    const statuses = [
      await call(none.url, { 'x-forwarded-for': '198.51.100.30' }),
      await call(none.url, { 'x-forwarded-for': '198.51.100.31' }),
      await call(none.url, { 'x-forwarded-for': '198.51.100.32' }),
    ];
    expect(statuses).toEqual([200, 200, 429]);
    const notices = none.logger
      .at('warn')
      .filter((e) => e.message?.includes('no proxy is trusted'));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.message).toContain(
      'the limits key every anonymous caller behind it on the proxy address',
    );
  });

  it('refuses a trustProxy that names no proxy or an invalid range', () => {
    const agents = [{ path: '', handler: createRequestHandler({ agent: echo }) }];
    expect(() => createA2AServer({ agents, trustProxy: [], http: {} })).toThrow(/lists no proxy/);
    expect(() => createA2AServer({ agents, trustProxy: ['10.0.0.0/33'], http: {} })).toThrow(
      /"10.0.0.0\/33" is neither a CIDR range/,
    );
    expect(() => createA2AServer({ agents, trustProxy: 0, http: {} })).toThrow(/from 1 to 32/);
  });
});
