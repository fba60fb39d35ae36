/**
 * What only the PostgreSQL store has: migrations, several instances ("replicas") on one schema,
 * NOTIFY fan-out and its reconnection, database-clock leases, byte-exact log text. Every suite
 * works in a schema of its own, dropped afterwards, so parallel files and reruns never collide.
 */

import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { StreamResponse, Task } from '../../src/protocol/generated/types.js';
import { ConfigurationError } from '../../src/protocol/local-errors.js';
import {
  PostgresTaskStore,
  type PostgresTaskStoreOptions,
} from '../../src/stores/postgres/postgres-task-store.js';
import { SCHEMA_VERSION } from '../../src/stores/postgres/postgres-schema.js';
import type { CreateTaskRequest, TaskLogEntry, TaskScope } from '../../src/stores/task-store.js';

const url = process.env.TANDEM_TEST_POSTGRES_URL;
if (url === undefined || url === '') {
  console.warn(
    'Skipping the PostgreSQL store tests: set TANDEM_TEST_POSTGRES_URL ' +
      '(e.g. postgres://postgres@127.0.0.1:5432/test) to run them.',
  );
}

const scope: TaskScope = { agent: 'agent', tenant: 'tenant', owner: 'alice' };

function entry(seq: number, payload: StreamResponse): TaskLogEntry {
  return { seq, payload, json: JSON.stringify(payload) };
}

function createRequest(id: string, time = Date.now()): CreateTaskRequest {
  const task: Task = {
    id,
    contextId: 'ctx',
    status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date(time).toISOString() },
    history: [{ messageId: `${id}-m`, role: 'ROLE_USER', parts: [{ text: 'hi' }] }],
  };
  return { scope, task, events: [entry(1, { task })] };
}

function statusAppend(taskId: string, expectedSeq: number, state: Task['status']['state']) {
  const status = { state, timestamp: new Date().toISOString() };
  return {
    taskId,
    expectedSeq,
    events: [entry(expectedSeq + 1, { statusUpdate: { taskId, contextId: 'ctx', status } })],
    mutations: [{ kind: 'status' as const, status }],
  };
}

/** Records a store's change notifications; `waitFor` resolves once a given one has arrived. */
async function recordChanges(store: PostgresTaskStore) {
  const seen: string[] = [];
  const waiters = new Map<string, () => void>();
  let resyncs = 0;
  const stop = await store.changeFeed.listen({
    onChange: (taskId, seq) => {
      const key = `${taskId}:${seq}`;
      seen.push(key);
      waiters.get(key)?.();
    },
    onResync: () => {
      resyncs++;
    },
  });
  return {
    seen,
    stop,
    /** How many times the store said announcements may have been lost. */
    resyncs: () => resyncs,
    waitFor(taskId: string, seq: number): Promise<void> {
      const key = `${taskId}:${seq}`;
      if (seen.includes(key)) return Promise.resolve();
      return new Promise((resolve) => waiters.set(key, resolve));
    },
  };
}

