/**
 * Event streams end to end: SendStreamingMessage and SubscribeToTask over SSE — the Task first,
 * one `id:` per event increasing by 1, identical sequences for any number of concurrent readers,
 * readers that leave or fall behind, streams across an interrupted task, and resuming after the
 * last event seen — over every binding, against every store.
 */

import { expect, it } from 'vitest';
import {
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/index.js';
import { defineAgent } from '../../src/server.js';
import { rejection, violatedFields } from '../support/a2a-errors.js';
import { testCard } from '../support/agents.js';
import { describeBehaviour } from '../support/behaviour-env.js';
import type { StreamEvent } from '../support/drivers/a2a-driver.js';
import {
  describeEvent,
  expectResumedAfter,
  range,
  seqsOf,
  updateStateOf,
} from '../support/events.js';
import { artifactTexts, historyOf, send } from '../support/messages.js';
import { deferred } from '../support/sync.js';

/**
 * An agent that marks the task WORKING, then waits for the test's gate before producing
 * `chunks` chunks of one artifact, a progress message and the completion.
 */
function gatedAgent(chunks: number) {
  const started = deferred();
  const release = deferred();
  const finished = deferred();
  const agent = defineAgent({
    card: testCard('Gated streamer'),
    async execute(ctx) {
      await ctx.working('started');
      started.resolve();
      await release.promise;
      const id = await ctx.artifact('chunk-0', { lastChunk: chunks === 1 });
      for (let i = 1; i < chunks; i++) {
        await ctx.append(id, `chunk-${i}`, { lastChunk: i === chunks - 1 });
      }
      await ctx.working('halfway');
      await ctx.complete('done');
      finished.resolve();
    },
  });
  return { agent, started, release, finished };
}

describeBehaviour('Event streams', (env) => {
  it('starts SendStreamingMessage with the Task and numbers every event 1, 2, 3…', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Streamer'),
        async execute(ctx) {
          await ctx.working('thinking');
          const id = await ctx.artifact('a', { lastChunk: false });
          await ctx.append(id, 'b', { lastChunk: true });
          await ctx.complete('done');
        },
      }),
    );
    const stream = await agent.sendStreamingMessage(send('go'));
    const events = await stream.rest();
    expect(events.map(describeEvent)).toEqual([
      '1 task TASK_STATE_SUBMITTED',
      '2 status TASK_STATE_WORKING',
      '3 artifact a',
      '4 artifact b (append)',
      '5 status TASK_STATE_COMPLETED',
    ]);
    const first = events[0]?.response.task;
    expect(first === undefined ? [] : historyOf(first)).toEqual(['user: go']);
    const taskId = first?.id ?? '';
    for (const event of events.slice(1)) {
      const update = event.response.statusUpdate ?? event.response.artifactUpdate;
      expect(update).toMatchObject({ taskId, contextId: first?.contextId });
    }
    const stored = await agent.getTask({ id: taskId });
    expect(stored.status).toEqual(events[4]?.response.statusUpdate?.status);
    expect(artifactTexts(stored)).toEqual([['a', 'b']]);
  });

  it('starts SubscribeToTask with a snapshot of the task and continues its numbering', async () => {
    const { agent: definition, started, release } = gatedAgent(2);
    const { agent } = await env.serve(definition);
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    await started.promise;
    const subscription = await agent.subscribeToTask({ id: task.id });
    const snapshot = await subscription.next();
    expect(snapshot?.seq).toBe(2);
    expect(snapshot?.response.task).toMatchObject({
      id: task.id,
      status: { state: 'TASK_STATE_WORKING' },
    });
    expect(historyOf(snapshot?.response.task ?? task)).toEqual(['user: go', 'agent: started']);
    release.resolve();
    const rest = await subscription.rest();
    expect(seqsOf(rest)).toEqual(range(3, 4));
    expect(rest.map(describeEvent)).toEqual([
      '3 artifact chunk-0',
      '4 artifact chunk-1 (append)',
      '5 status TASK_STATE_WORKING',
      '6 status TASK_STATE_COMPLETED',
    ]);
  });

  it('refuses SubscribeToTask for a terminal task with UnsupportedOperation and for an unknown one with TaskNotFound', async () => {
    const { agent } = await env.serve(
      defineAgent({ card: testCard('Quick'), execute: (ctx) => ctx.complete() }),
    );
    const task = await agent.sendTask(send('go'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    await rejection(agent.subscribeToTask({ id: task.id }), UnsupportedOperationError);
    await rejection(agent.subscribeToTask({ id: crypto.randomUUID() }), TaskNotFoundError);
  });

  it('gives 100 concurrent subscribers the identical event sequence', async () => {
    const { agent: definition, started, release } = gatedAgent(10);
    const { agent } = await env.serve(definition);
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    await started.promise;
    const subscriptions = await Promise.all(
      Array.from({ length: 100 }, () => agent.subscribeToTask({ id: task.id })),
    );
    release.resolve();
    const sequences = await Promise.all(subscriptions.map((s) => s.rest()));
    // The framing may differ per subscriber (a JSON-RPC id); the event must not.
    const comparable = sequences.map((events) =>
      events.map((event) => `${event.seq ?? '-'} ${JSON.stringify(event.response)}`),
    );
    const [reference] = comparable;
    expect(reference).toHaveLength(13);
    expect(seqsOf(sequences[0] ?? [])).toEqual(range(2, 13));
    expect(sequences[0]?.map(describeEvent).slice(0, 2)).toEqual([
      '2 task TASK_STATE_WORKING',
      '3 artifact chunk-0',
    ]);
    expect(updateStateOf(sequences[0]?.at(-1))).toBe('TASK_STATE_COMPLETED');
    for (const sequence of comparable) expect(sequence).toEqual(reference);
  });

  it('closing one stream affects neither the other streams nor the task', async () => {
    const { agent: definition, started, release } = gatedAgent(3);
    const server = await env.serve(definition);
    const { agent } = server;
    const sender = await agent.sendStreamingMessage(send('go'), { tag: 'sender' });
    const taskId = (await sender.next())?.response.task?.id ?? '';
    await started.promise;
    const leaving = await agent.subscribeToTask({ id: taskId }, { tag: 'leaving' });
    const staying = await agent.subscribeToTask({ id: taskId });
    expect(updateStateOf(await sender.next())).toBe('TASK_STATE_WORKING');
    expect((await leaving.next())?.response.task?.id).toBe(taskId);
    expect((await staying.next())?.response.task?.id).toBe(taskId);
    leaving.close();
    await (
      await server.request('leaving')
    ).closed;
    release.resolve();
    const senderRest = await sender.rest();
    const stayingRest = await staying.rest();
    expect(senderRest.map(describeEvent)).toEqual(stayingRest.map(describeEvent));
    expect(stayingRest.map(describeEvent)).toEqual([
      '3 artifact chunk-0',
      '4 artifact chunk-1 (append)',
      '5 artifact chunk-2 (append)',
      '6 status TASK_STATE_WORKING',
      '7 status TASK_STATE_COMPLETED',
    ]);
    expect((await agent.getTask({ id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a client that drops its stream after the first event still finds the task completed', async () => {
    const { agent: definition, release, finished } = gatedAgent(2);
    const server = await env.serve(definition);
    const { agent } = server;
    const stream = await agent.sendStreamingMessage(send('go'), { tag: 'dropper' });
    const first = await stream.next();
    const taskId = first?.response.task?.id ?? '';
    expect(first?.seq).toBe(1);
    stream.close();
    await (
      await server.request('dropper')
    ).closed;
    release.resolve();
    await finished.promise;
    const task = await agent.getTask({ id: taskId });
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(artifactTexts(task)).toEqual([['chunk-0', 'chunk-1']]);
    expect(historyOf(task)).toEqual([
      'user: go',
      'agent: started',
      'agent: halfway',
      'agent: done',
    ]);
  });

  it('a consumer that stops reading still receives every event exactly once, in order', async () => {
    const chunks = 200;
    const chunkBytes = 64 * 1024;
    const finished = deferred();
    const server = await env.serve(
      defineAgent({
        card: testCard('Firehose'),
        async execute(ctx) {
          await ctx.working();
          const id = await ctx.artifact(`#0:${'x'.repeat(chunkBytes)}`, { lastChunk: false });
          for (let i = 1; i < chunks; i++) {
            await ctx.append(id, `#${i}:${'x'.repeat(chunkBytes)}`, {
              lastChunk: i === chunks - 1,
            });
          }
          await ctx.complete();
          finished.resolve();
        },
      }),
      { streamBufferSize: 4 },
    );
    const stream = await server.agent.sendStreamingMessage(send('go'), { tag: 'slow' });
    // Nothing is read until the agent is done: it must not wait for this client, and more than
    // 12 MiB cannot sit in socket buffers, so the server's stream fell behind its 4-event buffer.
    await finished.promise;
    const events = await stream.rest();
    expect(seqsOf(events)).toEqual(range(1, chunks + 3));
    const taskId = events[0]?.response.task?.id ?? '';
    const markers = events.flatMap((event) => {
      const text = event.response.artifactUpdate?.artifact.parts[0]?.text;
      return text === undefined ? [] : [text.slice(0, text.indexOf(':'))];
    });
    expect(markers).toEqual(Array.from({ length: chunks }, (_, i) => `#${i}`));
    expect(updateStateOf(events.at(-1))).toBe('TASK_STATE_COMPLETED');
    // It caught up from the store's log rather than from memory.
    expect(env.logReads(taskId)).toBeGreaterThan(0);
  });

  it('ends a stream when the task is interrupted; the resuming stream starts with the Task', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Asker'),
        async execute(ctx) {
          if (ctx.task === undefined) return ctx.inputRequired('Which size?');
          await ctx.artifact(`size ${ctx.text}`);
          return ctx.complete();
        },
      }),
    );
    const first = await agent.sendStreamingMessage(send('order'));
    const firstEvents = await first.rest();
    expect(firstEvents.map(describeEvent)).toEqual([
      '1 task TASK_STATE_SUBMITTED',
      '2 status TASK_STATE_INPUT_REQUIRED',
    ]);
    const taskId = firstEvents[0]?.response.task?.id ?? '';
    const second = await agent.sendStreamingMessage(send('large', { taskId }));
    const secondEvents = await second.rest();
    expect(secondEvents.map(describeEvent)).toEqual([
      '3 task TASK_STATE_WORKING',
      '4 artifact size large',
      '5 status TASK_STATE_COMPLETED',
    ]);
    const resumedTask = secondEvents[0]?.response.task;
    expect(resumedTask === undefined ? [] : historyOf(resumedTask)).toEqual([
      'user: order',
      'agent: Which size?',
      'user: large',
    ]);
  });

  it('a subscriber to an interrupted task follows it through the resume to the end', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Asker'),
        async execute(ctx) {
          if (ctx.task === undefined) return ctx.inputRequired('Which size?');
          await ctx.artifact(`size ${ctx.text}`);
          return ctx.complete();
        },
      }),
    );
    const task = await agent.sendTask(send('order'));
    const watcher = await agent.subscribeToTask({ id: task.id });
    expect(describeEvent((await watcher.next()) as StreamEvent)).toBe(
      ['2 task TASK_STATE_INPUT_REQUIRED'][0],
    );
    const done = await agent.sendTask(send('small', { taskId: task.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await watcher.rest()).map(describeEvent)).toEqual([
      '3 status TASK_STATE_WORKING',
      '4 artifact size small',
      '5 status TASK_STATE_COMPLETED',
    ]);
  });

  it('resumes a dropped stream after the last event seen, also once the task has ended', async () => {
    const { agent: definition, release, finished } = gatedAgent(2);
    const server = await env.serve(definition);
    const { agent } = server;
    const stream = await agent.sendStreamingMessage(send('go'), { tag: 'first' });
    const seen = await stream.take(2);
    expect(seqsOf(seen)).toEqual([1, 2]);
    stream.close();
    await (
      await server.request('first')
    ).closed;
    const taskId = seen[0]?.response.task?.id ?? '';
    const live = await agent.subscribeToTask({ id: taskId }, { lastEventId: 2 });
    release.resolve();
    await finished.promise;
    const expected = [
      '3 artifact chunk-0',
      '4 artifact chunk-1 (append)',
      '5 status TASK_STATE_WORKING',
      '6 status TASK_STATE_COMPLETED',
    ];
    const liveRest = await live.rest();
    expectResumedAfter(2, liveRest);
    expect(liveRest.map(describeEvent)).toEqual(expected);
    const afterEnd = await (await agent.subscribeToTask({ id: taskId }, { lastEventId: 4 })).rest();
    expectResumedAfter(4, afterEnd);
    expect(afterEnd.map(describeEvent)).toEqual(expected.slice(2));
    const beyond = await rejection(
      agent.subscribeToTask({ id: taskId }, { lastEventId: 7 }),
      InvalidParamsError,
    );
    expect(violatedFields(beyond)).toEqual(['Last-Event-ID']);
  });
});
