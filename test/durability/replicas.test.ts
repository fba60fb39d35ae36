/**
 * Two replicas on one PostgreSQL schema, each a real process (`fixtures/replica-server.mjs`, which
 * composes the public API from the build: `npm test` builds first; run `npm run build` before
 * calling vitest directly). Whatever one replica starts, the other can read, list, continue,
 * follow live (it learns of appends through LISTEN/NOTIFY), and cancel — which must stop the
 * executor in the first replica. When a replica dies, the other fails its running tasks within
 * the orphan timeout, and its subscribers see that end.
 *
 * The fixture's agent prints `aborted <taskId>` when an execution's abort signal fires, which is
 * how these tests see inside replica A. Each test has its own schema and its own two processes.
 * Over every binding.
 */

import { afterEach, beforeEach, expect, it } from 'vitest';
import { UnsupportedOperationError } from '../../src/index.js';
import type { A2ADriver, StreamEvent } from '../support/drivers/a2a-driver.js';
import { connectDriver } from '../support/drivers/bindings.js';
import { boundedDriver } from './fixtures/bounded-driver.js';
import {
  chunkTexts,
  expectResumedAfter,
  range,
  seqsOf,
  stateOf,
  taskIdOf,
} from '../support/events.js';
import { describeMatrix } from '../support/matrix.js';
import { artifactTexts, historyOf, send, textOf } from '../support/messages.js';
import {
  REPLICA_SERVER,
  REPLICA_URL_LINE,
  requireBuild,
  serverProcesses,
  type ServerProcess,
} from '../support/processes.js';
import { freshSchema, type TestSchema } from '../support/stores.js';
import { percentile, pollUntil, preciseNow, sleep, within } from '../support/sync.js';

const ORPHAN_TIMEOUT_MS = 1_500;
/** How often a replica looks for orphaned tasks (20% of the orphan timeout). */
const SWEEP_MS = ORPHAN_TIMEOUT_MS * 0.2;
/** How long an abort or a cancellation may take to cross from one replica to the other. */
const CROSS_REPLICA_MS = 2_000;
const REPLICA_LOST = 'The server instance running this task stopped; it did not finish.';
/**
 * The bound of every wait on a replica — each call, each stream's next events: a stall fails the
 * test naming the replica, the operation and the task (see `fixtures/bounded-driver.ts`) rather
 * than hanging until the test's timeout. Steps with a tighter promise use `within` as well.
 */
const STEP_MS = 10_000;

interface Replica {
  readonly name: 'A' | 'B';
  readonly process: ServerProcess;
  readonly agent: A2ADriver;
}

/** The index of a chunk of the fixture's `tick`, and the time written into it before its append. */
function chunkOf(event: StreamEvent): { index: number; producedAt: number } {
  const text = event.response.artifactUpdate?.artifact.parts[0]?.text ?? '';
  const match = /^chunk-(\d+) t=([\d.]+)$/.exec(text);
  if (match === null) throw new Error(`Not a tick chunk: ${JSON.stringify(text)}`);
  return { index: Number(match[1]), producedAt: Number(match[2]) };
}

