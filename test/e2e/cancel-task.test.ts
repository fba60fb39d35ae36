/**
 * CancelTask end to end: the canceled task is returned and stored, every open stream ends with
 * the CANCELED status, the agent's signal fires, and an agent that ignores it cannot write any
 * more — over every binding, against every store.
 */

import { expect, it } from 'vitest';
import {
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { rejection } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import { describeEvent } from '../support/events.js';
import { artifactTexts, historyOf, send } from '../support/messages.js';
import { deferred } from '../support/sync.js';

describeBehaviour('CancelTask', (env) => {
  it('returns the canceled task; cancelling it again is TaskNotCancelable, an unknown task TaskNotFound', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Asker'),
        execute: (ctx) => (ctx.text === 'done' ? ctx.complete() : ctx.inputRequired('And then?')),
      }),
    );
    const task = await agent.sendTask(send('start'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const canceled = await agent.cancelTask({ id: task.id });
    expect(canceled).toMatchObject({
      id: task.id,
      contextId: task.contextId,
      status: { state: 'TASK_STATE_CANCELED' },
    });
    expect(historyOf(canceled)).toEqual(['user: start', 'agent: And then?']);
    expect(await agent.getTask({ id: task.id })).toEqual(canceled);
    await rejection(agent.cancelTask({ id: task.id }), TaskNotCancelableError);
    const completed = await agent.sendTask(send('done'));
    await rejection(agent.cancelTask({ id: completed.id }), TaskNotCancelableError);
    expect((await agent.getTask({ id: completed.id })).status.state).toBe('TASK_STATE_COMPLETED');
    await rejection(agent.cancelTask({ id: crypto.randomUUID() }), TaskNotFoundError);
    // A canceled task takes no more messages and has nothing to subscribe to.
    await rejection(
      agent.sendMessage(send('more', { taskId: task.id })),
      UnsupportedOperationError,
    );
    await rejection(agent.subscribeToTask({ id: task.id }), UnsupportedOperationError);
  });

  it('CancelTask during a streaming artifact leaves a CANCELED task and ends every stream with it', async () => {
    const firstChunk = deferred();
    const aborted = deferred();
    const finished = deferred<string>();
    const server = await env.serve(
      defineAgent({
        card: testCard('Chunker'),
        async execute(ctx) {
          ctx.signal.addEventListener('abort', () => aborted.resolve());
          await ctx.working();
          // The first chunk of an artifact that is still streaming (no lastChunk yet).
          const id = await ctx.artifact('chunk-0', { lastChunk: false });
          firstChunk.resolve();
          await aborted.promise;
          finished.resolve(id);
        },
      }),
    );
    const { agent } = server;
    const sender = await agent.sendStreamingMessage(send('go'));
    const head = await sender.take(3);
    expect(head.map(describeEvent)).toEqual([
      '1 task TASK_STATE_SUBMITTED',
      '2 status TASK_STATE_WORKING',
      '3 artifact chunk-0',
    ]);
    const taskId = head[0]?.response.task?.id ?? '';
    await firstChunk.promise;
    const watchers = await Promise.all([
      agent.subscribeToTask({ id: taskId }),
      agent.subscribeToTask({ id: taskId }),
    ]);
    for (const watcher of watchers) {
      const snapshot = (await watcher.next())?.response.task;
      expect(snapshot?.status.state).toBe('TASK_STATE_WORKING');
      expect(snapshot?.artifacts?.map((a) => a.parts.map((p) => p.text))).toEqual([['chunk-0']]);
    }
    const canceled = await agent.cancelTask({ id: taskId });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    await aborted.promise;
    for (const stream of [sender, ...watchers]) {
      const rest = await stream.rest();
      expect(rest.map(describeEvent)).toEqual(['4 status TASK_STATE_CANCELED']);
    }
    expect(await finished.promise).toBe(head[2]?.response.artifactUpdate?.artifact.artifactId);
    const stored = await agent.getTask({ id: taskId });
    expect(stored.status.state).toBe('TASK_STATE_CANCELED');
    expect(artifactTexts(stored)).toEqual([['chunk-0']]);
  });

  it('an agent that ignores the abort signal still ends CANCELED and its later output is dropped', async () => {
    const started = deferred();
    const release = deferred();
    const afterCancel = deferred<unknown>();
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Stubborn'),
        async execute(ctx) {
          const id = await ctx.artifact('early', { lastChunk: false });
          started.resolve();
          await release.promise;
          try {
            await ctx.append(id, 'late chunk');
            await ctx.artifact('late artifact');
            await ctx.working('still here');
            await ctx.complete('finished anyway');
            afterCancel.resolve(undefined);
          } catch (error) {
            afterCancel.resolve(error);
          }
        },
      }),
    );
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    await started.promise;
    const watcher = await agent.subscribeToTask({ id: task.id });
    expect((await watcher.next())?.response.task?.id).toBe(task.id);
    const canceled = await agent.cancelTask({ id: task.id });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    release.resolve();
    // The agent's writes after the cancel resolve without effect; they do not throw at it.
    expect(await afterCancel.promise).toBeUndefined();
    expect((await watcher.rest()).map(describeEvent)).toEqual(['3 status TASK_STATE_CANCELED']);
    const stored = await agent.getTask({ id: task.id });
    expect(stored.status.state).toBe('TASK_STATE_CANCELED');
    expect(artifactTexts(stored)).toEqual([['early']]);
    expect(historyOf(stored)).toEqual(['user: go']);
    const listed = await agent.listTasks({ includeArtifacts: true });
    expect(listed.tasks.map((t) => [t.status.state, artifactTexts(t)])).toEqual([
      ['TASK_STATE_CANCELED', [['early']]],
    ]);
  });

  it('cancels a task whose agent is blocked in a blocking SendMessage, answering that call too', async () => {
    const started = deferred();
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Waiter'),
        async execute(ctx) {
          await ctx.working();
          started.resolve();
          await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
        },
      }),
    );
    // Several store connections ready, as in a server that has been serving for a while.
    await Promise.all(Array.from({ length: 8 }, () => agent.listTasks()));
    const contextId = `ctx-${crypto.randomUUID()}`;
    const blocking = agent.sendTask(send('wait', { contextId }));
    await started.promise;
    const [listed] = (await agent.listTasks({ contextId })).tasks;
    const canceled = await agent.cancelTask({ id: listed?.id ?? '' });
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const answered = await blocking;
    expect(answered.id).toBe(canceled.id);
    expect(answered.status.state).toBe('TASK_STATE_CANCELED');
  });
});
