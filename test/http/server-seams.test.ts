/**
 * The server seams as a user of `tandem/server` meets them: a binding is one object mounted by a
 * line of options, the card lists one interface per mounted binding (and interfaces served
 * elsewhere), and the identity hook decides who calls every binding before it answers.
 */

import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  jsonRpcBinding,
  type Authenticator,
  type ServerBindingFactory,
} from '../../src/server.js';
import { defineAgent } from '../../src/runtime/agent.js';
import { createRequestHandler } from '../../src/compose/create-request-handler.js';
import { A2A_HEADERS, call, messageParams, startServer } from './support.js';

/** Records the principal of every execution. */
function whoAmIAgent(seen: string[]) {
  return defineAgent({
    card: {
      name: 'Who am I',
      description: 'Answers with the caller',
      skills: [{ id: 'who', name: 'Who', description: 'Who calls', tags: ['who'] }],
    },
    execute(ctx) {
      seen.push(ctx.caller.principal.id);
      if (ctx.text === 'task') return ctx.complete(ctx.caller.principal.id);
      return ctx.reply(ctx.caller.principal.id);
    },
  });
}

/** A custom binding (spec 5.8): `POST <agent>/ping` answers the card's name, nothing else. */
const pingBinding: ServerBindingFactory = (context) => ({
  protocolBinding: 'https://example.com/bindings/ping/v1',
  protocolVersion: '1.0',
  path: '/ping',
  routes: [
    {
      method: 'POST',
      path: '',
      handle: ({ principal }) =>
        Promise.resolve({
          response: {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ agent: context.endpoint.agent.card.name, caller: principal.id }),
          },
          report: {
            binding: 'https://example.com/bindings/ping/v1',
            operation: undefined,
            taskId: undefined,
            errorCode: undefined,
            errorReason: undefined,
          },
        }),
    },
  ],
  refuse: (refusal) => ({
    status: refusal.status,
    headers: { 'content-type': 'application/json', ...refusal.headers },
    body: JSON.stringify({ refused: refusal.code, message: refusal.message }),
  }),
});

/** Bearer `good-<name>` is principal `<name>`; anything else is refused. */
const bearerOfTest: Authenticator = ({ headers }) => {
  const match = /^Bearer good-(\w+)$/.exec(headers.get('authorization') ?? '');
  if (match === null) {
    return new AuthenticationError('Send Authorization: Bearer good-<name>', {
      challenges: ['Bearer realm="test"'],
    });
  }
  return { id: match[1] as string, anonymous: false };
};

