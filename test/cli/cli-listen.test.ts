/**
 * `tandem listen` as a child process: it prints where it listens, then one line per
 * notification (JSON with `--json`), refuses a wrong token, and prints a duplicate delivery once.
 */

import { expect, it } from 'vitest';
import { CLI, requireBuild, serverProcesses } from '../support/processes.js';

requireBuild();

const processes = serverProcesses();

const status = (state: string) => ({
  statusUpdate: {
    taskId: 'task-1',
    contextId: 'ctx-1',
    status: { state, timestamp: '2026-01-01T00:00:00Z' },
  },
});

function post(url: string, body: unknown, headers: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', ...headers },
    body: JSON.stringify(body),
  });
}

it('prints each notification once as a JSON line, and refuses a wrong token', async () => {
  const { process: listen, url } = await processes.start(
    [CLI, 'listen', '--json', '--port', '0', '--token', 'listen-token'],
    /^\{"listening":"(http:\/\/[^"]+)"\}$/,
  );
  const token = { 'x-a2a-notification-token': 'listen-token' };
  expect(
    (await post(url, status('TASK_STATE_WORKING'), { 'x-a2a-notification-token': 'nope' })).status,
  ).toBe(401);
  const once = { ...token, 'x-a2a-delivery-id': 'task-1:c:2' };
  expect((await post(url, status('TASK_STATE_WORKING'), once)).status).toBe(204);
  expect((await post(url, status('TASK_STATE_WORKING'), once)).status).toBe(204);
  expect(
    (
      await post(url, status('TASK_STATE_COMPLETED'), {
        ...token,
        'x-a2a-delivery-id': 'task-1:c:3',
      })
    ).status,
  ).toBe(204);
  await listen.line(/TASK_STATE_COMPLETED/);
  const printed = listen.lines.slice(1).map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(printed).toEqual([
    {
      deliveryId: 'task-1:c:2',
      taskId: 'task-1',
      kind: 'statusUpdate',
      payload: status('TASK_STATE_WORKING'),
    },
    {
      deliveryId: 'task-1:c:3',
      taskId: 'task-1',
      kind: 'statusUpdate',
      payload: status('TASK_STATE_COMPLETED'),
    },
  ]);
  expect(await listen.terminate()).toBe(0);
});

it('prints a readable line per notification without --json', async () => {
  const { process: listen, url } = await processes.start(
    [CLI, 'listen'],
    /^Listening for push notifications at (http:\/\/\S+)$/,
  );
  expect((await post(url, status('TASK_STATE_WORKING'), {})).status).toBe(204);
  const [line] = await listen.line(/^.* task-1 status TASK_STATE_WORKING$/);
  expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S*Z task-1 status TASK_STATE_WORKING$/);
});
