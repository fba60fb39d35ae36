/**
 * The PostgreSQL store against the contract every store passes, and against the reference: a
 * seeded random workload applied to it and to the memory store must give the same results, read
 * for read. Every test works in a schema of its own, dropped afterwards, so parallel files and
 * reruns never collide.
 */

import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Artifact,
  Message,
  Part,
  StreamResponse,
  Task,
  TaskState,
} from '../../src/protocol/generated/types.js';
import { MemoryTaskStore } from '../../src/stores/memory/memory-task-store.js';
import { PostgresTaskStore } from '../../src/stores/postgres/postgres-task-store.js';
import type {
  AppendRequest,
  TaskListQuery,
  TaskLogEntry,
  TaskMutation,
  TaskScope,
  TaskStore,
  TaskViewOptions,
} from '../../src/stores/task-store.js';
import { comparable, entriesOf } from './contract/builders.js';
import { describeTaskStoreContract } from './task-store-contract.js';

const url = process.env.TANDEM_TEST_POSTGRES_URL;
if (url === undefined || url === '') {
  console.warn(
    'Skipping the PostgreSQL store tests: set TANDEM_TEST_POSTGRES_URL ' +
      '(e.g. postgres://postgres@127.0.0.1:5432/test) to run them.',
  );
}

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function random(seed: number) {
  let a = seed;
  const next = (): number => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  return { next, int, pick };
}

const STATES: readonly TaskState[] = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
];
const SCOPES: readonly TaskScope[] = [
  { agent: 'a', tenant: '', owner: 'alice' },
  { agent: 'a', tenant: '', owner: 'bob' },
  { agent: 'a', tenant: 't2', owner: 'alice' },
];
const BASE_TIME = Date.parse('2025-01-01T00:00:00.000Z');

function entry(seq: number, payload: StreamResponse): TaskLogEntry {
  return { seq, payload, json: JSON.stringify(payload) };
}

function freshSchema(): string {
  return `tandem_test_${randomBytes(6).toString('hex')}`;
}

