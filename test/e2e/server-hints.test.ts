/**
 * What the server says to a caller that took a wrong turn, over real HTTP on loopback: a path
 * below no agent is answered with the agents there are and the closest one; the 404's route list
 * names each route once, also with the 0.3 compat layer; a 0.3 client refused (a 0.3 JSON-RPC
 * method, a request without `A2A-Version`) is told the way in — the library's default speaks of
 * no CLI flag, `olderVersionHint` sets it (tandem serve's), and with compat on the refusal of a
 * 0.3 method sent as 1.0 says 0.3 is served too.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dice } from '../../src/agents/dice.js';
import { echo } from '../../src/agents/echo.js';
import { compatV03 } from '../../src/server-compat.js';
import { createA2AServer, createRequestHandler, type A2AServer } from '../../src/server.js';

const servers: A2AServer[] = [];

async function serve(options: { compat?: boolean; olderVersionHint?: string }): Promise<string> {
  const server = createA2AServer({
    agents: [
      { path: '/agents/dice', handler: createRequestHandler({ agent: dice }) },
      { path: '/agents/echo', handler: createRequestHandler({ agent: echo }) },
    ],
    compat: options.compat === true ? compatV03() : undefined,
    olderVersionHint: options.olderVersionHint,
    http: { port: 0, host: '127.0.0.1' },
  });
  servers.push(server);
  return (await server.listen()).http?.url ?? '';
}

async function messageOf(response: Response): Promise<string> {
  const body = (await response.json()) as { error?: { message?: string } };
  return body.error?.message ?? '';
}

function rpc(url: string, method: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: {} }),
  });
}

let plain: string;
let cli: string;
let compat: string;
const CLI_HINT = 'start the server with --compat 0.3 to serve 0.3 clients too';

beforeAll(async () => {
  [plain, cli, compat] = await Promise.all([
    serve({}),
    serve({ olderVersionHint: CLI_HINT }),
    serve({ compat: true }),
  ]);
});

afterAll(() => Promise.all(servers.map((server) => server.shutdown({ deadlineMs: 100 }))));

describe('the 404', () => {
  it('below no agent: the agents there are, and the closest', async () => {
    const response = await fetch(`${plain}/agents/dcie/a2a`);
    expect(response.status).toBe(404);
    expect(await messageOf(response)).toBe(
      'No agent at /agents/dcie/a2a; the agents here are at /agents/dice, /agents/echo; did you mean /agents/dice/a2a?',
    );
  });

  it('no did-you-mean for a path close to no agent', async () => {
    const message = await messageOf(await fetch(`${plain}/zzzzzzzzzzzzzzzz`));
    expect(message).toBe(
      'No agent at /zzzzzzzzzzzzzzzz; the agents here are at /agents/dice, /agents/echo',
    );
  });

  it('below an agent, each route once, also with --compat 0.3', async () => {
    for (const url of [plain, compat]) {
      const message = await messageOf(await fetch(`${url}/agents/dice/nothing`));
      const routes = message
        .slice(message.indexOf('interfaces at ') + 'interfaces at '.length)
        .split(', ');
      expect(routes).toContain('JSONRPC /agents/dice/a2a');
      expect(new Set(routes).size).toBe(routes.length);
    }
  });
});

describe('the hint in refusals of 0.3 clients', () => {
  it('JSON-RPC, a 0.3 method with A2A-Version 1.0: the library default names no flag', async () => {
    const message = await messageOf(
      await rpc(`${plain}/agents/echo/a2a`, 'message/send', { 'a2a-version': '1.0' }),
    );
    expect(message).toContain('"message/send" is an A2A 0.3 method');
    expect(message).toContain('this server serves A2A 1.0 clients only (0.3 compatibility is off)');
    expect(message).not.toContain('--compat');
  });

  it('JSON-RPC, a 0.3 method without A2A-Version: the configured hint', async () => {
    const message = await messageOf(await rpc(`${cli}/agents/echo/a2a`, 'message/send'));
    expect(message).toContain('"message/send" is an A2A 0.3 method');
    expect(message).toContain(CLI_HINT);
  });

  it('HTTP+JSON without A2A-Version: the configured hint after the version refusal', async () => {
    const response = await fetch(`${cli}/agents/echo/message:send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(400);
    const message = await messageOf(response);
    expect(message).toContain('A request without A2A-Version is version 0.3');
    expect(message).toContain(CLI_HINT);
    const defaults = await messageOf(
      await fetch(`${plain}/agents/echo/message:send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    expect(defaults).toContain('0.3 compatibility is off');
    expect(defaults).not.toContain('--compat');
  });

  it('with compat on, a 0.3 method sent as 1.0 is told that 0.3 is served too', async () => {
    const message = await messageOf(
      await rpc(`${compat}/agents/echo/a2a`, 'message/send', { 'a2a-version': '1.0' }),
    );
    expect(message).toContain('A2A 0.3 is served here too');
    expect(message).not.toContain('--compat');
  });

  it('a method of no version keeps the list of the 1.0 ones', async () => {
    const message = await messageOf(
      await rpc(`${plain}/agents/echo/a2a`, 'Nothing', { 'a2a-version': '1.0' }),
    );
    expect(message).toContain('A2A methods are SendMessage');
  });
});