describe('bindings', () => {
  it('mounts a custom binding with a line, lists it in the card, and routes to it', async () => {
    const handler = createRequestHandler({ agent: whoAmIAgent([]) });
    const { url } = await startServer({
      agents: [{ path: '/agents/who', handler }],
      bindings: [jsonRpcBinding(), pingBinding],
    });
    const card = (await (await fetch(`${url}/agents/who/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };
    expect(card.supportedInterfaces).toEqual([
      { url: `${url}/agents/who/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      {
        url: `${url}/agents/who/ping`,
        protocolBinding: 'https://example.com/bindings/ping/v1',
        protocolVersion: '1.0',
      },
    ]);
    const ping = await fetch(`${url}/agents/who/ping`, { method: 'POST' });
    expect(await ping.json()).toEqual({ agent: 'Who am I', caller: 'anonymous' });
    const wrong = await fetch(`${url}/agents/who/ping`);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await wrong.json()).toMatchObject({ refused: 'UNIMPLEMENTED' });
  });

  it('lists interfaces served elsewhere, a declared tenant, and the preferred binding first', async () => {
    const handler = createRequestHandler({ agent: whoAmIAgent([]) });
    const grpc = { url: '127.0.0.1:50051', protocolBinding: 'GRPC', protocolVersion: '1.0' };
    const { url } = await startServer({
      agents: [{ path: '', handler, interfaces: [grpc], tenant: 'acme' }],
      preferredBinding: 'GRPC',
    });
    const response = await fetch(`${url}/.well-known/agent-card.json`);
    const card = (await response.json()) as { supportedInterfaces: unknown[] };
    expect(card.supportedInterfaces).toEqual([
      grpc,
      { url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
      { url, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 'acme' },
    ]);
  });

  it('refuses a preferred binding that no agent serves', async () => {
    const handler = createRequestHandler({ agent: whoAmIAgent([]) });
    await expect(
      startServer({ agents: [{ path: '/who', handler }], preferredBinding: 'GRPC' }),
    ).rejects.toThrow(
      'preferredBinding "GRPC" is not served for the agent at "/who": its bindings are JSONRPC, HTTP+JSON',
    );
    await expect(startServer({ preferredBinding: '' })).rejects.toThrow(
      /^preferredBinding must be a protocolBinding name/,
    );
  });
});

describe('agent card caching', () => {
  it('sends Last-Modified and answers If-Modified-Since, with If-None-Match taking precedence', async () => {
    const { url } = await startServer();
    const cardUrl = `${url}/.well-known/agent-card.json`;
    const first = await fetch(cardUrl);
    const lastModified = first.headers.get('last-modified') ?? '';
    expect(Date.parse(lastModified)).not.toBeNaN();
    expect((await fetch(cardUrl, { headers: { 'if-modified-since': lastModified } })).status).toBe(
      304,
    );
    const later = new Date(Date.parse(lastModified) + 60_000).toUTCString();
    expect((await fetch(cardUrl, { headers: { 'if-modified-since': later } })).status).toBe(304);
    const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    expect((await fetch(cardUrl, { headers: { 'if-modified-since': earlier } })).status).toBe(200);
    expect((await fetch(cardUrl, { headers: { 'if-modified-since': 'yesterday' } })).status).toBe(
      200,
    );
    const stale = await fetch(cardUrl, {
      headers: { 'if-none-match': '"other"', 'if-modified-since': lastModified },
    });
    expect(stale.status).toBe(200);
  });
});

describe('identity hook', () => {
  it('feeds every binding the principal it decides, and the runtime scopes tasks to it', async () => {
    const seen: string[] = [];
    const handler = createRequestHandler({ agent: whoAmIAgent(seen) });
    const { url } = await startServer({
      agents: [{ path: '', handler }],
      bindings: [jsonRpcBinding(), pingBinding],
      authenticate: bearerOfTest,
    });
    const alice = { headers: { authorization: 'Bearer good-alice' } };
    const bob = { headers: { authorization: 'Bearer good-bob' } };
    const answer = await call(`${url}/a2a`, 'SendMessage', messageParams('hi'), alice);
    expect(answer.result).toMatchObject({ message: { parts: [{ text: 'alice' }] } });
    expect(seen).toEqual(['alice']);
    const created = await call(`${url}/a2a`, 'SendMessage', messageParams('task'), alice);
    const taskId = created.result?.task?.id as string;
    expect((await call(`${url}/a2a`, 'GetTask', { id: taskId }, alice)).result).toMatchObject({
      id: taskId,
    });
    expect((await call(`${url}/a2a`, 'GetTask', { id: taskId }, bob)).error?.code).toBe(-32001);
    const ping = await fetch(`${url}/ping`, {
      method: 'POST',
      headers: { authorization: 'Bearer good-bob' },
    });
    expect(await ping.json()).toMatchObject({ caller: 'bob' });
  });

  it('refuses in each binding form with 401 and WWW-Authenticate, before the agent runs', async () => {
    const seen: string[] = [];
    const handler = createRequestHandler({ agent: whoAmIAgent(seen) });
    const { url } = await startServer({
      agents: [{ path: '', handler }],
      bindings: [jsonRpcBinding(), pingBinding],
      authenticate: bearerOfTest,
    });
    const rpc = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: { ...A2A_HEADERS, authorization: 'Bearer bad' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: messageParams('x'),
      }),
    });
    expect(rpc.status).toBe(401);
    expect(rpc.headers.get('www-authenticate')).toBe('Bearer realm="test"');
    const body = (await rpc.json()) as { id: unknown; error: { code: number; message: string } };
    // The refusal echoes the request's id (JSON-RPC 2.0 §5), the body having parsed.
    expect(body).toMatchObject({
      id: 1,
      error: { message: 'Send Authorization: Bearer good-<name>' },
    });
    const ping = await fetch(`${url}/ping`, { method: 'POST' });
    expect(ping.status).toBe(401);
    expect(await ping.json()).toEqual({
      refused: 'UNAUTHENTICATED',
      message: 'Send Authorization: Bearer good-<name>',
    });
    expect(seen).toEqual([]);
  });

  it('keeps the card, /healthz and CORS preflight open', async () => {
    const { url } = await startServer({ authenticate: bearerOfTest });
    expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const preflight = await fetch(`${url}/a2a`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
  });

  it('answers 500 and logs nothing secret when the authenticator itself fails', async () => {
    const failing: Authenticator = () => {
      throw new Error('the identity provider is down');
    };
    const { url } = await startServer({ authenticate: failing });
    const response = await fetch(`${url}/a2a`, {
      method: 'POST',
      headers: A2A_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain('identity provider');
  });
});