function producedAt(event: StreamEvent): number {
  return chunkOf(event).producedAt;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describeMatrix(
  'Two replicas on one PostgreSQL schema',
  ({ binding }) => {
    const processes = serverProcesses();
    let schema: TestSchema;
    let a: Replica;
    let b: Replica;

    async function replica(name: 'A' | 'B'): Promise<Replica> {
      const { process, url } = await processes.start(
        [
          REPLICA_SERVER,
          ...['--store', schema.storeUrl, '--name', name],
          ...['--orphan-timeout-ms', String(ORPHAN_TIMEOUT_MS)],
          ...(binding === 'grpc' ? ['--grpc'] : []),
        ],
        REPLICA_URL_LINE,
      );
      const driver = await within(connectDriver(binding, url), STEP_MS, `${name}: connect`);
      return { name, process, agent: boundedDriver(driver, name, STEP_MS) };
    }

    beforeEach(async () => {
      requireBuild();
      schema = freshSchema();
      [a, b] = await Promise.all([replica('A'), replica('B')]);
    });

    afterEach(async () => {
      await processes.killAll();
      await schema.drop();
    });

    it('reads, lists and continues through B a task created through A', async () => {
      const echoed = await a.agent.sendTask(send('echo hi'));
      expect(artifactTexts(echoed)).toEqual([['hi by A']]);
      expect(await b.agent.getTask({ id: echoed.id })).toEqual(
        await a.agent.getTask({ id: echoed.id }),
      );

      const asked = await a.agent.sendTask(send('ask'));
      expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const listedOnB = await b.agent.listTasks();
      expect(listedOnB.tasks.map((task) => task.id).sort()).toEqual([echoed.id, asked.id].sort());
      expect(listedOnB).toEqual(await a.agent.listTasks());

      const answered = await b.agent.sendTask(send('go on', { taskId: asked.id }));
      expect(answered.status.state).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(answered)).toEqual([['go on answered by B']]);
      expect(historyOf(answered)).toEqual([
        'user: ask',
        'agent: A asks: what next?',
        'user: go on',
      ]);
      await b.process.line(new RegExp(`^resumed ${asked.id} go on$`));
      expect(a.process.lines.filter((line) => line.startsWith('resumed'))).toEqual([]);
      expect(await a.agent.getTask({ id: asked.id })).toEqual(
        await b.agent.getTask({ id: asked.id }),
      );
    });

    it("streams A's events live to a subscriber on B, in order, as A produces them", async () => {
      const onA = await a.agent.sendStreamingMessage(send('tick 40 15'));
      const head = await onA.take(2);
      const taskId = taskIdOf(head[0]);
      const onB = await b.agent.subscribeToTask({ id: taskId });
      const [eventsA, eventsB] = await Promise.all([onA.rest(), onB.rest()]);
      const allA = [...head, ...eventsA];
      expect(seqsOf(allA)).toEqual(range(1, 18));
      expect(stateOf(allA.at(-1))).toBe('TASK_STATE_COMPLETED');

      // B starts with the task as it is, then every later event once, in order, same bytes as A.
      const snapshot = eventsB[0];
      const snapshotSeq = snapshot?.seq ?? 0;
      expect(snapshot?.response.task?.id).toBe(taskId);
      const liveB = eventsB.slice(1);
      expect(seqsOf(liveB)).toEqual(range(snapshotSeq + 1, 18 - snapshotSeq));
      expect(liveB.map((event) => event.json)).toEqual(
        allA.slice(snapshotSeq).map((event) => event.json),
      );
      // Live, not replayed at the end: B had its first chunk before A produced the last one.
      const chunksB = liveB.filter((event) => event.response.artifactUpdate !== undefined);
      const lastProduced = producedAt(allA.at(-2) as StreamEvent);
      expect(chunksB[0]?.receivedAt).toBeLessThan(lastProduced);
    });

    it("cancels through B a task A is streaming: A's executor is aborted, every stream ends CANCELED", async () => {
      const onA = await a.agent.sendStreamingMessage(send('tick 50'));
      const head = await onA.take(3);
      const taskId = taskIdOf(head[0]);
      const onB = await b.agent.subscribeToTask({ id: taskId });
      await onB.take(1);

      const canceled = await b.agent.cancelTask({ id: taskId });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      await a.process.line(new RegExp(`^aborted ${taskId}$`), CROSS_REPLICA_MS);
      const [restA, restB] = await Promise.all([onA.rest(), onB.rest()]);
      expect(restA.at(-1)?.response.statusUpdate?.status).toEqual(canceled.status);
      expect(restB.at(-1)?.response.statusUpdate?.status).toEqual(canceled.status);
      expect(b.process.lines.some((line) => line.startsWith('aborted'))).toBe(false);

      // Nothing was written after the cancellation: the stored chunks are those A's stream got.
      const allA = [...head, ...restA];
      expect(seqsOf(allA)).toEqual(range(1, allA.length));
      expect(artifactTexts(await a.agent.getTask({ id: taskId }))).toEqual([chunkTexts(allA)]);
    });

    it("cancels through B a task A holds without writing: A's executor is aborted", async () => {
      const onA = await a.agent.sendStreamingMessage(send('hold'));
      const taskId = taskIdOf((await onA.take(2))[0]);

      const canceled = await b.agent.cancelTask({ id: taskId });
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      // A's stream reads the CANCELED event B wrote once NOTIFY announces it.
      const rest = await within(onA.rest(), 5 * CROSS_REPLICA_MS, "A's stream to end");
      expect(stateOf(rest.at(-1))).toBe('TASK_STATE_CANCELED');
      // A learns of the cancellation through NOTIFY and must abort the execution it runs.
      await a.process.line(new RegExp(`^aborted ${escape(taskId)}$`), CROSS_REPLICA_MS);
    });

    it('cancels through B a task A holds: the blocking SendMessage waiting on A returns CANCELED', async () => {
      const blocking = a.agent.call('SendMessage', send('hold'));
      const taskId = await pollUntil(
        async () => (await b.agent.listTasks({ status: 'TASK_STATE_WORKING' })).tasks[0]?.id,
        'the held task to be WORKING',
      );
      await b.agent.cancelTask({ id: taskId });
      const reply = await within(blocking, CROSS_REPLICA_MS, "A's blocking SendMessage to return");
      expect(reply.result?.task?.status.state).toBe('TASK_STATE_CANCELED');
    });

    it('kill -9 A during a WORKING task: B fails it within the orphan timeout + 2 s and its subscriber sees FAILED', async () => {
      const asked = await a.agent.sendTask(send('ask'));
      const onA = await a.agent.sendStreamingMessage(send('tick 50'));
      const head = await onA.take(3);
      const taskId = taskIdOf(head[0]);
      const onB = await b.agent.subscribeToTask({ id: taskId });
      const snapshot = await onB.take(1);

      const killedAt = preciseNow();
      await within(a.process.kill9(), STEP_MS, 'A to exit after kill -9');
      const bound = ORPHAN_TIMEOUT_MS + 2_000;
      const rest = await within(onB.rest(), bound + 1_000, 'the FAILED event on B');
      const failed = rest.at(-1);
      expect(stateOf(failed)).toBe('TASK_STATE_FAILED');
      expect(textOf(failed?.response.statusUpdate?.status.message)).toBe(REPLICA_LOST);
      expect((failed?.receivedAt ?? Infinity) - killedAt).toBeLessThan(bound);

      const stored = await b.agent.getTask({ id: taskId });
      expect(stored.status).toEqual(failed?.response.statusUpdate?.status);
      const log = await (await b.agent.subscribeToTask({ id: taskId }, { lastEventId: 0 })).rest();
      expectResumedAfter(0, log);
      // The log holds what each stream delivered, byte for byte: A's first events, then B's
      // live ones from right after its snapshot (which may be past A's last event read).
      const snapshotSeq = snapshot[0]?.seq ?? 0;
      expectResumedAfter(snapshotSeq, rest);
      expect(log.slice(0, head.length).map((e) => e.json)).toEqual(head.map((e) => e.json));
      expect(log.slice(snapshotSeq).map((e) => e.json)).toEqual(rest.map((e) => e.json));
      expect(artifactTexts(stored)).toEqual([chunkTexts(log)]);

      // An interrupted task holds no lease: it stays resumable, and B takes it on.
      expect((await b.agent.getTask({ id: asked.id })).status.state).toBe(
        'TASK_STATE_INPUT_REQUIRED',
      );
      const answered = await b.agent.sendTask(send('later', { taskId: asked.id }));
      expect(artifactTexts(answered)).toEqual([['later answered by B']]);
    });

    it('kill -9 A during 100 streams: every delivered event is kept and B fails every task within the orphan timeout', async () => {
      const streams = await Promise.all(
        range(0, 100).map(async () => {
          const stream = await a.agent.sendStreamingMessage(send('tick 10'));
          const delivered = await stream.take(3);
          return { taskId: taskIdOf(delivered[0]), delivered };
        }),
      );
      const killedAt = preciseNow();
      await within(a.process.kill9(), STEP_MS, 'A to exit after kill -9');
      const working = async (): Promise<number> =>
        (await b.agent.listTasks({ status: 'TASK_STATE_WORKING', pageSize: 100 })).tasks.length;
      await pollUntil(
        async () => ((await working()) === 0 ? true : undefined),
        'no task left WORKING on B',
        { timeoutMs: ORPHAN_TIMEOUT_MS + 5_000, intervalMs: 50 },
      );
      expect(preciseNow() - killedAt).toBeLessThan(ORPHAN_TIMEOUT_MS + 5_000);
      await Promise.all(
        streams.map(async ({ taskId, delivered }) => {
          const log = await (
            await b.agent.subscribeToTask({ id: taskId }, { lastEventId: 0 })
          ).rest();
          expectResumedAfter(0, log);
          // What A's clients received is in the log, byte for byte; the log ends FAILED.
          expect(log.slice(0, delivered.length).map((e) => e.json)).toEqual(
            delivered.map((e) => e.json),
          );
          expect(stateOf(log.at(-1))).toBe('TASK_STATE_FAILED');
          const stored = await b.agent.getTask({ id: taskId });
          expect(artifactTexts(stored)).toEqual([chunkTexts(log)]);
        }),
      );
    });

    it('keeps running on B a task B resumed after A, which created it, died', async () => {
      const asked = await a.agent.sendTask(send('ask'));
      const resumed = await b.agent.sendStreamingMessage(send('hold', { taskId: asked.id }));
      expect(stateOf((await resumed.take(1))[0])).toBe('TASK_STATE_WORKING');
      await b.process.line(new RegExp(`^resumed ${asked.id} hold$`));
      // A control task running on A: when B fails it, B has swept A's expired leases.
      const control = await a.agent.sendStreamingMessage(send('hold'));
      const controlId = taskIdOf((await control.take(2))[0]);
      const controlOnB = await b.agent.subscribeToTask({ id: controlId });

      await within(a.process.kill9(), STEP_MS, 'A to exit after kill -9');
      const controlEnd = await within(
        controlOnB.rest(),
        ORPHAN_TIMEOUT_MS + 3_000,
        'control FAILED',
      );
      expect(stateOf(controlEnd.at(-1))).toBe('TASK_STATE_FAILED');
      // No event says "the sweeper left this task alone": watch it over two more sweeps.
      const until = Date.now() + 2 * SWEEP_MS + 100;
      while (Date.now() < until) {
        const task = await b.agent.getTask({ id: asked.id });
        expect(task.status.state, textOf(task.status.message)).toBe('TASK_STATE_WORKING');
        await sleep(50);
      }
      expect(b.process.lines).not.toContain(`aborted ${asked.id}`);

      await b.agent.cancelTask({ id: asked.id });
      await b.process.line(new RegExp(`^aborted ${asked.id}$`), CROSS_REPLICA_MS);
      expect(stateOf((await resumed.rest()).at(-1))).toBe('TASK_STATE_CANCELED');
    });

    it('accepts exactly one of 10 concurrent messages to an INPUT_REQUIRED task, 5 through A and 5 through B', async () => {
      const asked = await a.agent.sendTask(send('ask'));
      const replies = await Promise.all(
        range(0, 10).map((i) =>
          (i % 2 === 0 ? a : b).agent.call('SendMessage', send(`reply-${i}`, { taskId: asked.id })),
        ),
      );
      const accepted = replies.filter((reply) => reply.error === undefined);
      expect(accepted).toHaveLength(1);
      expect(
        replies.filter((reply) => reply.error instanceof UnsupportedOperationError),
      ).toHaveLength(9);
      const resumedLines = [...a.process.lines, ...b.process.lines].filter((line) =>
        line.startsWith(`resumed ${asked.id} `),
      );
      expect(resumedLines).toHaveLength(1);
      const winner = resumedLines[0]?.split(' ')[2] ?? '';

      const stored = await b.agent.getTask({ id: asked.id });
      expect(stored).toEqual(accepted[0]?.result?.task);
      expect(historyOf(stored)).toEqual([
        'user: ask',
        'agent: A asks: what next?',
        `user: ${winner}`,
      ]);
      expect(artifactTexts(stored)).toHaveLength(1);
      expect(artifactTexts(stored)[0]?.[0]).toMatch(new RegExp(`^${winner} answered by [AB]$`));
    });

    it("under load on both replicas, every stream delivers its task's log exactly, and every cancel through the other replica ends the held task's stream", async () => {
      const streamsPerReplica = 8;
      const heldPerReplica = 4;
      // Streaming tasks on both replicas, each followed live from the other one.
      const started = await Promise.all(
        range(0, 2 * streamsPerReplica).map(async (i) => {
          const [origin, other] = i % 2 === 0 ? [a, b] : [b, a];
          const own = await origin.agent.sendStreamingMessage(send('tick 2 40'));
          const head = await own.take(2);
          const taskId = taskIdOf(head[0]);
          // After the events A's stream has: live while the task runs, replayed if it ended.
          const followed = await other.agent.subscribeToTask(
            { id: taskId },
            { lastEventId: head.length },
          );
          return { origin, other, taskId, own, head, followed };
        }),
      );
      // Held tasks, each canceled through the other replica while the streams above run.
      const held = await Promise.all(
        range(0, 2 * heldPerReplica).map(async (i) => {
          const [origin, other] = i % 2 === 0 ? [a, b] : [b, a];
          const own = await origin.agent.sendStreamingMessage(send('hold'));
          const taskId = taskIdOf((await own.take(2))[0]);
          return { origin, other, taskId, own };
        }),
      );
      await Promise.all(
        held.map(async ({ other, taskId }) => {
          expect((await other.agent.cancelTask({ id: taskId })).status.state).toBe(
            'TASK_STATE_CANCELED',
          );
        }),
      );
      await Promise.all(
        held.map(async ({ own, origin, taskId }) => {
          expect(stateOf((await own.rest()).at(-1))).toBe('TASK_STATE_CANCELED');
          await origin.process.line(new RegExp(`^aborted ${escape(taskId)}$`), CROSS_REPLICA_MS);
        }),
      );
      await Promise.all(
        started.map(async ({ origin, other, taskId, own, head, followed }) => {
          const [restOwn, fromOther] = await Promise.all([own.rest(), followed.rest()]);
          const all = [...head, ...restOwn];
          expect(stateOf(all.at(-1))).toBe('TASK_STATE_COMPLETED');
          const log = await (
            await origin.agent.subscribeToTask({ id: taskId }, { lastEventId: 0 })
          ).rest();
          expectResumedAfter(0, log);
          // The replica that ran it streamed the whole log, byte for byte.
          expect(all.map((event) => event.json)).toEqual(log.map((event) => event.json));
          // The other replica: every event after those, once, in order.
          expectResumedAfter(head.length, fromOther);
          expect(fromOther.map((event) => event.json)).toEqual(
            log.slice(head.length).map((event) => event.json),
          );
          expect(artifactTexts(await other.agent.getTask({ id: taskId }))).toEqual([
            chunkTexts(log),
          ]);
        }),
      );
    });

    it('measures the cross-replica event latency: A appends, a subscriber on B receives', async () => {
      const chunks = 200;
      const onA = await a.agent.sendStreamingMessage(send(`tick 10 ${chunks}`));
      const taskId = taskIdOf((await onA.take(2))[0]);
      const [onB, localOnA] = await Promise.all([
        b.agent.subscribeToTask({ id: taskId }),
        a.agent.subscribeToTask({ id: taskId }),
      ]);
      const [, eventsB, eventsLocal] = await Promise.all([onA.rest(), onB.rest(), localOnA.rest()]);
      // When each append had returned to the agent on A (stored and published), as A printed it.
      const stored = new Map<number, number>();
      for (const line of a.process.lines) {
        const match = new RegExp(`^appended ${taskId} (\\d+) ([\\d.]+)$`).exec(line);
        if (match !== null) stored.set(Number(match[1]), Number(match[2]));
      }
      const chunkEvents = (events: readonly StreamEvent[]): StreamEvent[] =>
        events.filter((event) => event.response.artifactUpdate !== undefined).slice(10); // warm-up
      const sinceAppend = (events: readonly StreamEvent[]): number[] =>
        chunkEvents(events).map((event) => event.receivedAt - producedAt(event));
      const sinceStored = (events: readonly StreamEvent[]): number[] =>
        chunkEvents(events).map(
          (event) => event.receivedAt - (stored.get(chunkOf(event).index) ?? NaN),
        );
      expect(stateOf(eventsB.at(-1))).toBe('TASK_STATE_COMPLETED');
      expect(chunkTexts(eventsB).length).toBeGreaterThan(chunks / 2);
      const summary = (values: number[]): string =>
        `p50 ${percentile(values, 50).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, ` +
        `max ${Math.max(...values).toFixed(2)} ms over ${values.length} events`;
      console.info(
        [
          `[latency] append call on A -> subscriber on B: ${summary(sinceAppend(eventsB))}`,
          `[latency] append returned on A -> subscriber on B: ${summary(sinceStored(eventsB))}`,
          `[latency] append call on A -> subscriber on A: ${summary(sinceAppend(eventsLocal))}`,
          `[latency] append returned on A -> subscriber on A: ${summary(sinceStored(eventsLocal))}`,
        ].join('\n'),
      );
    });
  },
  { stores: ['postgres'] },
);
