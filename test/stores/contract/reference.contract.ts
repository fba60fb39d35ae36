/**
 * Contract: the store answers exactly as the in-memory reference does. A seeded random sequence
 * of writes is applied to both; every read — tasks under several views, logs, list pages — must
 * be deep-equal.
 */

import { describe, expect, it } from 'vitest';
import type { Artifact, Part, TaskState } from '../../../src/protocol/generated/types.js';
import { MemoryTaskStore } from '../../../src/stores/memory/memory-task-store.js';
import type {
  TaskListQuery,
  TaskMutation,
  TaskViewOptions,
} from '../../../src/stores/task-store.js';
import {
  entriesOf,
  T0,
  comparable,
  createRequest,
  createTask,
  isoAt,
  logEntry,
  message,
  newTask,
  scope,
  useStore,
  type OpenStore,
  type TaskWriter,
} from './builders.js';

/** A small deterministic generator (mulberry32), so that a failure replays identically. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATES: readonly TaskState[] = [
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_SUBMITTED',
];

const VIEWS: readonly TaskViewOptions[] = [
  {},
  { historyLength: 0 },
  { historyLength: 1 },
  { historyLength: 3 },
  { includeArtifacts: false },
  { historyLength: 2, includeArtifacts: false },
];

export function describeReference(open: OpenStore): void {
  describe('parity with the in-memory reference', () => {
    const store = useStore(open);

    it('answers every read as the memory store does after the same writes', async () => {
      const reference = new MemoryTaskStore();
      const next = random(20250601);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const pairs: [TaskWriter, TaskWriter][] = [];
      for (let i = 0; i < 12; i++) {
        const spec = { contextId: `ctx-${i % 3}`, time: T0 + i, metadata: { i, tag: `t${i}` } };
        pairs.push([
          await createTask(store(), `task-${i}`, spec),
          await createTask(reference, `task-${i}`, spec),
        ]);
      }
      let clock = T0 + 1000;
      for (let step = 0; step < 600; step++) {
        const [actual, expected] = pick(pairs);
        const roll = next();
        // Everything random is drawn once, then the same write goes to both stores.
        let write: (w: TaskWriter) => ReturnType<TaskWriter['write']>;
        if (roll < 0.2) {
          const state = pick(STATES);
          const time = (clock += Math.floor(next() * 3));
          write = (w) => w.setStatus(state, time, message(`s${step}`, 's', 'ROLE_AGENT'));
        } else if (roll < 0.4) {
          write = (w) => w.addMessage(message(`m${step}`, `m${step}`, 'ROLE_AGENT'));
        } else {
          const artifact = randomArtifact(next, step);
          const append = next() < 0.7;
          write = (w) => w.artifact(artifact, append);
        }
        expect(await write(actual)).toEqual(await write(expected));
      }
      for (const [actual] of pairs) {
        for (const view of VIEWS) {
          expect(comparable(await store().getTask(scope, actual.taskId, view))).toEqual(
            comparable(await reference.getTask(scope, actual.taskId, view)),
          );
        }
        expect(entriesOf(await store().readEvents(actual.taskId, 0, 10_000))).toEqual(
          entriesOf(await reference.readEvents(actual.taskId, 0, 10_000)),
        );
      }
      const queries: TaskListQuery[] = [
        { pageSize: 5 },
        { pageSize: 4, contextId: 'ctx-1', historyLength: 2 },
        { pageSize: 3, state: 'TASK_STATE_WORKING', includeArtifacts: false },
        { pageSize: 50, statusTimeFrom: T0 + 1200, historyLength: 0 },
      ];
      for (const query of queries) {
        let after: TaskListQuery['after'];
        do {
          const q = after === undefined ? query : { ...query, after };
          const page = await store().listTasks(scope, q);
          expect(page).toEqual(await reference.listTasks(scope, q));
          after = page.next;
        } while (after !== undefined);
      }
    });
  });
}

/**
 * The same comparison with the writes pipelined as the runtime sends them to a store that says
 * it pipelines: each task's writes called one after another without waiting, all tasks at once,
 * in rounds — so that a batching store folds consecutive writes of a task and commits many
 * tasks together — and the answers and reads compared with the reference's.
 */
export function describePipelinedReference(open: OpenStore): void {
  describe('parity with the in-memory reference, writes pipelined', () => {
    const store = useStore(open);

    it('answers every read as the memory store does after the same pipelined writes', async () => {
      if (!store().pipelinedAppends) return;
      const reference = new MemoryTaskStore();
      const next = random(20251203);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
      const tasks = Array.from({ length: 10 }, (_, i) => ({ id: `p-${i}`, seq: 1 }));
      const spec = (i: number) => ({ contextId: `ctx-${i % 2}`, time: T0 + i });
      // Created without waiting either: a creation and its first appends can share a commit.
      let clock = T0 + 1000;
      for (let round = 0; round < 6; round++) {
        const calls: { actual: Promise<unknown>; expected: Promise<unknown> }[] = [];
        for (const [i, task] of tasks.entries()) {
          if (round === 0) {
            const request = createRequest(newTask(task.id, spec(i)));
            calls.push({
              actual: store().createTask(request),
              expected: reference.createTask(request),
            });
          }
          for (let k = 0; k < 1 + Math.floor(next() * 5); k++) {
            const roll = next();
            const step = `${round}.${i}.${k}`;
            const seq = task.seq;
            const payload =
              roll < 0.2
                ? { message: message(`m${step}`, step, 'ROLE_AGENT') }
                : {
                    artifactUpdate: {
                      taskId: task.id,
                      contextId: `ctx-${i % 2}`,
                      artifact: randomArtifact(next, round * 100 + k),
                      append: next() < 0.7,
                    },
                  };
            const update = payload.artifactUpdate;
            const mutations: TaskMutation[] =
              update === undefined
                ? [{ kind: 'history', message: payload.message }]
                : [{ kind: 'artifact', artifact: update.artifact, append: update.append }];
            if (roll > 0.95) {
              const status = { state: pick(STATES), timestamp: isoAt((clock += 1)) };
              mutations.push({ kind: 'status', status });
            }
            const request = {
              taskId: task.id,
              expectedSeq: seq,
              events: [logEntry(seq + 1, payload)],
              mutations,
            };
            task.seq++;
            calls.push({ actual: store().append(request), expected: reference.append(request) });
          }
        }
        for (const call of calls) expect(await call.actual).toEqual(await call.expected);
      }
      for (const task of tasks) {
        for (const view of VIEWS) {
          expect(comparable(await store().getTask(scope, task.id, view))).toEqual(
            comparable(await reference.getTask(scope, task.id, view)),
          );
        }
        expect(entriesOf(await store().readEvents(task.id, 0, 10_000))).toEqual(
          entriesOf(await reference.readEvents(task.id, 0, 10_000)),
        );
      }
    });
  });
}

function randomArtifact(next: () => number, step: number): Artifact {
  const parts: Part[] = [];
  const count = 1 + Math.floor(next() * 3);
  for (let i = 0; i < count; i++) {
    parts.push(next() < 0.8 ? { text: `p${step}.${i}` } : { data: { step, i, ok: next() < 0.5 } });
  }
  const artifact: Artifact = { artifactId: `a${Math.floor(next() * 3)}`, parts };
  if (next() < 0.2) artifact.name = `name ${step}`;
  if (next() < 0.1) artifact.description = `description ${step}`;
  if (next() < 0.1) artifact.metadata = { step };
  if (next() < 0.05) artifact.extensions = [`https://example.com/ext/${step}`];
  return artifact;
}
