/**
 * What the contract cannot see for SQLite: the file. Persistence across reopen and across a
 * `kill -9` of the writing process, the schema version guard, WAL mode, the exclusive lock on the
 * file, and group commit.
 */

import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/protocol/generated/types.js';
import { ConfigurationError, UsageError } from '../../src/protocol/local-errors.js';
import { SQLITE_MIGRATIONS } from '../../src/stores/sqlite/sqlite-migrations.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqlite-task-store.js';
import type { TaskStore } from '../../src/stores/task-store.js';
import {
  T0,
  createRequest,
  createTask,
  logEntry,
  message,
  newTask,
  scope,
  textPart,
} from './contract/builders.js';
import { observeStore } from './observe-store.js';
import { forkTypeScript } from './fixtures/fork-typescript.js';

let directory: string;
let path: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tandem-sqlite-'));
  path = join(directory, 'tandem.db');
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

async function seed(store: TaskStore): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) {
    const writer = await createTask(store, `t${i}`, {
      time: T0 + i,
      metadata: { i },
      artifacts: [{ artifactId: 'initial', parts: [textPart('i')] }],
    });
    await writer.setStatus(
      'TASK_STATE_WORKING',
      T0 + 100 + i,
      message(`s${i}`, 'working', 'ROLE_AGENT'),
    );
    for (let k = 0; k < 5; k++) {
      await writer.artifact(
        { artifactId: 'stream', name: `n${k}`, parts: [textPart(`${k}`)] },
        k > 0,
      );
    }
    if (i % 2 === 0) await writer.setStatus('TASK_STATE_COMPLETED', T0 + 200 + i);
    ids.push(writer.taskId);
  }
  return ids;
}

