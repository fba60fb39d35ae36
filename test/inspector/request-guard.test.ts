/**
 * The guard that keeps the inspector's backend to its own page: the Host check against DNS
 * rebinding, the per-run token against cross-site requests, and the origin checks.
 */

import { describe, expect, it } from 'vitest';
import {
  allowedHostsFor,
  createRequestGuard,
  createRunToken,
  tokenMatches,
} from '../../src/inspector/request-guard.js';

const hosts = allowedHostsFor('127.0.0.1', 4321);
const guard = createRequestGuard({ allowedHosts: () => hosts, token: 'the-run-token' });

function request(headers: Record<string, string>) {
  return { headers };
}

describe('the Host check', () => {
  it('admits the loopback names of the port the inspector listens on', () => {
    expect([...hosts].sort()).toEqual(['127.0.0.1:4321', '[::1]:4321', 'localhost:4321']);
    for (const host of hosts) expect(guard.checkHost(request({ host }))).toBeUndefined();
    expect(guard.checkHost(request({ host: 'LOCALHOST:4321' }))).toBeUndefined();
  });

  it('refuses any other name, another port, or no Host at all (DNS rebinding)', () => {
    for (const host of ['evil.example:4321', 'localhost:80', '127.0.0.1', '10.0.0.1:4321']) {
      const refusal = guard.checkHost(request({ host }));
      expect(refusal?.status).toBe(421);
      expect(refusal?.message).toContain('DNS rebinding');
    }
    expect(guard.checkHost(request({}))?.status).toBe(421);
  });

  it('admits a non-loopback address it binds, and names added by hand, but no guesses', () => {
    expect([...allowedHostsFor('192.168.1.5', 80)]).toEqual(['192.168.1.5:80']);
    expect([...allowedHostsFor('0.0.0.0', 80, ['inspector.lan'])].sort()).toEqual([
      '127.0.0.1:80',
      '[::1]:80',
      'inspector.lan:80',
      'localhost:80',
    ]);
    expect([...allowedHostsFor('::1', 9)]).toContain('[::1]:9');
  });
});

describe('the per-run token', () => {
  it('is fresh for each run: 32 random bytes, base64url', () => {
    const a = createRunToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createRunToken()).not.toBe(a);
  });

  it('is required on every API call, compared whole', () => {
    const host = '127.0.0.1:4321';
    expect(
      guard.checkApiCall(request({ host, 'x-inspector-token': 'the-run-token' })),
    ).toBeUndefined();
    for (const token of [undefined, '', 'the-run-toke', 'the-run-token!', 'THE-RUN-TOKEN']) {
      const headers: Record<string, string> = { host };
      if (token !== undefined) headers['x-inspector-token'] = token;
      const refusal = guard.checkApiCall(request(headers));
      expect(refusal?.status).toBe(403);
      expect(refusal?.message).toContain('inspector token');
    }
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches(undefined, 'abc')).toBe(false);
  });

  it('does not help a call from another origin or site, even with the token', () => {
    const base = { host: '127.0.0.1:4321', 'x-inspector-token': 'the-run-token' };
    expect(
      guard.checkApiCall(request({ ...base, origin: 'http://127.0.0.1:4321' })),
    ).toBeUndefined();
    expect(
      guard.checkApiCall(request({ ...base, 'sec-fetch-site': 'same-origin' })),
    ).toBeUndefined();
    expect(guard.checkApiCall(request({ ...base, origin: 'http://evil.example' }))?.status).toBe(
      403,
    );
    expect(guard.checkApiCall(request({ ...base, origin: 'null' }))?.status).toBe(403);
    expect(guard.checkApiCall(request({ ...base, 'sec-fetch-site': 'cross-site' }))?.status).toBe(
      403,
    );
    expect(guard.checkApiCall(request({ ...base, host: 'evil.example:4321' }))?.status).toBe(421);
  });
});
