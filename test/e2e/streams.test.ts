/**
 * Event streams end to end: SendStreamingMessage and SubscribeToTask over SSE — the Task first,
 * one `id:` per event increasing by 1, identical sequences for any number of concurrent readers,
 * readers that leave or fall behind, and streams across an interrupted task.
 */

import { expect, it } from 'vitest';
import { defineAgent } from '../../src/server.js';
import { artifactTexts, historyOf, testCard } from './support/agents.js';
import { describeFrame, send, stateOf, type Frame } from './support/json-rpc.js';
import { describeStores } from './support/server.js';
import { deferred } from './support/sync.js';

/** The SSE ids of `frames` as numbers. */
function ids(frames: readonly Frame[]): number[] {
  return frames.map((frame) => Number(frame.id));
}

/** `n` consecutive numbers from `first`. */
function run(first: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => first + i);
}

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

describeStores('Event streams', (env) => {
  it('starts SendStreamingMessage with the Task and numbers every event 1, 2, 3…', async () => {
    const { agent } = await env.serve(
      defineAgent({
        card: testCard('Streamer'),
        async execute(ctx) {
          await ctx.working('thinking');
          const id = await ctx.artifact('a');
          await ctx.append(id, 'b', { lastChunk: true });
          await ctx.complete('done');
        },
      }),
    );
    const stream = await agent.stream(send('go'));
    const frames = await stream.rest();
    expect(frames.map(describeFrame)).toEqual([
      '1 task TASK_STATE_SUBMITTED',
      '2 status TASK_STATE_WORKING',
      '3 artifact a',
      '4 artifact b (append)',
      '5 status TASK_STATE_COMPLETED',
    ]);
    const first = frames[0]?.result?.task;
    expect(first === undefined ? [] : historyOf(first)).toEqual(['user: go']);
    const taskId = first?.id ?? '';
    for (const frame of frames.slice(1)) {
      const update = frame.result?.statusUpdate ?? frame.result?.artifactUpdate;
      expect(update).toMatchObject({ taskId, contextId: first?.contextId });
    }
    const stored = await agent.getTask(taskId);
    expect(stored.status).toEqual(frames[4]?.result?.statusUpdate?.status);
    expect(artifactTexts(stored)).toEqual([['a', 'b']]);
  });

  it('starts SubscribeToTask with a snapshot of the task and continues its numbering', async () => {
    const { agent: definition, started, release } = gatedAgent(2);
    const { agent } = await env.serve(definition);
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    await started.promise;
    const subscription = await agent.subscribe(task.id);
    const snapshot = await subscription.next();
    expect(snapshot?.id).toBe('2');
    expect(snapshot?.result?.task).toMatchObject({
      id: task.id,
      status: { state: 'TASK_STATE_WORKING' },
    });
    expect(historyOf(snapshot?.result?.task ?? task)).toEqual(['user: go', 'agent: started']);
    release.resolve();
    const rest = await subscription.rest();
    expect(ids(rest)).toEqual(run(3, 4));
    expect(rest.map(describeFrame)).toEqual([
      '3 artifact chunk-0',
      '4 artifact chunk-1 (append)',
      '5 status TASK_STATE_WORKING',
      '6 status TASK_STATE_COMPLETED',
    ]);
  });

  it('refuses SubscribeToTask for a terminal task with -32004 and for an unknown one with -32001', async () => {
    const { agent } = await env.serve(
      defineAgent({ card: testCard('Quick'), execute: (ctx) => ctx.complete() }),
    );
    const task = await agent.sendTask(send('go'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await agent.error('SubscribeToTask', { id: task.id })).code).toBe(-32004);
    expect((await agent.error('SubscribeToTask', { id: crypto.randomUUID() })).code).toBe(-32001);
  });

  it('gives 100 concurrent subscribers the identical event sequence', async () => {
    const { agent: definition, started, release } = gatedAgent(10);
    const { agent } = await env.serve(definition);
    const task = await agent.sendTask(send('go', {}, { returnImmediately: true }));
    await started.promise;
    const subscriptions = await Promise.all(
      Array.from({ length: 100 }, () => agent.subscribe(task.id)),
    );
    release.resolve();
    const sequences = await Promise.all(subscriptions.map((s) => s.rest()));
    // The JSON-RPC id inside each frame is the subscriber's own; the event is the rest.
    const comparable = sequences.map((frames) =>
      frames.map((frame) => `${frame.id ?? '-'} ${JSON.stringify(frame.result)}`),
    );
    const [reference] = comparable;
    expect(reference).toHaveLength(13);
    expect(ids(sequences[0] ?? [])).toEqual(run(2, 13));
    expect(sequences[0]?.map(describeFrame).slice(0, 2)).toEqual([
      '2 task TASK_STATE_WORKING',
      '3 artifact chunk-0',
    ]);
    expect(stateOf(sequences[0]?.at(-1))).toBe('TASK_STATE_COMPLETED');
    for (const sequence of comparable) expect(sequence).toEqual(reference);
  });

  it('closing one stream affects neither the other streams nor the task', async () => {
    const { agent: definition, started, release } = gatedAgent(3);
    const server = await env.serve(definition);
    const { agent } = server;
    const sender = await agent.stream(send('go'), { tag: 'sender' });
    const taskId = (await sender.next())?.result?.task?.id ?? '';
    await started.promise;
    const leaving = await agent.subscribe(taskId, { tag: 'leaving' });
    const staying = await agent.subscribe(taskId);
    expect(stateOf(await sender.next())).toBe('TASK_STATE_WORKING');
    expect((await leaving.next())?.result?.task?.id).toBe(taskId);
    expect((await staying.next())?.result?.task?.id).toBe(taskId);
    leaving.close();
    await (
      await server.request('leaving')
    ).closed;
    release.resolve();
    const senderRest = await sender.rest();
    const stayingRest = await staying.rest();
    expect(senderRest.map(describeFrame)).toEqual(stayingRest.map(describeFrame));
    expect(stayingRest.map(describeFrame)).toEqual([
      '3 artifact chunk-0',
      '4 artifact chunk-1 (append)',
      '5 artifact chunk-2 (append)',
      '6 status TASK_STATE_WORKING',
      '7 status TASK_STATE_COMPLETED',
    ]);
    expect((await agent.getTask(taskId)).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a client that drops its stream after the first event still finds the task completed', async () => {
    const { agent: definition, release, finished } = gatedAgent(2);
    const server = await env.serve(definition);
    const { agent } = server;
    const stream = await agent.stream(send('go'), { tag: 'dropper' });
    const first = await stream.next();
    const taskId = first?.result?.task?.id ?? '';
    expect(first?.id).toBe('1');
    stream.close();
    await (
      await server.request('dropper')
    ).closed;
    release.resolve();
    await finished.promise;
    const task = await agent.getTask(taskId);
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
          const id = await ctx.artifact(`#0:${'x'.repeat(chunkBytes)}`);
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
    const stream = await server.agent.stream(send('go'), { tag: 'slow' });
    // Nothing is read until the agent is done: it must not wait for this client, and more than
    // 12 MiB cannot sit in socket buffers, so the server's stream fell behind its 4-event buffer.
    await finished.promise;
    const frames = await stream.rest();
    expect(ids(frames)).toEqual(run(1, chunks + 3));
    const taskId = frames[0]?.result?.task?.id ?? '';
    const markers = frames.flatMap((frame) => {
      const text = frame.result?.artifactUpdate?.artifact.parts[0]?.text;
      return text === undefined ? [] : [text.slice(0, text.indexOf(':'))];
    });
    expect(markers).toEqual(Array.from({ length: chunks }, (_, i) => `#${i}`));
    expect(stateOf(frames.at(-1))).toBe('TASK_STATE_COMPLETED');
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
    const first = await agent.stream(send('order'));
    const firstFrames = await first.rest();
    expect(firstFrames.map(describeFrame)).toEqual([
      '1 task TASK_STATE_SUBMITTED',
      '2 status TASK_STATE_INPUT_REQUIRED',
    ]);
    const taskId = firstFrames[0]?.result?.task?.id ?? '';
    const second = await agent.stream(send('large', { taskId }));
    const secondFrames = await second.rest();
    expect(secondFrames.map(describeFrame)).toEqual([
      '3 task TASK_STATE_WORKING',
      '4 artifact size large',
      '5 status TASK_STATE_COMPLETED',
    ]);
    const resumedTask = secondFrames[0]?.result?.task;
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
    const watcher = await agent.subscribe(task.id);
    expect(describeFrame((await watcher.next()) as Frame)).toBe('2 task TASK_STATE_INPUT_REQUIRED');
    const done = await agent.sendTask(send('small', { taskId: task.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect((await watcher.rest()).map(describeFrame)).toEqual([
      '3 status TASK_STATE_WORKING',
      '4 artifact size small',
      '5 status TASK_STATE_COMPLETED',
    ]);
  });

  it('resumes a dropped stream after its Last-Event-ID, also once the task has ended', async () => {
    const { agent: definition, release, finished } = gatedAgent(2);
    const server = await env.serve(definition);
    const { agent } = server;
    const stream = await agent.stream(send('go'), { tag: 'first' });
    const seen = [await stream.next(), await stream.next()];
    expect(seen.map((frame) => frame?.id)).toEqual(['1', '2']);
    stream.close();
    await (
      await server.request('first')
    ).closed;
    const taskId = seen[0]?.result?.task?.id ?? '';
    const live = await agent.subscribe(taskId, { headers: { 'last-event-id': '2' } });
    release.resolve();
    await finished.promise;
    const expected = [
      '3 artifact chunk-0',
      '4 artifact chunk-1 (append)',
      '5 status TASK_STATE_WORKING',
      '6 status TASK_STATE_COMPLETED',
    ];
    expect((await live.rest()).map(describeFrame)).toEqual(expected);
    const afterEnd = await agent.subscribe(taskId, { headers: { 'last-event-id': '4' } });
    expect((await afterEnd.rest()).map(describeFrame)).toEqual(expected.slice(2));
    const beyond = await agent.error(
      'SubscribeToTask',
      { id: taskId },
      {
        headers: { 'last-event-id': '7' },
      },
    );
    expect(beyond.code).toBe(-32602);
  });
});
