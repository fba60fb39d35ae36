/**
 * Cards of agents from the field, served from a bare `node:http` server on loopback as those
 * agents serve them: an A2A 0.3 card with `skills: []` (valid in 0.3), and a 0.3-era card with
 * `url` and no `protocolVersion` (VoltAgent and other 0.2/0.3 servers). The client reads both as
 * 0.3 cards, returns a warning for each 1.0 rule the card does not hold, and talks to the agent
 * over its 0.3 JSON-RPC interface; `tandem card` prints the card and the warnings. A 1.0 card is
 * still held to 1.0.
 */

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AgentCardError,
  createCardResolver,
  createClient,
  type Message,
} from '../../src/client.js';
import { ensureBuilt, runCli } from '../cli/cli-harness.js';

let server: Server;
let base: string;
/** The JSON-RPC methods the 0.3 responder was called with, in order. */
const calls: string[] = [];

function cardsOf(url: string): Record<string, unknown> {
  const common = {
    description: 'An agent built on a 0.3 library',
    version: '0.1.0',
    capabilities: { streaming: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  };
  return {
    // ADK / a2a-sdk 0.3 style: a valid 0.3 card that declares no skills yet.
    '/no-skills': {
      name: 'No Skills',
      protocolVersion: '0.3.0',
      url: `${url}/a2a`,
      preferredTransport: 'JSONRPC',
      ...common,
      skills: [],
    },
    // VoltAgent style: `url`, no `protocolVersion`, no `supportedInterfaces`.
    '/volt': {
      name: 'Volt',
      url: `${url}/a2a`,
      ...common,
      skills: [{ id: 'chat', name: 'Chat', description: 'Talks', tags: [] }],
    },
    // A 1.0 card with no skills: 1.0 holds, and refuses it.
    '/v1-no-skills': {
      name: 'One Oh',
      supportedInterfaces: [
        { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      ],
      ...common,
      skills: [],
    },
    // A 0.3 card whose interface has no URL: not relaxed, it cannot be called.
    '/no-url': { name: 'Nowhere', protocolVersion: '0.3.0', url: '', ...common, skills: [] },
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '').replace(/\/\.well-known\/agent-card\.json$/, '');
      if (req.method === 'POST' && path === '/a2a') {
        // A minimal 0.3 JSON-RPC responder: answers message/send with a direct message.
        const request = JSON.parse(await bodyOf(req)) as { id: unknown; method: string };
        calls.push(request.method);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: request.id,
            result: {
              kind: 'message',
              role: 'agent',
              messageId: 'reply-1',
              parts: [{ kind: 'text', text: 'pong from 0.3' }],
            },
          }),
        );
        return;
      }
      const card = cardsOf(base)[path];
      if (req.method !== 'GET' || card === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(card));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function client(path: string) {
  return createClient(`${base}${path}`, { cardResolver: createCardResolver() });
}

describe('cards from the field', () => {
  it('accepts a 0.3 card with no skills, warns, and talks to the agent over 0.3', async () => {
    const agent = await client('/no-skills');
    expect(agent.card.name).toBe('No Skills');
    expect(agent.card.skills).toEqual([]);
    expect(agent.selectedInterface.protocolVersion).toBe('0.3');
    expect(agent.cardWarnings).toEqual([
      'skills is empty: A2A 0.3 allows that, A2A 1.0 requires at least one element (the card lists no skills)',
    ]);
    const before = calls.length;
    const answer = (await agent.send('ping')) as Message;
    expect(answer.parts[0]?.text).toBe('pong from 0.3');
    expect(calls.slice(before)).toEqual(['message/send']);
  });

  it('reads a card with url and no protocolVersion as 0.3, and says so', async () => {
    const agent = await client('/volt');
    expect(agent.card.name).toBe('Volt');
    expect(agent.card.supportedInterfaces).toEqual([
      { url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(agent.cardWarnings).toEqual([
      'protocolVersion is missing (A2A 0.3 requires it); read as an A2A 0.3 card, since it has url and no supportedInterfaces',
      'skills[0].tags is empty: A2A 0.3 allows that, A2A 1.0 requires at least one element',
    ]);
    expect(agent.card.skills[0]?.tags).toEqual([]);
    const answer = (await agent.send('ping')) as Message;
    expect(answer.parts[0]?.text).toBe('pong from 0.3');
  });

  it('holds a 1.0 card to 1.0: no skills is refused', async () => {
    const refused = await client('/v1-no-skills').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentCardError);
    expect((refused as AgentCardError).violations).toEqual([
      { field: 'skills', description: 'must contain at least one element' },
    ]);
  });

  it('does not relax a 0.3 card that cannot be called', async () => {
    const refused = await client('/no-url').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AgentCardError);
    expect((refused as Error).message).toMatch(/url/);
  });
});

describe('tandem card on cards from the field', () => {
  beforeAll(ensureBuilt);

  it('prints a 0.3 card with no skills, with the warning, and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['card', `${base}/no-skills`]);
    expect(stderr).toContain('tandem: warning: skills is empty: A2A 0.3 allows that');
    expect(code).toBe(0);
    expect(stdout).toContain('No Skills');
  });

  it('prints a card without protocolVersion as 0.3, and exits 0', async () => {
    const { code, stdout, stderr } = await runCli(['card', `${base}/volt`]);
    expect(stderr).toContain('tandem: warning: protocolVersion is missing');
    expect(code).toBe(0);
    expect(stdout).toContain('Volt');
  });
});
