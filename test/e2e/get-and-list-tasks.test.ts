/**
 * GetTask and ListTasks end to end: history length, filters (contextId, status,
 * statusTimestampAfter), ordering by status time, paging with opaque tokens, page size bounds,
 * artifacts left out unless asked for — over every binding, against every store.
 */

import { expect, it } from 'vitest';
import {
  InvalidParamsError,
  TaskNotFoundError,
  type ListTasksRequest,
  type Task,
} from '../../src/index.js';
import { defineAgent, type AgentDefinition } from '../../src/server.js';
import { rejection, violatedFields } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import type { A2ADriver } from '../support/drivers/a2a-driver.js';
import { artifactTexts, historyOf, send, taskIds as idsOf } from '../support/messages.js';
import { clockPast } from '../support/sync.js';

/**
 * Ends each task as its first message says: "complete", "fail", "reject", "artifact" (completes
 * with an artifact); anything else asks for input, and the next message completes the task.
 */
const worker: AgentDefinition = defineAgent({
  card: testCard('Worker'),
  async execute(ctx) {
    if (ctx.task !== undefined) return ctx.complete(`thanks for ${ctx.text}`);
    switch (ctx.text) {
      case 'complete':
        return ctx.complete();
      case 'fail':
        return ctx.fail('no');
      case 'reject':
        return ctx.reject('never');
      case 'artifact':
        await ctx.artifact('the result');
        return ctx.complete('here it is');
      default:
        return ctx.inputRequired(`more about ${ctx.text}?`);
    }
  },
});

/** Creates a task whose status timestamp is later than that of every task created before. */
async function later(agent: A2ADriver, text: string, contextId?: string): Promise<Task> {
  const task = await agent.sendTask(send(text, contextId === undefined ? {} : { contextId }));
  await clockPast(Date.parse(task.status.timestamp ?? ''));
  return task;
}

