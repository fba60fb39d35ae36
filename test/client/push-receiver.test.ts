/**
 * The push receiver of `tandem/client` on a real `node:http` server: what a Tandem server
 * delivers reaches the callback typed and once; wrong credentials, bodies that are not a
 * `StreamResponse`, other methods and media types are refused; a callback that throws makes the
 * sender retry, and the retry is handed over again.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createPushReceiver,
  toNodePushListener,
  type PushNotification,
  type PushReceiverOptions,
} from '../../src/client.js';
import { testAgent } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { send } from '../support/messages.js';
import { Counter } from '../support/sync.js';

interface Receiving {
  url: string;
  readonly got: PushNotification[];
  readonly arrived: Counter;
  failNext: number;
}

const servers: Server[] = [];

async function receiving(options: Omit<PushReceiverOptions, 'onNotification'>): Promise<Receiving> {
  const state: Receiving = { url: '', got: [], arrived: new Counter(), failNext: 0 };
  const handler = createPushReceiver({
    ...options,
    onNotification: (notification) => {
      if (state.failNext > 0) {
        state.failNext--;
        throw new Error('not now');
      }
      state.got.push(notification);
      state.arrived.increment();
    },
  });
  const server = createServer(toNodePushListener(handler));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return state;
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

const statusEvent = {
  statusUpdate: {
    taskId: 't-1',
    contextId: 'c-1',
    status: { state: 'TASK_STATE_WORKING', timestamp: '2026-01-01T00:00:00Z' },
  },
};

function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describeBehaviour('the push receiver', (env) => {
  let hook: Receiving;

  beforeAll(async () => {
    hook = await receiving({ token: 'tok', authorization: 'Bearer cred' });
  });

  it('hands a Tandem server’s deliveries to the callback typed, each once, in order', async () => {
    const { agent } = await env.serve(testAgent, { push: env.push() });
    const before = hook.got.length;
    hook.failNext = 1;
    const stream = await agent.sendStreamingMessage(
      send(
        'stream 2',
        {},
        {
          taskPushNotificationConfig: {
            url: hook.url,
            token: 'tok',
            authentication: { scheme: 'Bearer', credentials: 'cred' },
          },
        },
      ),
    );
    const events = await stream.rest();
    await hook.arrived.reached(before + events.length);
    const got = hook.got.slice(before);
    expect(got.map((n) => n.kind)).toEqual(events.map((e) => Object.keys(e.response)[0]));
    expect(got.map((n) => n.payload)).toEqual(events.map((e) => e.response));
    const taskId = events[0]?.response.task?.id;
    expect(got.every((n) => n.taskId === taskId)).toBe(true);
    expect(new Set(got.map((n) => n.deliveryId)).size).toBe(got.length);
  });
});

it('checks the token and the credentials, the method, the media type and the body', async () => {
  const hook = await receiving({ token: 'tok', authorization: 'Bearer cred' });
  const good = { 'x-a2a-notification-token': 'tok', authorization: 'Bearer cred' };
  expect(
    (await post(hook.url, statusEvent, { ...good, 'x-a2a-notification-token': 'tok2' })).status,
  ).toBe(401);
  expect(
    (await post(hook.url, statusEvent, { ...good, authorization: 'Bearer other' })).status,
  ).toBe(401);
  expect((await post(hook.url, statusEvent, { 'x-a2a-notification-token': 'tok' })).status).toBe(
    401,
  );
  expect((await fetch(hook.url, { headers: good })).status).toBe(405);
  expect(
    (await post(hook.url, statusEvent, { ...good, 'content-type': 'text/plain' })).status,
  ).toBe(415);
  expect((await post(hook.url, '{not json', good)).status).toBe(400);
  const invalid = await post(hook.url, { statusUpdate: { taskId: 't-1' } }, good);
  expect(invalid.status).toBe(400);
  expect(await invalid.text()).toContain('statusUpdate');
  expect(hook.got).toHaveLength(0);
  expect((await post(hook.url, statusEvent, good)).status).toBe(204);
  expect(hook.got.map((n) => [n.kind, n.taskId])).toEqual([['statusUpdate', 't-1']]);
});

it('drops a repeated delivery id, and hands over again one whose callback failed', async () => {
  const hook = await receiving({});
  const first = { 'x-a2a-delivery-id': 't-1:c:1' };
  expect((await post(hook.url, statusEvent, first)).status).toBe(204);
  expect((await post(hook.url, statusEvent, first)).status).toBe(204);
  expect(hook.got).toHaveLength(1);
  hook.failNext = 1;
  const second = { 'x-a2a-delivery-id': 't-1:c:2' };
  expect((await post(hook.url, statusEvent, second)).status).toBe(500);
  expect((await post(hook.url, statusEvent, second)).status).toBe(204);
  expect((await post(hook.url, statusEvent, second)).status).toBe(204);
  expect(hook.got.map((n) => n.deliveryId)).toEqual(['t-1:c:1', 't-1:c:2']);
});
