import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentCard } from '../../src/index.js';
import { createExpressMiddleware } from '../../src/server.js';
import { readSse } from '../support/read-sse.js';
import { A2A_HEADERS, handlerFor, messageParams, type JsonRpcResponse } from './support.js';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function listen(app: express.Express): Promise<string> {
  const server = await new Promise<Server>((resolve) => {
    const started = app.listen(0, '127.0.0.1', () => resolve(started));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('Express adapter', () => {
  it('serves agents under a mount path and leaves other routes to the app', async () => {
    const app = express();
    const a2a = createExpressMiddleware({ agents: [{ path: '', handler: handlerFor() }] });
    app.use('/agents', a2a);
    app.get('/other', (_req, res) => {
      res.json({ from: 'app' });
    });
    const url = await listen(app);

    const card = (await (
      await fetch(`${url}/agents/.well-known/agent-card.json`)
    ).json()) as AgentCard;
    expect(card.supportedInterfaces[0]?.url).toBe(`${url}/agents/a2a`);

    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: messageParams('echo express'),
    });
    const sent = (await (
      await fetch(`${url}/agents/a2a`, { method: 'POST', headers: A2A_HEADERS, body })
    ).json()) as JsonRpcResponse;
    expect(sent.result?.task?.status.state).toBe('TASK_STATE_COMPLETED');

    expect(await (await fetch(`${url}/other`)).json()).toEqual({ from: 'app' });
    expect((await fetch(`${url}/agents/unknown`)).status).toBe(404);
    await a2a.shutdown({ deadlineMs: 500 });
  });

  it('streams SSE through Express', async () => {
    const app = express();
    app.use(createExpressMiddleware({ agents: [{ path: '', handler: handlerFor() }] }));
    const url = await listen(app);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 5,
      method: 'SendStreamingMessage',
      params: messageParams('stream 2'),
    });
    const response = await fetch(`${url}/a2a`, { method: 'POST', headers: A2A_HEADERS, body });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await readSse(response);
    expect(events.map((event) => (JSON.parse(event.data) as JsonRpcResponse).id)).toEqual(
      events.map(() => 5),
    );
  });

  it('uses a body that express.json() already parsed', async () => {
    const app = express();
    app.use(express.json());
    app.use(createExpressMiddleware({ agents: [{ path: '', handler: handlerFor() }] }));
    const url = await listen(app);
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'p',
      method: 'GetTask',
      params: { id: 'x' },
    });
    const answer = (await (
      await fetch(`${url}/a2a`, { method: 'POST', headers: A2A_HEADERS, body })
    ).json()) as JsonRpcResponse;
    expect(answer).toMatchObject({ id: 'p', error: { code: -32001 } });
  });
});
