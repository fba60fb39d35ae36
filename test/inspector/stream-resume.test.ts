/**
 * A stream that drops mid-way, seen through the inspector's backend: the client resumes it with
 * `SubscribeToTask` and `Last-Event-ID`, and the relay to the page says where (a `resumed` line
 * with the id), then goes on with the events after it, each once. The drop is made below the
 * client, in the `fetch` the inspector's app is given, so that everything above it is real.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { echo } from '../../src/agents/echo.js';
import { createNodeServer, createRequestHandler } from '../../src/server.js';
import { createInspectorApp } from '../../src/inspector/inspector-app.js';
import type { StreamLine, WireEntry } from '../../src/inspector/inspector-api.js';
import { allowedHostsFor } from '../../src/inspector/request-guard.js';
import { requireBuild } from '../support/processes.js';

let agentUrl = '';
let inspectorUrl = '';
let token = '';
let closeAgent: () => Promise<void>;
let inspector: Server;

/** Cuts the first event stream after its second event, as a dropped connection would. */
const droppingFetch = (() => {
  let dropped = false;
  return async (request: Request): Promise<Response> => {
    const body = request.body === null ? '' : await request.clone().text();
    const response = await fetch(request);
    if (dropped || !body.includes('SendStreamingMessage') || response.body === null)
      return response;
    dropped = true;
    const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
    let text = '';
    const cut = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        text += new TextDecoder().decode(value);
        controller.enqueue(value);
        if ((text.match(/^id:/gm) ?? []).length >= 2) {
          await reader.cancel();
          controller.error(new TypeError('terminated'));
        }
      },
    });
    return new Response(cut, { status: response.status, headers: response.headers });
  };
})();

beforeAll(async () => {
  requireBuild();
  const agent = createNodeServer({
    agents: [{ path: '', handler: createRequestHandler({ agent: echo }) }],
  });
  agentUrl = (await agent.listen({ port: 0, host: '127.0.0.1' })).url.replace(/\/+$/, '');
  closeAgent = () => agent.shutdown({ deadlineMs: 1_000 });
  let port = 0;
  const app = createInspectorApp({
    assets: new URL('../../dist/inspector/page/', import.meta.url),
    allowedHosts: () => allowedHostsFor('127.0.0.1', port),
    publicUrl: () => `http://127.0.0.1:${port}`,
    describeError: (error) => ({
      type: error instanceof Error ? error.name : 'Error',
      message: String(error),
      exitCode: 3,
    }),
    fetch: droppingFetch,
  });
  token = app.token;
  inspector = createServer(app.listener);
  await new Promise<void>((resolve) => inspector.listen(0, '127.0.0.1', resolve));
  port = (inspector.address() as AddressInfo).port;
  inspectorUrl = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  inspector?.closeAllConnections();
  await new Promise((resolve) => inspector?.close(resolve));
  await closeAgent?.();
});

function post(route: string, body: unknown): Promise<Response> {
  return fetch(`${inspectorUrl}/api/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-inspector-token': token },
    body: JSON.stringify(body),
  });
}

it('marks where a dropped stream resumed, and delivers each event after it once', async () => {
  const connected = (await (await post('connect', { url: agentUrl })).json()) as { id: string };
  const response = await post('send', {
    connectionId: connected.id,
    parts: [{ kind: 'text', text: 'slowstream 5 30 4' }],
    stream: true,
  });
  expect(response.headers.get('content-type')).toContain('application/x-ndjson');
  const lines = (await response.text())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as StreamLine);
  expect(lines[0]?.kind).toBe('sent');
  expect(lines.at(-1)?.kind).toBe('end');
  const events = lines.filter((line) => line.kind === 'event');
  const resumed = lines.findIndex((line) => line.kind === 'resumed');
  expect(resumed).toBeGreaterThan(0);
  const marker = lines[resumed] as Extract<StreamLine, { kind: 'resumed' }>;
  const before = lines.slice(0, resumed).filter((line) => line.kind === 'event');
  expect(before).toHaveLength(2);
  expect(marker.lastEventId).toBe(before[1]?.eventId);
  // After the marker: the events after that id, in order, none twice.
  const ids = events.map((event) => Number(event.eventId));
  expect(new Set(ids).size).toBe(ids.length);
  expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  const after = lines.slice(resumed + 1).filter((line) => line.kind === 'event');
  expect(Number(after[0]?.eventId)).toBe(Number(marker.lastEventId) + 1);
  const last = events.at(-1);
  expect(last?.payload.statusUpdate?.status.state ?? last?.payload.task?.status.state).toBe(
    'TASK_STATE_COMPLETED',
  );
  // The wire shows the resuming call with its Last-Event-ID.
  const session = (await (
    await fetch(`${inspectorUrl}/api/session`, { headers: { 'x-inspector-token': token } })
  ).json()) as { wire: WireEntry[] };
  const subscribe = session.wire.find((entry) => entry.operation === 'SubscribeToTask');
  expect(subscribe?.request.headers).toContainEqual(['last-event-id', marker.lastEventId]);
});
