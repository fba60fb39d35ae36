/**
 * Resuming event streams with `Last-Event-ID`: a client that loses its stream after any event and
 * reconnects with `SubscribeToTask` and the last `id:` it saw gets exactly the rest — no gap, no
 * duplicate, the same bytes the log holds — whether the task is still running when it comes back
 * or has ended meanwhile. On every store, through real HTTP on loopback.
 */

import { describe, expect, it } from 'vitest';
import { echo } from '../../src/agents/echo.js';
import { gatedAgent, normalizeFrames } from './support/agents.js';
import { inProcessServers } from './support/in-process.js';
import {
  NotAStreamError,
  idsOf,
  range,
  stateOf,
  taskIdOf,
  userText,
  type AgentEndpoint,
  type Frame,
  type FrameReader,
} from './support/json-rpc.js';
import { STORE_NAMES, skipWithoutPostgres } from './support/stores.js';

/** Chunks of the gated agent: its streams have CHUNKS + 3 events. */
const CHUNKS = 6;
const GATED_EVENTS = CHUNKS + 3;

/** Reads `k` frames of a gated stream, opening the agent's gate for each event past WORKING. */
async function takeGated(
  stream: FrameReader,
  k: number,
  gateOf: (taskId: string) => { open(n?: number): void },
): Promise<Frame[]> {
  const frames = await stream.take(Math.min(k, 2));
  for (let i = frames.length; i < k; i++) {
    gateOf(taskIdOf(frames[0])).open();
    frames.push(...(await stream.take(1)));
  }
  return frames;
}

/** The SSE id of the last frame, which a client sends back as `Last-Event-ID`. */
function lastId(frames: readonly Frame[]): number {
  const id = frames[frames.length - 1]?.id;
  if (id === undefined) throw new Error('The last frame had no id');
  return id;
}

/** Checks that `first ++ resumed` is the uninterrupted stream and the task's whole log. */
async function expectSeamless(
  agent: AgentEndpoint,
  first: readonly Frame[],
  resumed: readonly Frame[],
  reference: readonly Frame[],
): Promise<void> {
  const all = [...first, ...resumed];
  const k = first.length;
  expect(idsOf(all), `ids after a drop at event ${k}`).toEqual(range(1, reference.length));
  expect(normalizeFrames(all), `payloads after a drop at event ${k}`).toEqual(
    normalizeFrames(reference),
  );
  // The live events and the resumed ones are the bytes the log holds.
  const replay = await (await agent.subscribe(taskIdOf(all[0]), 0)).rest();
  expect(all.map((frame) => frame.resultJson)).toEqual(replay.map((frame) => frame.resultJson));
  expect(all.every((frame) => frame.resultJson !== undefined)).toBe(true);
}