describe('SqliteTaskStore file', () => {
  it('keeps everything across close and reopen', async () => {
    const first = SqliteTaskStore.open({ path });
    const ids = await seed(first);
    const before = await observeStore(first, ids);
    await first.close();
    const second = SqliteTaskStore.open({ path });
    expect(await observeStore(second, ids)).toEqual(before);
    const result = await second.append({ taskId: 't1', expectedSeq: 7, events: [], mutations: [] });
    expect(result).toEqual({ ok: true, seq: 7 });
    await second.close();
  });

  it('keeps every acknowledged write when the writing process is killed with SIGKILL', async () => {
    const script = fileURLToPath(new URL('./fixtures/sqlite-crash-writer.ts', import.meta.url));
    const child = forkTypeScript(script, [path], join(directory, 'scratch'), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let acknowledged = 0;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => {
      child.on('exit', (_code, signal) => resolve(signal));
    });
    child.on('message', (report: { seq: number }) => {
      acknowledged = report.seq;
      if (acknowledged >= 400) child.kill('SIGKILL');
    });
    expect(await exited, stderr).toBe('SIGKILL');
    expect(acknowledged).toBeGreaterThanOrEqual(400);

    const store = SqliteTaskStore.open({ path });
    const crashScope = { agent: 'crash', tenant: '', owner: 'tester' };
    const stored = await store.getTask(crashScope, 'crash');
    const events = (await store.readEvents('crash', 0, 100_000)) ?? [];
    const last = stored?.seq ?? 0;
    expect(last).toBeGreaterThanOrEqual(acknowledged);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    // The projection matches the log exactly: no write half applied.
    const messages = events.filter((e) => e.payload.message !== undefined);
    const chunks = events.filter((e) => e.payload.artifactUpdate !== undefined);
    expect(stored?.task.history?.map((m) => m.messageId)).toEqual(
      messages.map((e) => (e.payload.message as Message).messageId),
    );
    expect(stored?.task.artifacts?.[0]?.parts).toEqual(
      chunks.map((e) => textPart(`chunk ${e.seq}`)),
    );
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  });

  it('creates the schema in an empty file and records its version', async () => {
    writeFileSync(path, '');
    const store = SqliteTaskStore.open({ path });
    await createTask(store, 't1');
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = db
      .prepare<[], string>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name",
      )
      .pluck()
      .all();
    expect(tables).toEqual([
      'push_configs',
      'task_artifact_parts',
      'task_artifacts',
      'task_events',
      'task_history',
      'tasks',
    ]);
    db.close();
  });

  it('refuses a database written by a newer Tandem, saying what to do', async () => {
    const store = SqliteTaskStore.open({ path });
    await createTask(store, 't1');
    await store.close();
    const newer = SQLITE_MIGRATIONS.length + 1;
    const db = new Database(path);
    db.pragma(`user_version = ${newer}`);
    db.close();
    const opening = (): SqliteTaskStore => SqliteTaskStore.open({ path });
    expect(opening).toThrow(ConfigurationError);
    expect(opening).toThrow(
      `${path} has schema version ${newer} but this Tandem supports up to ${SQLITE_MIGRATIONS.length}; upgrade Tandem or use another database file`,
    );
    const check = new Database(path);
    expect(check.pragma('user_version', { simple: true })).toBe(newer);
    check.pragma(`user_version = ${SQLITE_MIGRATIONS.length}`);
    check.close();
    const reopened = SqliteTaskStore.open({ path });
    expect((await reopened.getTask(scope, 't1'))?.seq).toBe(1);
    await reopened.close();
  });

  it('refuses a file that is not a database', () => {
    writeFileSync(path, 'not a database, just text that is long enough to have a header........');
    expect(() => SqliteTaskStore.open({ path })).toThrow(`${path} is not a SQLite database`);
  });

  it('checkpoints the WAL after checkpointPages pages, and refuses a count that is not one', async () => {
    /** Size of the WAL after writing ~5 MiB of tasks (more than 1,000 pages) with the given option, then closing. */
    async function walBytesAfterWrites(checkpointPages?: number): Promise<number> {
      const file = join(directory, `wal-${checkpointPages ?? 'default'}.db`);
      const store = SqliteTaskStore.open({
        path: file,
        ...(checkpointPages && { checkpointPages }),
      });
      const text = 'x'.repeat(8 * 1024);
      for (let i = 0; i < 640; i++) {
        await store.createTask(
          createRequest(newTask(`t${i}`, { history: [message(`m${i}`, text)] })),
        );
      }
      const bytes = statSync(`${file}-wal`).size;
      await store.close();
      return bytes;
    }
    // SQLite reuses the WAL from its start after a checkpoint: the file stays near its size then.
    expect(await walBytesAfterWrites(16)).toBeLessThan(512 * 1024);
    expect(await walBytesAfterWrites()).toBeGreaterThan(5 * 1024 * 1024);
    for (const checkpointPages of [0, -1, 1.5, Number.NaN]) {
      expect(() => SqliteTaskStore.open({ path, checkpointPages })).toThrow(
        `checkpointPages must be a positive integer (WAL pages); got ${checkpointPages}`,
      );
    }
    expect(existsSync(path)).toBe(false);
  });

  it('keeps its file to itself: a second store is refused, saying why, until the first closes', async () => {
    const first = SqliteTaskStore.open({ path });
    await createTask(first, 't1');
    const second = (): SqliteTaskStore => SqliteTaskStore.open({ path, busyTimeoutMs: 50 });
    expect(second).toThrow(ConfigurationError);
    expect(second).toThrow(
      `${path} is in use by another process; a SQLite task store serves one process (use PostgreSQL to run several replicas)`,
    );
    await first.close();
    const reopened = second();
    expect((await reopened.getTask(scope, 't1'))?.seq).toBe(1);
    await reopened.close();
  });

  it('commits the writes of one turn together, each failing alone', async () => {
    const store = SqliteTaskStore.open({ path });
    await createTask(store, 'existing');
    const writes = [
      store.createTask(createRequest(newTask('a'))),
      store.createTask(createRequest(newTask('existing'))),
      store.append({
        taskId: 'a',
        expectedSeq: 1,
        events: [logEntry(2, { message: message('m', 'hello') })],
        mutations: [{ kind: 'history', message: message('m', 'hello') }],
      }),
      store.append({ taskId: 'a', expectedSeq: 1, events: [], mutations: [] }),
      store.append({
        taskId: 'a',
        expectedSeq: 2,
        events: [logEntry(4, { message: message('gap', 'gap') })],
        mutations: [{ kind: 'history', message: message('gap', 'gap') }],
      }),
    ];
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'rejected',
    ]);
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { ok: true, seq: 2 } });
    expect(outcomes[3]).toEqual({ status: 'fulfilled', value: { ok: false, currentSeq: 2 } });
    // The refused gap left nothing behind, and the writer still knows where the task is.
    const stored = await store.getTask(scope, 'a');
    expect(stored?.seq).toBe(2);
    expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['a-m0', 'm']);
    expect(
      await store.append({
        taskId: 'a',
        expectedSeq: 2,
        events: [logEntry(3, { message: message('next', 'next') })],
        mutations: [{ kind: 'history', message: message('next', 'next') }],
      }),
    ).toEqual({ ok: true, seq: 3 });
    await store.close();
    // All of it is in the file.
    const reopened = SqliteTaskStore.open({ path });
    expect((await reopened.getTask(scope, 'a'))?.task.history?.map((m) => m.messageId)).toEqual([
      'a-m0',
      'm',
      'next',
    ]);
    await reopened.close();
  });

  it('stores the same whether writes share a commit or not, a write failing midway included', async () => {
    const artifactUpdate = (taskId: string, artifactId: string, text: string, append: boolean) => {
      const artifact = { artifactId, parts: [textPart(text)] };
      return {
        payload: { artifactUpdate: { taskId, contextId: `ctx-${taskId}`, artifact, append } },
        mutations: [{ kind: 'artifact' as const, artifact, append }],
      };
    };
    const statusUpdate = (
      taskId: string,
      state: 'TASK_STATE_COMPLETED' | 'TASK_STATE_INPUT_REQUIRED',
    ) => {
      const next = {
        state,
        timestamp: new Date(T0 + 50).toISOString(),
      };
      return {
        payload: { statusUpdate: { taskId, contextId: `ctx-${taskId}`, status: next } },
        mutations: [{ kind: 'status' as const, status: next }],
      };
    };
    const append = (
      store: TaskStore,
      taskId: string,
      expectedSeq: number,
      change: ReturnType<typeof statusUpdate> | ReturnType<typeof artifactUpdate>,
      seq = expectedSeq + 1,
    ) =>
      store.append({
        taskId,
        expectedSeq,
        events: [logEntry(seq, change.payload)],
        mutations: change.mutations,
      });
    // A task created, streamed to and completed; a chunk that fails after writing its part (its
    // event has a gap); another task left running, then leased by a write that reads its row.
    const script: ((store: TaskStore) => Promise<unknown>)[] = [
      (store) => store.createTask(createRequest(newTask('short'))),
      (store) => append(store, 'short', 1, artifactUpdate('short', 'out', 'a', false)),
      (store) => append(store, 'short', 2, artifactUpdate('short', 'out', 'b', true)),
      (store) => append(store, 'short', 3, artifactUpdate('short', 'out', 'x', true), 9),
      (store) => append(store, 'short', 3, artifactUpdate('short', 'out', 'c', true)),
      (store) => append(store, 'short', 4, statusUpdate('short', 'TASK_STATE_COMPLETED')),
      (store) => store.createTask(createRequest(newTask('long'))),
      (store) => append(store, 'long', 1, artifactUpdate('long', 'out', 'a', false)),
      (store) => store.leases.acquire('long', 'me', 60_000),
      (store) => append(store, 'long', 2, artifactUpdate('long', 'out', 'b', true)),
      // A task from an earlier commit: its status changes after its artifact grew.
      (store) => append(store, 'older', 1, artifactUpdate('older', 'out', 'a', false)),
      (store) => append(store, 'older', 2, artifactUpdate('older', 'out', 'b', true)),
      (store) => append(store, 'older', 3, statusUpdate('older', 'TASK_STATE_INPUT_REQUIRED')),
    ];
    const together = SqliteTaskStore.open({ path });
    await together.createTask(createRequest(newTask('older')));
    const outcomes = await Promise.allSettled(script.map((write) => write(together)));
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const otherPath = join(directory, 'one-by-one.db');
    const oneByOne = SqliteTaskStore.open({ path: otherPath });
    await oneByOne.createTask(createRequest(newTask('older')));
    for (const write of script) await write(oneByOne).catch(() => undefined);
    const expected = await observeStore(oneByOne, ['short', 'long', 'older']);
    expect(await observeStore(together, ['short', 'long', 'older'])).toEqual(expected);
    const short = await together.getTask(scope, 'short');
    expect(short?.seq).toBe(5);
    expect(short?.task.artifacts?.[0]?.parts).toEqual([
      textPart('a'),
      textPart('b'),
      textPart('c'),
    ]);
    // And it is what the file holds, and what the next writes build on.
    await together.close();
    const reopened = SqliteTaskStore.open({ path });
    expect(await observeStore(reopened, ['short', 'long', 'older'])).toEqual(expected);
    expect(await append(reopened, 'long', 3, artifactUpdate('long', 'out', 'c', true))).toEqual({
      ok: true,
      seq: 4,
    });
    expect(await append(reopened, 'older', 4, artifactUpdate('older', 'out', 'c', true))).toEqual({
      ok: true,
      seq: 5,
    });
    for (const id of ['long', 'older']) {
      expect((await reopened.getTask(scope, id))?.task.artifacts?.[0]?.parts).toEqual([
        textPart('a'),
        textPart('b'),
        textPart('c'),
      ]);
    }
    await reopened.close();
    await oneByOne.close();
  });

  it('keeps what a commit wrote for a task even when two later writes to it fail', async () => {
    const store = SqliteTaskStore.open({ path });
    await store.createTask(createRequest(newTask('older')));
    const chunk = (target: TaskStore, taskId: string, expectedSeq: number) => {
      const artifact = { artifactId: 'out', parts: [textPart(`after ${expectedSeq}`)] };
      return target.append({
        taskId,
        expectedSeq,
        events: [
          logEntry(expectedSeq + 1, { artifactUpdate: { taskId, contextId: '', artifact } }),
        ],
        mutations: [{ kind: 'artifact', artifact, append: false }],
      });
    };
    // Refused after the task's row is read back (the timestamp is checked before any write).
    const broken = (taskId: string, expectedSeq: number) => {
      const status = { state: 'TASK_STATE_WORKING' as const, timestamp: 'not a time' };
      return store.append({
        taskId,
        expectedSeq,
        events: [logEntry(expectedSeq + 1, { statusUpdate: { taskId, contextId: '', status } })],
        mutations: [{ kind: 'status', status }],
      });
    };
    // One turn, so one commit: each task's deferred row changes are still pending when the
    // second failure reads the task again.
    const outcomes = await Promise.allSettled([
      chunk(store, 'older', 1),
      broken('older', 2),
      broken('older', 2),
      store.createTask(createRequest(newTask('fresh'))),
      broken('fresh', 1),
      broken('fresh', 1),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    await store.close();
    const reopened = SqliteTaskStore.open({ path });
    expect((await reopened.getTask(scope, 'older'))?.seq).toBe(2);
    expect((await reopened.getTask(scope, 'fresh'))?.seq).toBe(1);
    expect(await chunk(reopened, 'older', 2)).toEqual({ ok: true, seq: 3 });
    expect(await chunk(reopened, 'fresh', 1)).toEqual({ ok: true, seq: 2 });
    await reopened.close();
  });

  it('commits the writes still queued when it is closed', async () => {
    const store = SqliteTaskStore.open({ path });
    const created = store.createTask(createRequest(newTask('late')));
    await store.close();
    await created;
    const reopened = SqliteTaskStore.open({ path });
    expect((await reopened.getTask(scope, 'late'))?.seq).toBe(1);
    await reopened.close();
  });

  it('rejects calls after close with a UsageError', async () => {
    const store = SqliteTaskStore.open({ path });
    await store.close();
    await store.close();
    await expect(store.getTask(scope, 't1')).rejects.toThrow(UsageError);
  });
});