describeBehaviour('GetTask and ListTasks', (env) => {
  it('GetTask returns the stored task, honouring historyLength; an unknown id is TaskNotFound', async () => {
    const { agent } = await env.serve(worker);
    const task = await agent.sendTask(send('paint'));
    const done = await agent.sendTask(send('blue', { taskId: task.id }));
    const full = await agent.getTask({ id: task.id });
    expect(full).toEqual(done);
    expect(historyOf(full)).toEqual([
      'user: paint',
      'agent: more about paint?',
      'user: blue',
      'agent: thanks for blue',
    ]);
    const none = await agent.getTask({ id: task.id, historyLength: 0 });
    expect(none).not.toHaveProperty('history');
    expect(none.status).toEqual(full.status);
    expect(historyOf(await agent.getTask({ id: task.id, historyLength: 2 }))).toEqual([
      'user: blue',
      'agent: thanks for blue',
    ]);
    expect(historyOf(await agent.getTask({ id: task.id, historyLength: 50 }))).toHaveLength(4);
    await rejection(agent.getTask({ id: crypto.randomUUID() }), TaskNotFoundError);
    const negative = await rejection(
      agent.getTask({ id: task.id, historyLength: -1 }),
      InvalidParamsError,
    );
    expect(violatedFields(negative)).toEqual(['historyLength']);
  });

  it('filters by contextId and status, with totalSize and an empty nextPageToken on the last page', async () => {
    const { agent } = await env.serve(worker);
    const a = `ctx-a-${crypto.randomUUID()}`;
    const b = `ctx-b-${crypto.randomUUID()}`;
    const a1 = await agent.sendTask(send('complete', { contextId: a }));
    const a2 = await agent.sendTask(send('question', { contextId: a }));
    const b1 = await agent.sendTask(send('fail', { contextId: b }));
    const b2 = await agent.sendTask(send('question', { contextId: b }));
    await agent.cancelTask({ id: b2.id });

    const all = await agent.listTasks();
    expect(idsOf(all.tasks).sort()).toEqual([a1.id, a2.id, b1.id, b2.id].sort());
    expect(all).toMatchObject({ totalSize: 4, pageSize: 50, nextPageToken: '' });

    const inA = await agent.listTasks({ contextId: a });
    expect(idsOf(inA.tasks).sort()).toEqual([a1.id, a2.id].sort());
    expect(inA).toMatchObject({ totalSize: 2, nextPageToken: '' });

    const waiting = await agent.listTasks({ status: 'TASK_STATE_INPUT_REQUIRED' });
    expect(idsOf(waiting.tasks)).toEqual([a2.id]);
    expect(waiting.totalSize).toBe(1);

    const canceledInB = await agent.listTasks({ contextId: b, status: 'TASK_STATE_CANCELED' });
    expect(idsOf(canceledInB.tasks)).toEqual([b2.id]);

    const none = await agent.listTasks({ status: 'TASK_STATE_WORKING' });
    expect(none).toEqual({ tasks: [], nextPageToken: '', pageSize: 50, totalSize: 0 });
    const unknownContext = await agent.listTasks({ contextId: crypto.randomUUID() });
    expect(unknownContext).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: '' });
  });

  it('sorts by status timestamp, most recent first: an updated task moves to the front', async () => {
    const { agent } = await env.serve(worker);
    const first = await later(agent, 'question');
    const second = await later(agent, 'complete');
    const third = await later(agent, 'complete');
    expect(idsOf((await agent.listTasks()).tasks)).toEqual([third.id, second.id, first.id]);
    await agent.sendTask(send('answer', { taskId: first.id }));
    const listed = (await agent.listTasks()).tasks;
    expect(idsOf(listed)).toEqual([first.id, third.id, second.id]);
    const times = listed.map((task) => Date.parse(task.status.timestamp ?? ''));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it('statusTimestampAfter keeps the tasks whose status time is at or after it', async () => {
    const { agent } = await env.serve(worker);
    const tasks: Task[] = [];
    for (let i = 0; i < 4; i++) tasks.push(await later(agent, 'complete'));
    const [t0, t1, t2, t3] = tasks as [Task, Task, Task, Task];
    const fromT1 = await agent.listTasks({ statusTimestampAfter: t1.status.timestamp ?? '' });
    expect(idsOf(fromT1.tasks)).toEqual([t3.id, t2.id, t1.id]);
    expect(fromT1.totalSize).toBe(3);
    const justAfterT2 = new Date(Date.parse(t2.status.timestamp ?? '') + 1).toISOString();
    expect(idsOf((await agent.listTasks({ statusTimestampAfter: justAfterT2 })).tasks)).toEqual([
      t3.id,
    ]);
    const past = await agent.listTasks({ statusTimestampAfter: '2000-01-01T00:00:00Z' });
    expect(idsOf(past.tasks)).toEqual([t3.id, t2.id, t1.id, t0.id]);
    const future = await agent.listTasks({ statusTimestampAfter: '2999-01-01T00:00:00Z' });
    expect(future).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: '' });
    // A google.protobuf.Timestamp on the gRPC wire cannot hold a string that is no time.
    if (env.binding !== 'grpc') {
      const invalid = await rejection(
        agent.listTasks({ statusTimestampAfter: 'yesterday' }),
        InvalidParamsError,
      );
      expect(violatedFields(invalid)).toEqual(['statusTimestampAfter']);
    }
  });

  it('pages through the tasks with pageSize and opaque tokens, each task exactly once', async () => {
    const { agent } = await env.serve(worker);
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await agent.sendTask(send('complete'))).id);
    const seen: string[] = [];
    const tokens: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await agent.listTasks(
        pageToken === undefined ? { pageSize: 3 } : { pageSize: 3, pageToken },
      );
      expect(page.pageSize).toBe(3);
      expect(page.totalSize).toBe(7);
      seen.push(...idsOf(page.tasks));
      tokens.push(page.nextPageToken);
      pageToken = page.nextPageToken === '' ? undefined : page.nextPageToken;
    } while (pageToken !== undefined);
    expect(tokens.map((token) => token !== '')).toEqual([true, true, false]);
    expect(seen).toHaveLength(7);
    expect([...seen].sort()).toEqual([...created].sort());
    const exact = await agent.listTasks({ pageSize: 7 });
    expect(exact.tasks).toHaveLength(7);
    expect(exact.nextPageToken).toBe('');
  });

  it('refuses a pageSize outside 1..100 with InvalidParams naming pageSize', async () => {
    const { agent } = await env.serve(worker);
    await agent.sendTask(send('complete'));
    for (const pageSize of [0, -1, 101, 1000]) {
      const error = await rejection(agent.listTasks({ pageSize }), InvalidParamsError);
      expect(violatedFields(error), String(pageSize)).toEqual(['pageSize']);
    }
    expect((await agent.listTasks({ pageSize: 1 })).tasks).toHaveLength(1);
    expect((await agent.listTasks({ pageSize: 100 })).pageSize).toBe(100);
  });

  it('refuses garbage and tokens of a listing with other filters with InvalidParams naming pageToken', async () => {
    const { agent } = await env.serve(worker);
    const contextId = `ctx-${crypto.randomUUID()}`;
    for (let i = 0; i < 3; i++) await agent.sendTask(send('complete', { contextId }));
    const filtered = await agent.listTasks({ contextId, pageSize: 1 });
    const unfiltered = await agent.listTasks({ pageSize: 1 });
    expect([filtered, unfiltered].every((page) => page.nextPageToken !== '')).toBe(true);
    const refusals: [string, ListTasksRequest][] = [
      ['garbage', { pageToken: 'not a token' }],
      ['base64 garbage', { pageToken: 'eyJmb28iOiJiYXIifQ' }],
      ['other contextId filter', { pageToken: filtered.nextPageToken }],
      [
        'other status filter',
        { pageToken: unfiltered.nextPageToken, status: 'TASK_STATE_COMPLETED' },
      ],
      [
        'other statusTimestampAfter filter',
        { pageToken: unfiltered.nextPageToken, statusTimestampAfter: '2000-01-01T00:00:00Z' },
      ],
    ];
    for (const [what, params] of refusals) {
      const outcome = await agent.call('ListTasks', params);
      expect(outcome.error, `${what}: ${outcome.raw.slice(0, 200)}`).toBeInstanceOf(
        InvalidParamsError,
      );
      expect(violatedFields(outcome.error), what).toEqual(['pageToken']);
    }
    // The same listing's token works, also with another page size or view.
    const next = await agent.listTasks({
      pageToken: unfiltered.nextPageToken,
      pageSize: 10,
      historyLength: 0,
    });
    expect(next.tasks).toHaveLength(2);
  });

  it('refuses a page token issued by another agent with InvalidParams naming pageToken', async () => {
    const server = await env.serve([
      { path: '/one', agent: worker },
      { path: '/two', agent: worker },
    ]);
    const one = server.endpoint('/one');
    const two = server.endpoint('/two');
    for (let i = 0; i < 3; i++) {
      await one.sendTask(send('complete'));
      await two.sendTask(send('complete'));
    }
    const ofTwo = await two.listTasks({ pageSize: 1 });
    expect(ofTwo.nextPageToken).not.toBe('');
    // Same filters, but another agent's listing: its position means nothing here.
    const outcome = await one.call('ListTasks', { pageToken: ofTwo.nextPageToken });
    expect(outcome.error, outcome.raw.slice(0, 200)).toBeInstanceOf(InvalidParamsError);
    expect(violatedFields(outcome.error)).toEqual(['pageToken']);
  });

  it('omits artifacts unless includeArtifacts is true, and cuts each history to historyLength', async () => {
    const { agent } = await env.serve(worker);
    const withArtifact = await agent.sendTask(send('artifact'));
    const without = await agent.sendTask(send('question'));
    const plain = await agent.listTasks();
    expect(plain.tasks).toHaveLength(2);
    for (const task of plain.tasks) expect(task).not.toHaveProperty('artifacts');
    expect(plain.tasks.map(historyOf)).toEqual([
      ['user: question', 'agent: more about question?'],
      ['user: artifact', 'agent: here it is'],
    ]);
    const withArtifacts = await agent.listTasks({ includeArtifacts: true });
    const byId = new Map(withArtifacts.tasks.map((task) => [task.id, task]));
    expect(artifactTexts(byId.get(withArtifact.id) as Task)).toEqual([['the result']]);
    expect((byId.get(without.id) as Task).artifacts ?? []).toEqual([]);
    const noHistory = await agent.listTasks({ historyLength: 0 });
    for (const task of noHistory.tasks) expect(task).not.toHaveProperty('history');
    const lastOne = await agent.listTasks({ historyLength: 1, includeArtifacts: false });
    expect(lastOne.tasks.map(historyOf)).toEqual([
      ['agent: more about question?'],
      ['agent: here it is'],
    ]);
    for (const task of lastOne.tasks) expect(task).not.toHaveProperty('artifacts');
  });

  it('keeps the tasks of a tenant out of reach of every other tenant', async () => {
    const { agent } = await env.serve(worker);
    const tenant = `tenant-${crypto.randomUUID()}`;
    const theirs = await agent.sendTask({ ...send('question'), tenant });
    const ours = await agent.sendTask(send('question'));
    await rejection(agent.getTask({ id: theirs.id }), TaskNotFoundError);
    await rejection(agent.cancelTask({ id: theirs.id }), TaskNotFoundError);
    await rejection(agent.subscribeToTask({ id: theirs.id }), TaskNotFoundError);
    await rejection(agent.sendMessage(send('answer', { taskId: theirs.id })), TaskNotFoundError);
    expect(idsOf((await agent.listTasks()).tasks)).toEqual([ours.id]);
    expect(idsOf((await agent.listTasks({ tenant })).tasks)).toEqual([theirs.id]);
    // Within the tenant the task is there to read.
    expect((await agent.getTask({ id: theirs.id, tenant })).id).toBe(theirs.id);
    const resumed = await agent.sendTask({ ...send('answer', { taskId: theirs.id }), tenant });
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