describe.each(STORE_NAMES)('Resuming streams with Last-Event-ID [%s store]', (storeName) => {
  if (skipWithoutPostgres(storeName)) return;
  const serve = inProcessServers();

  it('echo "stream 8 16": a drop after any event k, then SubscribeToTask with Last-Event-ID, gives the uninterrupted stream', async () => {
    const agent = (await serve(storeName, { '': echo })).endpoint();
    const command = 'stream 8 16';
    const reference = await (await agent.stream(userText(command))).rest();
    expect(idsOf(reference)).toEqual(range(1, 11));
    expect(stateOf(reference[10])).toBe('TASK_STATE_COMPLETED');

    for (let k = 1; k <= reference.length; k++) {
      const stream = await agent.stream(userText(command));
      const first = await stream.take(k);
      stream.close();
      const resumed = await (await agent.subscribe(taskIdOf(first[0]), lastId(first))).rest();
      await expectSeamless(agent, first, resumed, reference);
    }
  });

  it('echo "slowstream 6 15 8": resuming while the demo agent is still streaming gives the uninterrupted stream', async () => {
    const agent = (await serve(storeName, { '': echo })).endpoint();
    const command = 'slowstream 6 15 8';
    const reference = await (await agent.stream(userText(command))).rest();
    expect(idsOf(reference)).toEqual(range(1, 9));

    for (let k = 1; k <= reference.length; k++) {
      const stream = await agent.stream(userText(command));
      const first = await stream.take(k);
      stream.close();
      const resumed = await (await agent.subscribe(taskIdOf(first[0]), lastId(first))).rest();
      await expectSeamless(agent, first, resumed, reference);
    }
  });

  it('resumes a task that is still running at reconnect, then follows it live to the end', async () => {
    const { agent: definition, run } = gatedAgent(CHUNKS);
    const agent = (await serve(storeName, { '': definition })).endpoint();
    const referenceStream = await agent.stream(userText('go'));
    const head = await referenceStream.take(1);
    run(taskIdOf(head[0])).gate.open(CHUNKS + 1);
    const reference = [...head, ...(await referenceStream.rest())];
    expect(idsOf(reference)).toEqual(range(1, GATED_EVENTS));

    for (let k = 1; k < GATED_EVENTS; k++) {
      const stream = await agent.stream(userText('go'));
      const first = await takeGated(stream, k, (id) => run(id).gate);
      stream.close();
      const taskId = taskIdOf(first[0]);
      // The agent waits at its gate: the task cannot have moved past event k + 1.
      const before = await agent.getTask(taskId);
      expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(before.status.state);

      const resumedStream = await agent.subscribe(taskId, lastId(first));
      run(taskId).gate.open(CHUNKS + 1);
      await expectSeamless(agent, first, await resumedStream.rest(), reference);
    }
  });

  it('resumes a task that ended before the client came back: the rest of the log, then the end', async () => {
    const { agent: definition, run } = gatedAgent(CHUNKS);
    const agent = (await serve(storeName, { '': definition })).endpoint();
    const referenceStream = await agent.stream(userText('go'));
    const head = await referenceStream.take(1);
    run(taskIdOf(head[0])).gate.open(CHUNKS + 1);
    const reference = [...head, ...(await referenceStream.rest())];

    for (let k = 1; k <= GATED_EVENTS; k++) {
      const stream = await agent.stream(userText('go'));
      const first = await takeGated(stream, k, (id) => run(id).gate);
      stream.close();
      const taskId = taskIdOf(first[0]);
      run(taskId).gate.open(CHUNKS + 1);
      await run(taskId).finished.promise;
      expect((await agent.getTask(taskId)).status.state).toBe('TASK_STATE_COMPLETED');

      const resumed = await (await agent.subscribe(taskId, lastId(first))).rest();
      expect(resumed).toHaveLength(GATED_EVENTS - k);
      await expectSeamless(agent, first, resumed, reference);
    }
  });

  it('refuses a Last-Event-ID that is not an event of the task (-32602), on running and ended tasks', async () => {
    const { agent: definition, run } = gatedAgent(1);
    const agent = (await serve(storeName, { '': definition })).endpoint();
    const running = await agent.stream(userText('go'));
    const runningId = taskIdOf((await running.take(2))[0]);
    const ended = await agent.stream(userText('go'));
    const endedId = taskIdOf((await ended.take(1))[0]);
    run(endedId).gate.open(2);
    expect(idsOf(await ended.rest())).toEqual([2, 3, 4]);

    for (const [taskId, lastSeq] of [
      [runningId, 2],
      [endedId, 4],
    ] as const) {
      for (const bad of ['garbage', '2x', '-1', '1.5', '0x2', String(lastSeq + 1), '99999999']) {
        const reply = await agent.call('SubscribeToTask', { id: taskId }, { 'last-event-id': bad });
        expect(reply.error?.code, `Last-Event-ID ${JSON.stringify(bad)}`).toBe(-32602);
      }
    }
    // The refusals changed nothing: the running task goes on to its end.
    run(runningId).gate.open(2);
    expect(stateOf((await running.rest()).at(-1))).toBe('TASK_STATE_COMPLETED');
  });

  it('answers SubscribeToTask on an ended task with -32004 without Last-Event-ID, and with nothing more when resumed at its last event', async () => {
    const agent = (await serve(storeName, { '': echo })).endpoint();
    const frames = await (await agent.stream(userText('stream 2 4'))).rest();
    const taskId = taskIdOf(frames[0]);
    expect(idsOf(frames)).toEqual([1, 2, 3, 4, 5]);

    const refused = await agent.call('SubscribeToTask', { id: taskId });
    expect(refused.error?.code).toBe(-32004);
    await expect(agent.subscribe(taskId)).rejects.toBeInstanceOf(NotAStreamError);

    expect(await (await agent.subscribe(taskId, 5)).rest()).toEqual([]);
    const unknown = await agent.call(
      'SubscribeToTask',
      { id: crypto.randomUUID() },
      { 'last-event-id': '1' },
    );
    expect(unknown.error?.code).toBe(-32001);
  });
});
