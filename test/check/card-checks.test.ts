/**
 * The card's own checks against cards served by a bare server (fixtures/card-server.ts): where
 * and how the card is served, its JSON and schema, a 0.3 card without `protocolVersion` (as
 * VoltAgent serves one), caching headers, and signatures — verified with the key of their `jku`,
 * refused when the card was changed after signing or carries fields the signature left out.
 */

import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkAgent, CHECKS, type CheckReport } from '../../src/check.js';
import { createCardSigner } from '../../src/server.js';
import { startCardServer, type CardServer } from './fixtures/card-server.js';

/** The checks of the card itself (the interfaces of these cards lead nowhere). */
const CARD_ONLY = CHECKS.filter((c) => c.scope === 'agent').map((c) => c.id);

const CACHED = { 'cache-control': 'max-age=60', etag: '"v1"' };

let server: CardServer;

beforeAll(async () => {
  server = await startCardServer();
});

afterAll(() => server.close());

beforeEach(() => {
  for (const path of [
    '/.well-known/agent-card.json',
    '/.well-known/agent.json',
    '/cards/agent.json',
  ]) {
    server.set(path, undefined);
  }
});

function card(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Card test',
    description: 'A card served by a bare server',
    supportedInterfaces: [
      { url: `${server.url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    version: '1.0.0',
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 's', name: 'S', description: 'A skill', tags: ['t'] }],
    ...extra,
  };
}

async function check(url = server.url): Promise<CheckReport> {
  return checkAgent(url, { only: CARD_ONLY });
}

function statusOf(report: CheckReport, id: string): string | undefined {
  return report.checks.find((c) => c.id === id)?.status;
}

function detailOf(report: CheckReport, id: string): string {
  return report.checks.find((c) => c.id === id)?.detail ?? '';
}

describe('the card checks', () => {
  it('pass a valid card at the well-known path, with caching headers', async () => {
    server.set('/.well-known/agent-card.json', { body: JSON.stringify(card()), headers: CACHED });
    const report = await check();
    expect(
      report.checks.filter((c) => c.status !== 'pass').map((c) => `${c.id} ${c.status}`),
    ).toEqual(['card.signature skip']);
  });

  it('ask again when the agent answers 429, as its Retry-After says', async () => {
    server.set('/.well-known/agent-card.json', {
      body: JSON.stringify(card()),
      headers: CACHED,
      limitFirst: 2,
    });
    const report = await check();
    expect(statusOf(report, 'card.json')).toBe('pass');
    expect(report.checks.find((c) => c.id === 'card.json')?.response?.status).toBe('200');
  });

  it('warn of a card given at another URL that the well-known path does not serve, and of no caching', async () => {
    server.set('/cards/agent.json', { body: JSON.stringify(card()) });
    const report = await check(`${server.url}/cards/agent.json`);
    expect(statusOf(report, 'card.well-known')).toBe('warn');
    expect(detailOf(report, 'card.well-known')).toContain(
      `${server.url}/.well-known/agent-card.json does not serve it (HTTP 404)`,
    );
    expect(statusOf(report, 'card.caching')).toBe('warn');
    expect(detailOf(report, 'card.caching')).toBe(
      'the card is served without Cache-Control with max-age and ETag',
    );
  });

  it('warn of a card at the legacy agent.json only', async () => {
    server.set('/.well-known/agent.json', { body: JSON.stringify(card()), headers: CACHED });
    const report = await check();
    expect(statusOf(report, 'card.well-known')).toBe('warn');
    expect(detailOf(report, 'card.well-known')).toContain('the location of A2A 0.2');
    expect(report.agent.cardUrl).toBe(`${server.url}/.well-known/agent.json`);
  });

  it('fail an HTML page served as the card', async () => {
    server.set('/.well-known/agent-card.json', {
      body: '<html><body>Welcome</body></html>',
      type: 'text/html',
    });
    const report = await check();
    expect(statusOf(report, 'card.json')).toBe('fail');
    expect(statusOf(report, 'card.content-type')).toBe('warn');
    expect(detailOf(report, 'card.json')).toContain('<html><body>Welcome');
  });

  it('name every missing and mistyped field of a 1.0 card by its path', async () => {
    const { skills: _skills, ...withoutSkills } = card({ version: 2 });
    server.set('/.well-known/agent-card.json', {
      body: JSON.stringify(withoutSkills),
      headers: CACHED,
    });
    const report = await check();
    expect(detailOf(report, 'card.required-fields')).toBe('skills: is required');
    expect(detailOf(report, 'card.schema')).toBe('version: must be a string, got the number 2');
  });

  it('read a 0.3 card without protocolVersion as 0.3, and fail it', async () => {
    const legacy = {
      name: 'Old agent',
      description: 'A 0.3 card that lost its protocolVersion',
      url: `${server.url}/a2a`,
      preferredTransport: 'JSONRPC',
      version: '1.0.0',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 's', name: 'S', description: 'A skill', tags: ['t'] }],
    };
    server.set('/.well-known/agent-card.json', { body: JSON.stringify(legacy), headers: CACHED });
    const report = await check();
    const required = report.checks.find((c) => c.id === 'card.required-fields');
    expect(required).toMatchObject({
      status: 'fail',
      section: '0.3 §5.5',
      detail: 'the 0.3 card lacks protocolVersion',
    });
    expect(detailOf(report, 'card.protocol-version')).toBe('the 0.3 card has no protocolVersion');
  });

  it('judge a 0.3 card by the rules of 0.3: no skills is valid there', async () => {
    const legacy = {
      name: 'Old agent',
      description: 'A 0.3 card with no skills, as 0.3 allows',
      url: `${server.url}/a2a`,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
      version: '1.0.0',
      capabilities: {},
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
    };
    server.set('/.well-known/agent-card.json', { body: JSON.stringify(legacy), headers: CACHED });
    const report = await check();
    expect(statusOf(report, 'card.schema')).toBe('pass');
    expect(statusOf(report, 'card.required-fields')).toBe('pass');
  });
});

describe('card.signature', () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  async function signed(extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const signer = await createCardSigner({ privateKey, jku: `${server.url}/jwks.json` });
    const unsigned = card(extra);
    return { ...unsigned, signatures: [await signer.sign(unsigned as never)] };
  }

  beforeAll(() => {
    const jwk = privateKey.export({ format: 'jwk' });
    const { d: _d, ...publicJwk } = jwk;
    return createCardSigner({ privateKey }).then((signer) => {
      server.set('/jwks.json', {
        body: JSON.stringify({ keys: [{ ...publicJwk, kid: signer.kid }] }),
      });
    });
  });

  it('verifies a signature with the key its jku publishes', async () => {
    server.set('/.well-known/agent-card.json', { body: JSON.stringify(await signed()) });
    const report = await check();
    expect(statusOf(report, 'card.signature')).toBe('pass');
    expect(detailOf(report, 'card.signature')).toMatch(
      /^signature ES256, kid \S+, verifies with the key from http:\/\/127\.0\.0\.1:\d+\/jwks\.json$/,
    );
  });

  it('fails a card changed after it was signed', async () => {
    const tampered = { ...(await signed()), description: 'Changed after signing' };
    server.set('/.well-known/agent-card.json', { body: JSON.stringify(tampered) });
    const report = await check();
    expect(statusOf(report, 'card.signature')).toBe('fail');
    expect(detailOf(report, 'card.signature')).toContain('has no signature that verifies');
  });

  it('fails a card that carries fields its signature left out, and names them', async () => {
    const extended = { ...(await signed()), url: `${server.url}/a2a`, protocolVersion: '0.3.0' };
    server.set('/.well-known/agent-card.json', { body: JSON.stringify(extended) });
    const report = await check();
    expect(statusOf(report, 'card.signature')).toBe('fail');
    expect(detailOf(report, 'card.signature')).toBe(
      'the signature covers the card without url, protocolVersion, which the served card carries: it does not verify over the card as served (§8.4.3)',
    );
  });
});
