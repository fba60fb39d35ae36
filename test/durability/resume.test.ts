/**
 * Resuming event streams with `Last-Event-ID`: a client that loses its stream after any event and
 * reconnects with `SubscribeToTask` and the last `id:` it saw gets exactly the rest — no gap, no
 * duplicate, the same bytes the log holds — whether the task is still running when it comes back
 * or has ended meanwhile. Over every binding, on every store, through real HTTP on loopback.
 */

import { expect, it } from 'vitest';
import { echo } from '../../src/agents/echo.js';
import {
  InvalidParamsError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../src/index.js';
import { rejection, violatedFields } from '../support/a2a-errors.js';
import { gatedAgent } from '../support/agents.js';
import type { A2ADriver, EventStream, StreamEvent } from '../support/drivers/a2a-driver.js';
import {
  expectResumedAfter,
  lastSeqOf,
  normalizeEvents,
  range,
  seqsOf,
  stateOf,
  taskIdOf,
} from '../support/events.js';
import { describeMatrix } from '../support/matrix.js';
import { send } from '../support/messages.js';
import { inProcessServers } from '../support/per-test-servers.js';

/** Chunks of the gated agent: its streams have CHUNKS + 3 events. */
const CHUNKS = 6;
const GATED_EVENTS = CHUNKS + 3;

/** Reads `k` events of a gated stream, opening the agent's gate for each event past WORKING. */
async function takeGated(
  stream: EventStream,
  k: number,
  gateOf: (taskId: string) => { open(n?: number): void },
): Promise<StreamEvent[]> {
  const events = await stream.take(Math.min(k, 2));
  for (let i = events.length; i < k; i++) {
    gateOf(taskIdOf(events[0])).open();
    events.push(...(await stream.take(1)));
  }
  return events;
}

/** `SubscribeToTask` resuming after `lastEventId`, read to its end. */
async function resume(agent: A2ADriver, id: string, lastEventId: number): Promise<StreamEvent[]> {
  return (await agent.subscribeToTask({ id }, { lastEventId })).rest();
}

/** Checks that `first ++ resumed` is the uninterrupted stream and the task's whole log. */
async function expectSeamless(
  agent: A2ADriver,
  first: readonly StreamEvent[],
  resumed: readonly StreamEvent[],
  reference: readonly StreamEvent[],
): Promise<void> {
  const all = [...first, ...resumed];
  const k = first.length;
  // The resumed stream starts right after the last event seen, with no gap or duplicate.
  expectResumedAfter(lastSeqOf(first), resumed);
  expect(seqsOf(all), `sequence numbers after a drop at event ${k}`).toEqual(
    range(1, reference.length),
  );
  expect(normalizeEvents(all), `payloads after a drop at event ${k}`).toEqual(
    normalizeEvents(reference),
  );
  // The live events and the resumed ones are the bytes the log holds (over SSE, the JSON as
  // sent; over gRPC, whose frames are protobuf, the decoded message).
  const replay = await resume(agent, taskIdOf(all[0]), 0);
  const wireOf = (event: StreamEvent): string => event.json ?? event.raw;
  expect(all.map(wireOf)).toEqual(replay.map(wireOf));
  if (agent.binding !== 'grpc') expect(all.every((event) => event.json !== undefined)).toBe(true);
}

describeMatrix(
  'Resuming streams after the last event seen',
  ({ binding, store: storeName }) => {
    const serve = inProcessServers(binding);

    it('echo "stream 8 16": a drop after any event k, then SubscribeToTask with Last-Event-ID, gives the uninterrupted stream', async () => {
      const { agent } = await serve(storeName, { '': echo });
      const command = 'stream 8 16';
      const reference = await (await agent.sendStreamingMessage(send(command))).rest();
      expect(seqsOf(reference)).toEqual(range(1, 11));
      expect(stateOf(reference[10])).toBe('TASK_STATE_COMPLETED');

      for (let k = 1; k <= reference.length; k++) {
        const stream = await agent.sendStreamingMessage(send(command));
        const first = await stream.take(k);
        stream.close();
        const resumed = await resume(agent, taskIdOf(first[0]), lastSeqOf(first));
        await expectSeamless(agent, first, resumed, reference);
      }
    });

    it('echo "slowstream 6 15 8": resuming while the demo agent is still streaming gives the uninterrupted stream', async () => {
      const { agent } = await serve(storeName, { '': echo });
      const command = 'slowstream 6 15 8';
      const reference = await (await agent.sendStreamingMessage(send(command))).rest();
      expect(seqsOf(reference)).toEqual(range(1, 9));

      for (let k = 1; k <= reference.length; k++) {
        const stream = await agent.sendStreamingMessage(send(command));
        const first = await stream.take(k);
        stream.close();
        const resumed = await resume(agent, taskIdOf(first[0]), lastSeqOf(first));
        await expectSeamless(agent, first, resumed, reference);
      }
    });

    it('resumes a task that is still running at reconnect, then follows it live to the end', async () => {
      const { agent: definition, run } = gatedAgent(CHUNKS);
      const { agent } = await serve(storeName, { '': definition });
      const referenceStream = await agent.sendStreamingMessage(send('go'));
      const head = await referenceStream.take(1);
      run(taskIdOf(head[0])).gate.open(CHUNKS + 1);
      const reference = [...head, ...(await referenceStream.rest())];
      expect(seqsOf(reference)).toEqual(range(1, GATED_EVENTS));

      for (let k = 1; k < GATED_EVENTS; k++) {
        const stream = await agent.sendStreamingMessage(send('go'));
        const first = await takeGated(stream, k, (id) => run(id).gate);
        stream.close();
        const taskId = taskIdOf(first[0]);
        // The agent waits at its gate: the task cannot have moved past event k + 1.
        const before = await agent.getTask({ id: taskId });
        expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(before.status.state);

        const resumedStream = await agent.subscribeToTask(
          { id: taskId },
          { lastEventId: lastSeqOf(first) },
        );
        run(taskId).gate.open(CHUNKS + 1);
        await expectSeamless(agent, first, await resumedStream.rest(), reference);
      }
    });

    it('resumes a task that ended before the client came back: the rest of the log, then the end', async () => {
      const { agent: definition, run } = gatedAgent(CHUNKS);
      const { agent } = await serve(storeName, { '': definition });
      const referenceStream = await agent.sendStreamingMessage(send('go'));
      const head = await referenceStream.take(1);
      run(taskIdOf(head[0])).gate.open(CHUNKS + 1);
      const reference = [...head, ...(await referenceStream.rest())];

      for (let k = 1; k <= GATED_EVENTS; k++) {
        const stream = await agent.sendStreamingMessage(send('go'));
        const first = await takeGated(stream, k, (id) => run(id).gate);
        stream.close();
        const taskId = taskIdOf(first[0]);
        run(taskId).gate.open(CHUNKS + 1);
        await run(taskId).finished.promise;
        expect((await agent.getTask({ id: taskId })).status.state).toBe('TASK_STATE_COMPLETED');

        const resumed = await resume(agent, taskId, lastSeqOf(first));
        expect(resumed).toHaveLength(GATED_EVENTS - k);
        await expectSeamless(agent, first, resumed, reference);
      }
    });

    it('refuses a resume position that is not an event of the task (InvalidParams), on running and ended tasks', async () => {
      const { agent: definition, run } = gatedAgent(1);
      const { agent } = await serve(storeName, { '': definition });
      const running = await agent.sendStreamingMessage(send('go'));
      const runningId = taskIdOf((await running.take(2))[0]);
      const ended = await agent.sendStreamingMessage(send('go'));
      const endedId = taskIdOf((await ended.take(1))[0]);
      run(endedId).gate.open(2);
      expect(seqsOf(await ended.rest())).toEqual([2, 3, 4]);

      for (const [taskId, lastSeq] of [
        [runningId, 2],
        [endedId, 4],
      ] as const) {
        for (const bad of ['garbage', '2x', '-1', '1.5', '0x2', String(lastSeq + 1), '99999999']) {
          const error = await rejection(
            agent.subscribeToTask({ id: taskId }, { lastEventId: bad }),
            InvalidParamsError,
          );
          expect(violatedFields(error), `Last-Event-ID ${JSON.stringify(bad)}`).toEqual([
            'Last-Event-ID',
          ]);
        }
      }
      // The refusals changed nothing: the running task goes on to its end.
      run(runningId).gate.open(2);
      expect(stateOf((await running.rest()).at(-1))).toBe('TASK_STATE_COMPLETED');
    });

    it('answers SubscribeToTask on an ended task with UnsupportedOperation without a resume position, and with nothing more when resumed at its last event', async () => {
      const { agent } = await serve(storeName, { '': echo });
      const events = await (await agent.sendStreamingMessage(send('stream 2 4'))).rest();
      const taskId = taskIdOf(events[0]);
      expect(seqsOf(events)).toEqual([1, 2, 3, 4, 5]);

      await rejection(agent.subscribeToTask({ id: taskId }), UnsupportedOperationError);

      expect(await resume(agent, taskId, 5)).toEqual([]);
      await rejection(
        agent.subscribeToTask({ id: crypto.randomUUID() }, { lastEventId: 1 }),
        TaskNotFoundError,
      );
    });
  },
  // Resuming after an event (and replaying a task's log) needs event ids, which gRPC streams do not carry.
  {},
);
