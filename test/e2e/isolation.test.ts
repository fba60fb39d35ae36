/**
 * Authorization (spec 13.1): a task belongs to the principal and tenant that created it. Another
 * principal — or the same one in another tenant — cannot read, list, cancel, subscribe to,
 * resume or continue it: each answers `TaskNotFoundError` exactly as for a task that does not
 * exist, and the task is left as it was. Over every binding, against every store. The callers
 * authenticate through a custom authenticator (the programmatic interface the built-in methods
 * use).
 */

import { expect, it } from 'vitest';
import { TaskNotFoundError, type Task } from '../../src/index.js';
import {
  AuthenticationError,
  adminPolicy,
  type Authenticator,
  type TaskAccessPolicy,
} from '../../src/server.js';
import { rejection } from '../support/a2a-errors.js';
import { testAgent } from '../support/agents.js';
import { describeBehaviour, type BehaviourEnv } from '../support/behaviour-env.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { createDriver } from '../support/drivers/bindings.js';
import { historyOf, send, taskIds } from '../support/messages.js';

/** `Authorization: Principal <name>` is principal `<name>`; anything else is refused. */
const byName: Authenticator = ({ headers }) => {
  const match = /^Principal ([a-z]+)$/.exec(headers.get('authorization') ?? '');
  if (match === null) {
    return new AuthenticationError('Send Authorization: Principal <name>', {
      challenges: ['Principal realm="test"'],
    });
  }
  return { id: match[1] as string, anonymous: false };
};

async function callers(
  env: BehaviourEnv,
  accessPolicy?: TaskAccessPolicy,
): Promise<{ alice: A2ADriver; bob: A2ADriver; ops: A2ADriver }> {
  const server = await env.serve(testAgent, {
    http: { authenticate: byName },
    ...(accessPolicy === undefined ? {} : { accessPolicy }),
  });
  const as = (name: string): A2ADriver =>
    createDriver(env.binding, server.agent.url, {
      headers: { authorization: `Principal ${name}` },
    });
  return { alice: as('alice'), bob: as('bob'), ops: as('ops') };
}

/** The message of the TaskNotFoundError for `id`, with the id itself taken out. */
async function notFoundMessage(promise: Promise<unknown>, id: string): Promise<string> {
  const error = await rejection(promise, TaskNotFoundError);
  return error.message.replaceAll(id, '<id>');
}

/** Every way `other` could reach `task`: each must be TaskNotFound, worded as for no task. */
async function expectOutOfReach(other: A2ADriver, task: Task, tenant?: string): Promise<void> {
  const t = tenant === undefined ? {} : { tenant };
  const missing = crypto.randomUUID();
  const probes: [string, (id: string) => Promise<unknown>][] = [
    ['GetTask', (id) => other.getTask({ id, ...t })],
    ['CancelTask', (id) => other.cancelTask({ id, ...t })],
    ['SubscribeToTask', (id) => other.subscribeToTask({ id, ...t })],
    ['SubscribeToTask (resume)', (id) => other.subscribeToTask({ id, ...t }, { lastEventId: 1 })],
    ['SendMessage', (id) => other.sendMessage({ ...send('answer', { taskId: id }), ...t })],
    [
      'SendStreamingMessage',
      (id) => other.sendStreamingMessage({ ...send('answer', { taskId: id }), ...t }),
    ],
  ];
  for (const [operation, probe] of probes) {
    const theirs = await notFoundMessage(probe(task.id), task.id);
    const nobodys = await notFoundMessage(probe(missing), missing);
    expect([operation, theirs]).toEqual([operation, nobodys]);
  }
  const listed = await other.listTasks({ ...t });
  expect(taskIds(listed.tasks)).not.toContain(task.id);
  const inContext = await other.listTasks({ contextId: task.contextId as string, ...t });
  expect(inContext.tasks).toEqual([]);
  expect(inContext.totalSize ?? 0).toBe(0);
}

