/**
 * The trace context a task was created in, kept by every store (memory, SQLite, PostgreSQL): it
 * comes back from `getTask` and with the task's push configs (whose deliveries are its children),
 * never inside the task a caller sees; a task created untraced has none; and a SQLite file of
 * the schema before (version 5) migrates, its tasks without one.
 */

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/index.js';
import { SqliteTaskStore } from '../../src/stores-sqlite.js';
import { SQLITE_MIGRATIONS } from '../../src/stores/sqlite/sqlite-migrations.js';
import type { CreateTaskRequest, TaskStore } from '../../src/stores/task-store.js';
import {
  captureTaskTraceContext,
  decodeTaskTraceContext,
  encodeTaskTraceContext,
  spanContextOfTask,
} from '../../src/telemetry/task-trace-context.js';
import {
  isStoreAvailable,
  openStore,
  STORE_NAMES,
  tempDir,
  type OpenedStore,
} from '../support/stores.js';

const scope = { agent: 'trace', tenant: '', owner: 'alice' };
const ORIGIN = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'vendor=abc,other=1',
};

function creation(id: string, traceContext?: typeof ORIGIN): CreateTaskRequest {
  const task: Task = {
    id,
    contextId: `ctx-${id}`,
    status: { state: 'TASK_STATE_WORKING', timestamp: new Date().toISOString() },
  };
  return {
    scope,
    task,
    events: [{ seq: 1, payload: { task }, json: JSON.stringify({ task }) }],
    pushConfigs: [
      { taskId: id, id: 'hook', url: 'http://127.0.0.1:9/hook', createdAt: Date.now() },
    ],
    ...(traceContext === undefined ? {} : { traceContext }),
  };
}

describe.each(STORE_NAMES.filter(isStoreAvailable))('the %s store', (name) => {
  let opened: OpenedStore;
  let store: TaskStore;
  beforeAll(async () => {
    opened = await openStore(name);
    store = opened.store;
  });
  afterAll(() => opened.dispose());

  it('keeps the trace context of a task with it, apart from the task', async () => {
    await store.createTask(creation('traced', ORIGIN));
    const stored = await store.getTask(scope, 'traced');
    expect(stored?.traceContext).toEqual(ORIGIN);
    // Not a field of the task a caller sees, in any form.
    expect(JSON.stringify(stored?.task)).not.toContain('4bf92f3577b34da6a3ce929d0e0e4736');
    // Every view reads it: the runtime's reads ask for no history and no artifacts.
    const narrow = await store.getTask(scope, 'traced', {
      historyLength: 0,
      includeArtifacts: false,
    });
    expect(narrow?.traceContext).toEqual(ORIGIN);
    // Once the task moves on, and finishes, the context stays.
    const done = { state: 'TASK_STATE_COMPLETED' as const, timestamp: new Date().toISOString() };
    const payload = { statusUpdate: { taskId: 'traced', contextId: 'ctx-traced', status: done } };
    const appended = await store.append({
      taskId: 'traced',
      expectedSeq: 1,
      events: [{ seq: 2, payload, json: JSON.stringify(payload) }],
      mutations: [{ kind: 'status', status: done }],
    });
    expect(appended.ok).toBe(true);
    expect((await store.getTask(scope, 'traced'))?.traceContext).toEqual(ORIGIN);
  });

  it('hands it out with the task’s push configs, for their deliveries', async () => {
    const config = await store.push?.getConfig(scope, 'traced', 'hook');
    expect(config?.taskTraceContext).toEqual(ORIGIN);
  });

  it('keeps none for a task created untraced', async () => {
    await store.createTask(creation('untraced'));
    const stored = await store.getTask(scope, 'untraced');
    expect(stored).toBeDefined();
    expect(stored?.traceContext).toBeUndefined();
    const config = await store.push?.getConfig(scope, 'untraced', 'hook');
    expect(config).toBeDefined();
    expect(config?.taskTraceContext).toBeUndefined();
  });
});

describe('the trace context’s own form', () => {
  it('round-trips a traceparent, with and without tracestate, through the column text', () => {
    expect(decodeTaskTraceContext(encodeTaskTraceContext(ORIGIN))).toEqual(ORIGIN);
    const bare = { traceparent: ORIGIN.traceparent };
    expect(encodeTaskTraceContext(bare)).toBe(ORIGIN.traceparent);
    expect(decodeTaskTraceContext(encodeTaskTraceContext(bare))).toEqual(bare);
    expect(decodeTaskTraceContext(null)).toBeUndefined();
  });

  it('reads back as a remote span context, and refuses what is not a valid one', () => {
    const span = spanContextOfTask(ORIGIN);
    expect(span).toMatchObject({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
    });
    expect(span?.traceState?.get('vendor')).toBe('abc');
    expect(
      spanContextOfTask({ traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' }),
    ).toBeUndefined();
    expect(spanContextOfTask({ traceparent: 'garbage' })).toBeUndefined();
  });

  it('is nothing when no span is active', () => {
    expect(captureTaskTraceContext()).toBeUndefined();
  });
});

describe('a SQLite file of schema version 5', () => {
  it('migrates to version 6, its tasks without a trace context', async () => {
    const dir = await tempDir();
    const path = join(dir.path, 'v5.db');
    try {
      const db = new Database(path);
      for (const migration of SQLITE_MIGRATIONS.filter((m) => m.version <= 5))
        db.exec(migration.sql);
      db.pragma('user_version = 5');
      db.prepare(
        `INSERT INTO tasks (id, agent, tenant, owner, context_id, state, status_time, status,
           metadata, seq, history_count, artifact_count, lease_holder, lease_expires_at, created_at)
         VALUES ('old', 'trace', '', 'alice', 'ctx', 'TASK_STATE_COMPLETED', 1, ?, NULL, 0, 0, 0,
           NULL, 0, 1)`,
      ).run(JSON.stringify({ state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00Z' }));
      db.close();
      const store = SqliteTaskStore.open({ path });
      try {
        const stored = await store.getTask(scope, 'old');
        expect(stored?.state).toBe('TASK_STATE_COMPLETED');
        expect(stored?.traceContext).toBeUndefined();
        await store.createTask(creation('new', ORIGIN));
        expect((await store.getTask(scope, 'new'))?.traceContext).toEqual(ORIGIN);
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(6);
      check.close();
    } finally {
      await dir.remove();
    }
  });
});