describe.skipIf(url === undefined || url === '')('PostgresTaskStore specifics', () => {
  const connectionString = url ?? '';
  let admin: Pool;
  const schemas: string[] = [];
  const stores: PostgresTaskStore[] = [];

  function freshSchema(): string {
    const schema = `tandem_test_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    return schema;
  }

  async function open(
    schema: string,
    options: Partial<PostgresTaskStoreOptions> = {},
  ): Promise<PostgresTaskStore> {
    const store = await PostgresTaskStore.open({ connectionString, schema, ...options });
    stores.push(store);
    return store;
  }

  beforeAll(() => {
    admin = new Pool({ connectionString, max: 2 });
  });

  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });

  describe('migrations', () => {
    it('migrate exactly once when five replicas open a fresh schema together', async () => {
      const schema = freshSchema();
      const opened = await Promise.all([1, 2, 3, 4, 5].map(() => open(schema)));
      expect(opened).toHaveLength(5);
      const applied = await admin.query<{ version: number }>(
        `SELECT version FROM ${schema}.tandem_migrations ORDER BY version`,
      );
      expect(applied.rows.map((row) => row.version)).toEqual(
        Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1),
      );
    });

    it('are idempotent: reopening keeps the data and applies nothing', async () => {
      const schema = freshSchema();
      const first = await open(schema);
      await first.createTask(createRequest('kept'));
      await first.close();
      const again = await open(schema);
      expect((await again.getTask(scope, 'kept'))?.seq).toBe(1);
      const applied = await admin.query(`SELECT version FROM ${schema}.tandem_migrations`);
      expect(applied.rowCount).toBe(SCHEMA_VERSION);
    });

    it('refuse a schema migrated by a newer Tandem with a ConfigurationError', async () => {
      const schema = freshSchema();
      await (await open(schema)).close();
      const newer = SCHEMA_VERSION + 2;
      await admin.query(`INSERT INTO ${schema}.tandem_migrations (version) VALUES ($1)`, [newer]);
      const opening = PostgresTaskStore.open({ connectionString, schema });
      await expect(opening).rejects.toBeInstanceOf(ConfigurationError);
      await expect(opening).rejects.toThrow(
        `PostgreSQL schema "${schema}" has schema version ${newer} but this Tandem supports up to ${SCHEMA_VERSION}; upgrade Tandem or use another schema`,
      );
    });

    it('refuse an invalid schema name before connecting', async () => {
      await expect(
        PostgresTaskStore.open({ connectionString, schema: 'Robert"; DROP' }),
      ).rejects.toBeInstanceOf(ConfigurationError);
    });
  });

  describe('two replicas on one schema', () => {
    let a: PostgresTaskStore;
    let b: PostgresTaskStore;

    beforeAll(async () => {
      const schema = freshSchema();
      a = await open(schema);
      b = await open(schema);
    });

    it('share tasks: created on A, read, listed and appended on B', async () => {
      await a.createTask(createRequest('shared'));
      expect((await b.getTask(scope, 'shared'))?.task.history).toHaveLength(1);
      const page = await b.listTasks(scope, { pageSize: 10 });
      expect(page.tasks.map((task) => task.id)).toContain('shared');
      expect(await b.append(statusAppend('shared', 1, 'TASK_STATE_WORKING'))).toEqual({
        ok: true,
        seq: 2,
      });
      expect((await a.getTask(scope, 'shared'))?.state).toBe('TASK_STATE_WORKING');
    });

    it('refuse a stale append from A after B appended', async () => {
      await a.createTask(createRequest('race'));
      expect((await b.append(statusAppend('race', 1, 'TASK_STATE_WORKING'))).ok).toBe(true);
      expect(await a.append(statusAppend('race', 1, 'TASK_STATE_CANCELED'))).toEqual({
        ok: false,
        currentSeq: 2,
      });
      expect((await a.getTask(scope, 'race'))?.state).toBe('TASK_STATE_WORKING');
      expect(await a.readEvents('race', 0, 10)).toHaveLength(2);
    });

    it('let exactly one of many concurrent appends on the same seq win', async () => {
      await a.createTask(createRequest('contended'));
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).append(statusAppend('contended', 1, 'TASK_STATE_WORKING')),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(results.filter((result) => !result.ok)).toEqual(
        Array.from({ length: 9 }, () => ({ ok: false, currentSeq: 2 })),
      );
    });

    it("deliver A's commits to B's listener as taskId:seq, readable once heard", async () => {
      const changes = await recordChanges(b);
      await a.createTask(createRequest('notified:with:colons'));
      await changes.waitFor('notified:with:colons', 1);
      expect(await a.append(statusAppend('notified:with:colons', 1, 'TASK_STATE_WORKING'))).toEqual(
        { ok: true, seq: 2 },
      );
      await changes.waitFor('notified:with:colons', 2);
      const events = await b.readEvents('notified:with:colons', 1, 10);
      expect(events?.map((event) => event.seq)).toEqual([2]);
      await changes.stop();
    });

    it('send no notification for a refused append or one without events', async () => {
      const changes = await recordChanges(b);
      await a.createTask(createRequest('quiet'));
      expect((await a.append(statusAppend('quiet', 5, 'TASK_STATE_WORKING'))).ok).toBe(false);
      const note = { messageId: 'note', role: 'ROLE_AGENT' as const, parts: [{ text: 'n' }] };
      const projectionOnly = await a.append({
        taskId: 'quiet',
        expectedSeq: 1,
        events: [],
        mutations: [{ kind: 'history', message: note }],
      });
      expect(projectionOnly).toEqual({ ok: true, seq: 1 });
      await a.createTask(createRequest('marker'));
      await changes.waitFor('marker', 1);
      expect(changes.seen.filter((key) => key.startsWith('quiet:'))).toEqual(['quiet:1']);
      await changes.stop();
    });
  });

  describe('storage', () => {
    let schema: string;
    let store: PostgresTaskStore;

    beforeAll(async () => {
      schema = freshSchema();
      store = await open(schema);
    });

    /** Row versions (xmin) of a task's stored parts and history: unchanged rows keep theirs. */
    async function rowVersions(taskId: string): Promise<string[]> {
      const result = await admin.query<{ v: string }>(
        `SELECT p.xmin::text AS v FROM ${schema}.task_artifact_parts p
           JOIN ${schema}.tasks t ON t.key = p.task_key WHERE t.id = $1
         UNION ALL SELECT h.xmin::text FROM ${schema}.task_history h
           JOIN ${schema}.tasks t ON t.key = h.task_key WHERE t.id = $1`,
        [taskId],
      );
      return result.rows.map((row) => row.v).sort();
    }

    it('appends an artifact chunk without rewriting earlier parts or history', async () => {
      await store.createTask(createRequest('stream'));
      let seq = 1;
      const chunk = async (text: string): Promise<void> => {
        const artifact = { artifactId: 'out', parts: [{ text }] };
        const append = seq > 1;
        const payload = {
          artifactUpdate: { taskId: 'stream', contextId: 'ctx', artifact, append },
        };
        const result = await store.append({
          taskId: 'stream',
          expectedSeq: seq,
          events: [entry(seq + 1, payload)],
          mutations: [{ kind: 'artifact', artifact, append }],
        });
        if (!result.ok) throw new Error('refused');
        seq = result.seq;
      };
      for (let i = 0; i < 20; i++) await chunk(`t${i}`);
      const before = await rowVersions('stream');
      await chunk('last');
      const after = await rowVersions('stream');
      expect(after).toHaveLength(before.length + 1);
      expect(after).toEqual(expect.arrayContaining(before));
      const stored = await store.getTask(scope, 'stream');
      expect(stored?.task.artifacts?.[0]?.parts.map((part) => part.text).slice(-2)).toEqual([
        't19',
        'last',
      ]);
    });

    it('stores JSON as text, so an artifact name with \\u0000 round-trips', async () => {
      await store.createTask(createRequest('nul'));
      const artifact = { artifactId: 'a', name: 'x\u0000y', parts: [{ text: 'p' }] };
      const renamed = { artifactId: 'a', name: 'z\u0000', parts: [{ text: 'q' }] };
      const payload = { artifactUpdate: { taskId: 'nul', contextId: 'ctx', artifact } };
      const result = await store.append({
        taskId: 'nul',
        expectedSeq: 1,
        events: [entry(2, payload)],
        mutations: [
          { kind: 'artifact', artifact, append: false },
          { kind: 'artifact', artifact: renamed, append: true },
        ],
      });
      expect(result.ok).toBe(true);
      expect((await store.getTask(scope, 'nul'))?.task.artifacts).toEqual([
        { artifactId: 'a', name: 'z\u0000', parts: [{ text: 'p' }, { text: 'q' }] },
      ]);
    });
  });

  describe('change listener', () => {
    let schema: string;
    let writer: PostgresTaskStore;

    /** Backends LISTENing on the schema's channel. */
    async function listenerPids(): Promise<number[]> {
      const result = await admin.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1`,
        [`LISTEN "${schema}_task_changes"`],
      );
      return result.rows.map((row) => row.pid);
    }

    beforeAll(async () => {
      schema = freshSchema();
      writer = await open(schema);
    });

    it('shares one connection between listeners and closes it with the last', async () => {
      const store = await open(schema);
      const first = await recordChanges(store);
      const second = await recordChanges(store);
      expect(await listenerPids()).toHaveLength(1);
      await writer.createTask(createRequest('both-hear'));
      await Promise.all([first.waitFor('both-hear', 1), second.waitFor('both-hear', 1)]);
      await first.stop();
      expect(await listenerPids()).toHaveLength(1);
      await second.stop();
      await vi.waitFor(async () => expect(await listenerPids()).toEqual([]));
    });

    it('reconnects after its connection is terminated and hears later commits', async () => {
      const errors: Error[] = [];
      const store = await open(schema, {
        onError: (error) => errors.push(error),
        reconnectMinMs: 10,
      });
      const changes = await recordChanges(store);
      const [pid] = await listenerPids();
      expect(pid).toBeDefined();
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      await vi.waitFor(
        async () => {
          const pids = await listenerPids();
          expect(pids).toHaveLength(1);
          expect(pids).not.toContain(pid);
        },
        { timeout: 10_000, interval: 20 },
      );
      // Announcements made while it was down are lost: listeners are told to re-read.
      await vi.waitFor(() => expect(changes.resyncs()).toBe(1));
      await writer.createTask(createRequest('after-reconnect'));
      await changes.waitFor('after-reconnect', 1);
      expect(errors.map((error) => error.message).join('\n')).toMatch(/terminat/);
      await changes.stop();
    });
  });

  describe('leases and purge', () => {
    let schema: string;
    let store: PostgresTaskStore;
    let other: PostgresTaskStore;

    beforeAll(async () => {
      schema = freshSchema();
      store = await open(schema);
      other = await open(schema);
    });

    it('hands an expired lease to another holder, never a live one', async () => {
      await store.createTask({
        ...createRequest('leased'),
        leaseHolder: 'replica-a',
        leaseMs: 300,
      });
      expect(await other.leases.acquire('leased', 'replica-b', 300)).toBe(false);
      expect(await store.leases.acquire('leased', 'replica-a', 300)).toBe(true);
      await vi.waitFor(
        async () => expect(await other.leases.acquire('leased', 'replica-b', 60_000)).toBe(true),
        { timeout: 5_000, interval: 50 },
      );
      expect(await store.leases.acquire('leased', 'replica-a', 300)).toBe(false);
      await store.leases.renew('replica-b', 60_000);
      await store.leases.release('leased', 'replica-a');
      expect(await store.leases.acquire('leased', 'replica-a', 300)).toBe(false);
      await other.leases.release('leased', 'replica-b');
      expect(await store.leases.acquire('leased', 'replica-a', 300)).toBe(true);
    });

    it('purges old terminal tasks in bounded batches, with their rows', async () => {
      const old = Date.parse('2020-01-01T00:00:00.000Z');
      for (const id of ['old-1', 'old-2', 'old-3', 'old-running']) {
        await store.createTask(createRequest(id, old));
      }
      for (const id of ['old-1', 'old-2', 'old-3']) {
        const status = {
          state: 'TASK_STATE_COMPLETED' as const,
          timestamp: new Date(old).toISOString(),
        };
        const artifact = { artifactId: 'r', parts: [{ text: 'x' }] };
        const result = await store.append({
          taskId: id,
          expectedSeq: 1,
          events: [entry(2, { statusUpdate: { taskId: id, contextId: 'ctx', status } })],
          mutations: [
            { kind: 'artifact', artifact, append: false },
            { kind: 'status', status },
          ],
        });
        expect(result.ok).toBe(true);
      }
      const before = old + 1;
      expect(await other.retention.purgeTerminalTasks(before, 2)).toBe(2);
      expect(await other.retention.purgeTerminalTasks(before, 2)).toBe(1);
      expect(await other.retention.purgeTerminalTasks(before, 2)).toBe(0);
      expect(await store.getTask(scope, 'old-running')).toBeDefined();
      expect(await store.readEvents('old-1', 0, 10)).toBeUndefined();
      const leftovers = await admin.query<{ n: string }>(
        // Child rows have no foreign key: the purge deletes them itself, leaving none behind.
        `SELECT sum(n) AS n FROM (
           SELECT count(*) AS n FROM ${schema}.task_events WHERE task_key NOT IN (SELECT key FROM ${schema}.tasks)
           UNION ALL SELECT count(*) FROM ${schema}.task_history WHERE task_key NOT IN (SELECT key FROM ${schema}.tasks)
           UNION ALL SELECT count(*) FROM ${schema}.task_artifacts WHERE task_key NOT IN (SELECT key FROM ${schema}.tasks)
           UNION ALL SELECT count(*) FROM ${schema}.task_artifact_parts WHERE task_key NOT IN (SELECT key FROM ${schema}.tasks)
         ) c`,
      );
      expect(leftovers.rows[0]?.n).toBe('0');
    });
  });

  describe('event log text', () => {
    it('comes back byte-identical: key order, unicode, escapes', async () => {
      const store = await open(freshSchema());
      await store.createTask(createRequest('bytes'));
      const payload = {
        statusUpdate: {
          taskId: 'bytes',
          status: { timestamp: new Date().toISOString(), state: 'TASK_STATE_WORKING' as const },
          contextId: 'ctx',
          metadata: { z: 1, a: 'é 🙂 \u2028 \u0000 "q" \\', '': null, 10: [1.5e-7, -0] },
        },
      };
      const event = entry(2, payload);
      expect(
        (await store.append({ taskId: 'bytes', expectedSeq: 1, events: [event], mutations: [] }))
          .ok,
      ).toBe(true);
      const [stored] = (await store.readEvents('bytes', 1, 10)) ?? [];
      expect(stored?.json).toBe(event.json);
      expect(stored?.payload).toEqual(JSON.parse(event.json));
    });
  });
});