describeBehaviour('task isolation between principals and tenants', (env) => {
  it('keeps an interrupted task of one principal out of reach of another, and unchanged', async () => {
    const { alice, bob } = await callers(env);
    const task = await alice.sendTask(send('ask'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await expectOutOfReach(bob, task);
    // Alice still sees her task as she left it, and can continue it.
    expect(await alice.getTask({ id: task.id })).toEqual(task);
    expect(taskIds((await alice.listTasks({ contextId: task.contextId as string })).tasks)).toEqual(
      [task.id],
    );
    const done = await alice.sendTask(send('Alice', { taskId: task.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(historyOf(done)).toEqual(['user: ask', 'agent: What is your name?', 'user: Alice']);
  });

  it('keeps a running task out of reach: another principal can neither cancel nor follow it', async () => {
    const { alice, bob } = await callers(env);
    const stream = await alice.sendStreamingMessage(send('wait'));
    const [first] = await stream.take(1);
    const task = first?.response.task as Task;
    await expectOutOfReach(bob, task);
    const running = await alice.getTask({ id: task.id });
    expect(running.status.state).not.toBe('TASK_STATE_CANCELED');
    expect((await alice.cancelTask({ id: task.id })).status.state).toBe('TASK_STATE_CANCELED');
    stream.close();
  });

  it('does not join a task to another principal’s context: the same contextId starts a new task', async () => {
    const { alice, bob } = await callers(env);
    const task = await alice.sendTask(send('ask'));
    const bobs = await bob.sendTask(send('echo hi', { contextId: task.contextId as string }));
    expect(bobs.id).not.toBe(task.id);
    expect(taskIds((await alice.listTasks({ contextId: task.contextId as string })).tasks)).toEqual(
      [task.id],
    );
    expect(taskIds((await bob.listTasks({ contextId: task.contextId as string })).tasks)).toEqual([
      bobs.id,
    ]);
  });

  it('scopes a principal’s tasks to their tenant too', async () => {
    const { alice, bob } = await callers(env);
    const tenant = `tenant-${crypto.randomUUID()}`;
    const task = await alice.sendTask({ ...send('ask'), tenant });
    // The same principal outside the tenant, and another principal inside it.
    await expectOutOfReach(alice, task);
    await expectOutOfReach(bob, task, tenant);
    expect((await alice.getTask({ id: task.id, tenant })).id).toBe(task.id);
  });

  it('lets an access policy grant a principal reads of every owner’s tasks, and nothing more', async () => {
    const { alice, bob, ops } = await callers(env, adminPolicy(['ops']));
    const asking = await alice.sendTask(send('ask'));
    const done = await bob.sendTask(send('echo hi'));
    const tenant = `tenant-${crypto.randomUUID()}`;
    const elsewhere = await alice.sendTask({ ...send('ask'), tenant });
    // Reads: every owner's tasks of the tenant, paged like any listing.
    expect(await ops.getTask({ id: asking.id })).toEqual(asking);
    expect(taskIds((await ops.listTasks()).tasks).sort()).toEqual([asking.id, done.id].sort());
    const first = await ops.listTasks({ pageSize: 1 });
    expect(first.totalSize).toBe(2);
    const second = await ops.listTasks({ pageSize: 1, pageToken: first.nextPageToken });
    expect([...taskIds(first.tasks), ...taskIds(second.tasks)].sort()).toEqual(
      [asking.id, done.id].sort(),
    );
    expect(second.nextPageToken).toBe('');
    const stream = await ops.subscribeToTask({ id: asking.id }, { lastEventId: 0 });
    const replayed = await stream.take(1);
    expect(replayed[0]?.response.task?.id).toBe(asking.id);
    stream.close();
    // Not writes: continuing and canceling stay the owner's.
    await rejection(ops.cancelTask({ id: asking.id }), TaskNotFoundError);
    await rejection(ops.sendMessage(send('x', { taskId: asking.id })), TaskNotFoundError);
    // Not other tenants.
    await rejection(ops.getTask({ id: elsewhere.id }), TaskNotFoundError);
    // Others are not widened by the policy.
    await expectOutOfReach(bob, asking);
    expect((await alice.getTask({ id: asking.id })).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});