describe.skipIf(url === undefined || url === '')('PostgresTaskStore', () => {
  const connectionString = url ?? '';

  describeTaskStoreContract('postgres', async () => {
    const schema = freshSchema();
    const store = await PostgresTaskStore.open({ connectionString, schema, poolSize: 4 });
    return {
      store,
      close: async () => {
        await store.close();
        const admin = new Pool({ connectionString, max: 1 });
        try {
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await admin.end();
        }
      },
    };
  });

  const schema = freshSchema();
  let postgres: PostgresTaskStore;
  let admin: Pool;

  beforeAll(async () => {
    admin = new Pool({ connectionString, max: 1 });
    postgres = await PostgresTaskStore.open({ connectionString, schema });
  });

  afterAll(async () => {
    await postgres.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  it('agrees with the memory store on a random workload', async () => {
    const memory = new MemoryTaskStore();
    const stores: readonly TaskStore[] = [memory, postgres];
    const rng = random(20250101);
    const tasks: { id: string; scope: TaskScope; seq: number; contextId: string }[] = [];
    const time = (): string => new Date(BASE_TIME + rng.int(40) * 1000).toISOString();
    const text = (): string => rng.pick(['a', 'bé', '🙂', 'x"y\\z', '\u0000nul', '{"k":1}']);
    const message = (): Message => ({
      messageId: `m${rng.int(1e9)}`,
      role: rng.pick(['ROLE_USER', 'ROLE_AGENT'] as const),
      parts: [{ text: text() }],
    });
    const parts = (): Part[] =>
      Array.from({ length: 1 + rng.int(3) }, () =>
        rng.next() < 0.8 ? { text: text() } : { data: { n: rng.int(9) }, mediaType: 'x/y' },
      );
    const artifact = (): Artifact => {
      const out: Artifact = { artifactId: rng.pick(['r1', 'r2', 'r3']), parts: parts() };
      if (rng.next() < 0.3) out.name = text();
      if (rng.next() < 0.2) out.metadata = { v: rng.int(9) };
      return out;
    };
    const mutation = (): TaskMutation => {
      const roll = rng.next();
      if (roll < 0.3)
        return { kind: 'status', status: { state: rng.pick(STATES), timestamp: time() } };
      if (roll < 0.5) return { kind: 'history', message: message() };
      return { kind: 'artifact', artifact: artifact(), append: rng.next() < 0.6 };
    };

    for (let step = 0; step < 400; step++) {
      if (tasks.length < 5 || rng.next() < 0.1) {
        const id = `task-${tasks.length}`;
        const contextId = rng.pick(['c1', 'c2', 'c3']);
        const task: Task = {
          id,
          contextId,
          status: { state: 'TASK_STATE_SUBMITTED', timestamp: time() },
          history: [message()],
        };
        if (rng.next() < 0.2) task.metadata = { origin: text() };
        if (rng.next() < 0.2) task.artifacts = [artifact(), { ...artifact(), artifactId: 'r9' }];
        const scope = rng.pick(SCOPES);
        for (const store of stores) {
          await store.createTask({
            scope,
            task: structuredClone(task),
            events: [entry(1, { task })],
          });
        }
        tasks.push({ id, scope, seq: 1, contextId });
        continue;
      }
      const target = rng.pick(tasks);
      const stale = rng.next() < 0.1;
      const eventCount = rng.pick([0, 1, 1, 1, 2]);
      const expectedSeq = stale ? target.seq - 1 : target.seq;
      const request: AppendRequest = {
        taskId: target.id,
        expectedSeq,
        events: Array.from({ length: eventCount }, (_, i) =>
          entry(expectedSeq + i + 1, { message: message() }),
        ),
        mutations: Array.from({ length: rng.pick([0, 1, 1, 2, 3]) }, mutation),
      };
      const results = [];
      for (const store of stores) results.push(await store.append(structuredClone(request)));
      expect(results[1]).toEqual(results[0]);
      if (results[0]?.ok === true) target.seq = results[0].seq;
    }

    const views: TaskViewOptions[] = [
      {},
      { historyLength: 0 },
      { historyLength: 2, includeArtifacts: false },
      { historyLength: 1000 },
    ];
    for (const task of tasks) {
      for (const view of views) {
        const [expected, actual] = await Promise.all(
          stores.map((store) => store.getTask(task.scope, task.id, view)),
        );
        expect(comparable(actual)).toEqual(comparable(expected));
      }
      const [expected, actual] = await Promise.all(
        stores.map((store) => store.readEvents(task.id, 1, 3)),
      );
      expect(entriesOf(actual)).toEqual(entriesOf(expected));
      expect(
        await postgres.getTask(SCOPES[task.scope === SCOPES[0] ? 1 : 0] as TaskScope, task.id),
      ).toBeUndefined();
    }
    expect(await postgres.readEvents('missing', 0, 10)).toBeUndefined();

    const queries: Omit<TaskListQuery, 'pageSize'>[] = [
      {},
      { contextId: 'c2' },
      { state: 'TASK_STATE_WORKING', historyLength: 1 },
      { statusTimeFrom: BASE_TIME + 20_000, includeArtifacts: false },
    ];
    for (const scope of SCOPES) {
      for (const filter of queries) {
        for (const pageSize of [1, 3, 100]) {
          let after: TaskListQuery['after'];
          for (let page = 0; page < 50; page++) {
            const query: TaskListQuery = after
              ? { ...filter, pageSize, after }
              : { ...filter, pageSize };
            const [expected, actual] = await Promise.all(
              stores.map((store) => store.listTasks(scope, query)),
            );
            expect(actual).toEqual(expected);
            after = expected?.next;
            if (after === undefined) break;
          }
        }
      }
    }

    const cutoff = BASE_TIME + 30_000;
    const [expectedPurged, actualPurged] = await Promise.all(
      stores.map((store) => store.retention.purgeTerminalTasks(cutoff, 1000)),
    );
    expect(actualPurged).toBe(expectedPurged);
  });
});
