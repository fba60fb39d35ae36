/**
 * The SQLite store's integer keys (schema version 4): files of older versions migrate with every
 * task intact and writable, a task's rows never mix with its neighbours', and what a key cannot
 * hold is refused with a clear error that changes nothing.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError, StorageError } from '../../src/protocol/local-errors.js';
import { SQLITE_MIGRATIONS } from '../../src/stores/sqlite/sqlite-migrations.js';
import { MAX_POSITION, MAX_TASK_KEY } from '../../src/stores/sqlite/sqlite-task-keys.js';
import { SqliteTaskStore } from '../../src/stores/sqlite/sqlite-task-store.js';
import type { TaskStore } from '../../src/stores/task-store.js';
import { T0, TaskWriter, createTask, message, scope, textPart } from './contract/builders.js';
import { observeStore } from './observe-store.js';

let directory: string;
let path: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'tandem-sqlite-keys-'));
  path = join(directory, 'tandem.db');
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

/** Tasks with history, several artifacts, appended and replaced parts; odd ones still working. */
async function seed(store: TaskStore): Promise<TaskWriter[]> {
  const writers: TaskWriter[] = [];
  for (let i = 0; i < 6; i++) {
    const writer = await createTask(store, `t${i}`, {
      time: T0 + i,
      metadata: { i },
      history: [message(`u${i}`, 'hello')],
      artifacts: [{ artifactId: 'initial', parts: [textPart('i'), textPart('j')] }],
    });
    await writer.setStatus(
      'TASK_STATE_WORKING',
      T0 + 100 + i,
      message(`s${i}`, 'on it', 'ROLE_AGENT'),
    );
    for (let k = 0; k < 4; k++) {
      await writer.artifact(
        { artifactId: 'stream', name: `n${k}`, parts: [textPart(`${k}`)] },
        k > 0,
      );
    }
    await writer.artifact({ artifactId: 'initial', parts: [textPart('replaced')] }, false);
    await writer.artifact({ artifactId: 'stream', parts: [textPart('more'), textPart('!')] }, true);
    if (i % 3 === 0) await writer.artifact({ artifactId: 'empty', parts: [] });
    if (i % 2 === 0) await writer.setStatus('TASK_STATE_COMPLETED', T0 + 200 + i);
    writers.push(writer);
  }
  // One with nothing but its first event.
  writers.push(await createTask(store, 'bare', { time: T0 + 50 }));
  return writers;
}

/** Writes to a migrated task the same as to a fresh one: chunks, a new artifact, a replacement. */
async function goOn(store: TaskStore, writer: TaskWriter): Promise<void> {
  const next = new TaskWriter(store, scope, writer.taskId, writer.contextId);
  next.seq = writer.seq;
  expect((await next.artifact({ artifactId: 'stream', parts: [textPart('after')] }, true)).ok).toBe(
    true,
  );
  expect((await next.artifact({ artifactId: 'late', parts: [textPart('new')] })).ok).toBe(true);
  expect((await next.artifact({ artifactId: 'initial', parts: [textPart('again')] })).ok).toBe(
    true,
  );
  expect((await next.addMessage(message(`m-${writer.taskId}`, 'more'))).ok).toBe(true);
  expect((await next.setStatus('TASK_STATE_COMPLETED', T0 + 900)).ok).toBe(true);
}

/**
 * Writes at `target` a file of schema `version` (1 to 3: child rows keyed by task id and
 * position) holding what the closed store at `from` holds, the way those versions stored it.
 */
function writeOldFile(target: string, version: number, from: string): void {
  const db = new Database(target);
  for (const migration of SQLITE_MIGRATIONS.slice(0, version)) db.exec(migration.sql);
  db.prepare('ATTACH DATABASE ? AS today').run(from);
  db.exec(`
    INSERT INTO tasks SELECT id, agent, tenant, owner, context_id, state, status_time, status,
      metadata, seq, history_count, artifact_count, lease_holder, lease_expires_at, created_at
      FROM today.tasks;
    INSERT INTO task_history SELECT t.id, h.k & 16777215, h.message
      FROM today.task_history AS h JOIN today.tasks AS t ON t.key = h.k >> 24;
    INSERT INTO task_artifacts SELECT t.id, a.k & 16777215, a.artifact_id, a.fields, a.part_count
      FROM today.task_artifacts AS a JOIN today.tasks AS t ON t.key = a.k >> 24;
    INSERT INTO task_artifact_parts SELECT t.id, p.artifact_position,
        row_number() OVER (PARTITION BY p.k >> 24, p.artifact_position ORDER BY p.k) - 1, p.part
      FROM today.task_artifact_parts AS p JOIN today.tasks AS t ON t.key = p.k >> 24;
    INSERT INTO task_events SELECT t.id, e.k & 16777215, e.event
      FROM today.task_events AS e JOIN today.tasks AS t ON t.key = e.k >> 24;
  `);
  db.exec('DETACH DATABASE today');
  db.pragma(`user_version = ${version}`);
  db.close();
}

interface SchemaObject {
  readonly type: string;
  readonly name: string;
  readonly tableName: string;
  readonly sql: string | null;
}

/** Every table and index of the file, as SQLite recorded them, with its version and integrity. */
function schemaOf(file: string): { version: unknown; objects: SchemaObject[]; integrity: unknown } {
  const db = new Database(file, { readonly: true });
  const objects = db
    .prepare<[], SchemaObject>(
      'SELECT type, name, tbl_name AS tableName, sql FROM sqlite_schema ORDER BY type, name',
    )
    .all();
  const result = {
    version: db.pragma('user_version', { simple: true }),
    objects,
    integrity: db.pragma('integrity_check', { simple: true }),
  };
  db.close();
  return result;
}

describe('SqliteTaskStore keys', () => {
  for (const version of [1, 3]) {
    it(`migrates a version ${version} file: every task reads the same, and writing goes on`, async () => {
      const fresh = SqliteTaskStore.open({ path });
      const writers = await seed(fresh);
      const ids = writers.map((writer) => writer.taskId);
      const before = await observeStore(fresh, ids);
      await fresh.close();
      const old = join(directory, `v${version}.db`);
      writeOldFile(old, version, path);

      const migrated = SqliteTaskStore.open({ path: old });
      expect(await observeStore(migrated, ids)).toEqual(before);
      const reopened = SqliteTaskStore.open({ path });
      for (const store of [reopened, migrated]) {
        for (const writer of writers.filter((_, i) => i % 2 === 1)) await goOn(store, writer);
        await createTask(store, 'after-migration', { history: [message('n', 'new')] });
      }
      ids.push('after-migration');
      expect(await observeStore(migrated, ids)).toEqual(await observeStore(reopened, ids));
      await reopened.close();
      await migrated.close();

      const schema = schemaOf(old);
      expect(schema).toEqual(schemaOf(path));
      expect(schema.version).toBe(SQLITE_MIGRATIONS.length);
      expect(schema.integrity).toBe('ok');
      const names = schema.objects.map((object) => object.name);
      expect(names).toContain('tasks_by_scope');
      expect(names).not.toContain('task_artifacts_by_id');
      expect(names.filter((name) => name.includes('v3_') || name.includes('v4_'))).toEqual([]);
    });
  }

  it('refuses to migrate a file whose tasks a key cannot hold, leaving it as it was', async () => {
    const fresh = SqliteTaskStore.open({ path });
    await seed(fresh);
    await fresh.close();
    const past: [string, string][] = [
      ['events', 'UPDATE task_events SET seq = ? WHERE task_id = ? AND seq = 1'],
      ['messages', 'UPDATE task_history SET position = ? WHERE task_id = ? AND position = 0'],
      ['artifacts', 'UPDATE task_artifacts SET position = ? WHERE task_id = ? AND position = 0'],
    ];
    for (const [kind, update] of past) {
      const old = join(directory, `v3-${kind}.db`);
      writeOldFile(old, 3, path);
      const db = new Database(old);
      expect(db.prepare(update).run(MAX_POSITION + 1, 't2').changes).toBe(1);
      db.close();
      const before = schemaOf(old);

      const opening = (): SqliteTaskStore => SqliteTaskStore.open({ path: old });
      expect(opening, kind).toThrow(ConfigurationError);
      expect(opening, kind).toThrow(
        `${old} cannot be migrated to schema version 4 (integer task keys; child rows keyed by task key and position, appended in order): a task holds more events (16777215), messages, artifacts or artifact parts (16777216 each) than schema version 4 can key`,
      );
      expect(schemaOf(old), kind).toEqual(before);
      const check = new Database(old, { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(3);
      expect(check.prepare('SELECT count(*) FROM task_events').pluck().get()).toBeGreaterThan(50);
      check.close();
    }
  });

  it("keeps each task's rows to itself: long cuts and low seqs do not reach a neighbour's", async () => {
    const store = SqliteTaskStore.open({ path });
    const first = await createTask(store, 'first', { history: [message('a1', 'one')] });
    await first.addMessage(message('a2', 'two'));
    await first.artifact({ artifactId: 'x', parts: [textPart('first')] });
    const second = await createTask(store, 'second', { history: [message('b1', 'three')] });
    await second.artifact({ artifactId: 'y', parts: [textPart('second')] });
    await createTask(store, 'third', { history: [message('c1', 'four')] });

    const task = (await store.getTask(scope, 'second', { historyLength: 50 }))?.task;
    expect(task?.history?.map((m) => m.messageId)).toEqual(['b1']);
    expect(task?.artifacts).toEqual([{ artifactId: 'y', parts: [textPart('second')] }]);
    const events = await store.readEvents('second', -1_000, 100);
    expect(events?.map((event) => event.seq)).toEqual([1, 2]);
    expect(await store.readEvents('second', MAX_POSITION + 5, 100)).toEqual([]);
    const page = await store.listTasks(scope, { pageSize: 10, historyLength: 50 });
    expect(page.tasks.map((t) => [t.id, t.history?.length, t.artifacts?.length])).toEqual([
      ['third', 1, 0],
      ['second', 1, 1],
      ['first', 2, 1],
    ]);
    await store.close();
  });

  it('refuses a write past what a key holds, and the task stays as it was', async () => {
    const store = SqliteTaskStore.open({ path });
    const writers = [];
    for (const id of ['events', 'messages', 'artifacts', 'parts']) {
      const writer = await createTask(store, id, {
        artifacts: [{ artifactId: 'a', parts: [textPart('x')] }],
      });
      writers.push(writer);
    }
    await store.close();
    // Counters at the edge, as a task that wrote that much would leave them.
    const db = new Database(path);
    const keyOf = (id: string): number =>
      db.prepare<[string], number>('SELECT key FROM tasks WHERE id = ?').pluck().get(id) ?? 0;
    db.prepare('UPDATE tasks SET seq = ? WHERE id = ?').run(MAX_POSITION, 'events');
    db.prepare('UPDATE tasks SET history_count = ? WHERE id = ?').run(MAX_POSITION + 1, 'messages');
    db.prepare('UPDATE tasks SET artifact_count = ? WHERE id = ?').run(
      MAX_POSITION + 1,
      'artifacts',
    );
    db.prepare(
      'INSERT INTO task_artifact_parts (k, artifact_position, part) VALUES ((? << 24) + ?, 0, ?)',
    ).run(keyOf('parts'), MAX_POSITION, JSON.stringify(textPart('last')));
    db.close();

    const reopened = SqliteTaskStore.open({ path });
    const [events, messages, artifacts, parts] = writers.map(
      (writer) => new TaskWriter(reopened, scope, writer.taskId, writer.contextId),
    ) as [TaskWriter, TaskWriter, TaskWriter, TaskWriter];
    events.seq = MAX_POSITION;
    const refusals: [TaskWriter, () => Promise<unknown>, string][] = [
      [events, () => events.addMessage(message('e', 'one too many')), 'events'],
      [messages, () => messages.addMessage(message('m', 'one too many')), 'messages'],
      [artifacts, () => artifacts.artifact({ artifactId: 'b', parts: [] }), 'artifacts'],
      [
        parts,
        () => parts.artifact({ artifactId: 'a', parts: [textPart('y')] }, true),
        'artifact parts',
      ],
    ];
    for (const [writer, write, kind] of refusals) {
      const before = await reopened.getTask(scope, writer.taskId);
      const log = await reopened.readEvents(writer.taskId, 0, 100);
      const refused = write();
      await expect(refused).rejects.toThrow(StorageError);
      // Seqs count from 1, positions and serials from 0.
      const capacity = kind === 'events' ? MAX_POSITION : MAX_POSITION + 1;
      await expect(refused).rejects.toThrow(
        `Task ${writer.taskId} cannot hold more than ${capacity} ${kind} in a SQLite task store`,
      );
      expect(await reopened.getTask(scope, writer.taskId)).toEqual(before);
      expect(await reopened.readEvents(writer.taskId, 0, 100)).toEqual(log);
    }
    // The store goes on: a write that fits is taken.
    const fits = new TaskWriter(reopened, scope, 'messages', writers[1]?.contextId ?? '');
    expect((await fits.artifact({ artifactId: 'a', parts: [textPart('z')] }, true)).ok).toBe(true);
    await reopened.close();
  });

  it('keeps the rows of tasks with the largest keys exact, then refuses a new task', async () => {
    const store = SqliteTaskStore.open({ path });
    await createTask(store, 'before');
    await store.close();
    const db = new Database(path);
    db.prepare('UPDATE tasks SET key = ? WHERE id = ?').run(MAX_TASK_KEY - 1, 'before');
    db.close();

    // The next task gets the last key: its child keys are near 2^63, past what a float holds.
    const reopened = SqliteTaskStore.open({ path });
    const last = await createTask(reopened, 'last', {
      history: [message('h0', 'zero')],
      artifacts: [{ artifactId: 'a', parts: [textPart('a0'), textPart('a1')] }],
    });
    await last.addMessage(message('h1', 'one'));
    await last.addMessage(message('h2', 'two'));
    await last.artifact({ artifactId: 'a', parts: [textPart('a2')] }, true);
    await last.artifact({ artifactId: 'b', parts: [textPart('b0'), textPart('b1')] });
    await last.artifact({ artifactId: 'b', parts: [textPart('b2')] }, false);
    await last.setStatus('TASK_STATE_COMPLETED', T0 + 5);
    const expected = {
      history: ['h0', 'h1', 'h2'],
      artifacts: [
        { artifactId: 'a', parts: [textPart('a0'), textPart('a1'), textPart('a2')] },
        { artifactId: 'b', parts: [textPart('b2')] },
      ],
    };
    const check = async (target: TaskStore): Promise<void> => {
      const task = (await target.getTask(scope, 'last'))?.task;
      expect(task?.history?.map((m) => m.messageId)).toEqual(expected.history);
      expect(task?.artifacts).toEqual(expected.artifacts);
      const cut = (await target.getTask(scope, 'last', { historyLength: 2 }))?.task;
      expect(cut?.history?.map((m) => m.messageId)).toEqual(['h1', 'h2']);
      expect((await target.readEvents('last', 0, 100))?.map((e) => e.seq)).toEqual([
        1, 2, 3, 4, 5, 6, 7,
      ]);
      expect((await target.readEvents('last', 5, 100))?.map((e) => e.seq)).toEqual([6, 7]);
      const page = await target.listTasks(scope, { pageSize: 10, historyLength: 1 });
      const listed = page.tasks.find((t) => t.id === 'last');
      expect(listed?.history?.map((m) => m.messageId)).toEqual(['h2']);
      expect(listed?.artifacts).toEqual(expected.artifacts);
    };
    await check(reopened);

    const creating = createTask(reopened, 'one-more');
    await expect(creating).rejects.toThrow(StorageError);
    await expect(creating).rejects.toThrow(
      `This SQLite task store has used all ${MAX_TASK_KEY} task keys; start a new database file`,
    );
    expect(await reopened.getTask(scope, 'one-more')).toBeUndefined();
    await reopened.close();
    const again = SqliteTaskStore.open({ path });
    await check(again);
    expect((await again.getTask(scope, 'before'))?.seq).toBe(1);
    await again.close();
  });

  it('purges a task with all its rows: a task given its key again starts empty', async () => {
    const store = SqliteTaskStore.open({ path });
    const kept = await createTask(store, 'kept', { history: [message('k', 'keep me')] });
    await kept.artifact({ artifactId: 'k', parts: [textPart('kept')] });
    const gone = await createTask(store, 'gone', {
      time: T0,
      history: [message('g', 'forget me')],
      artifacts: [{ artifactId: 'g', parts: [textPart('gone')] }],
    });
    await gone.addMessage(message('g2', 'and me'));
    await gone.setStatus('TASK_STATE_COMPLETED', T0 + 1);
    expect(await store.retention.purgeTerminalTasks(T0 + 10, 10)).toBe(1);
    await store.close();
    const rows = (): Record<string, unknown> => {
      const db = new Database(path, { readonly: true });
      const counts = Object.fromEntries(
        ['tasks', 'task_events', 'task_history', 'task_artifacts', 'task_artifact_parts'].map(
          (table) => [table, db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()],
        ),
      );
      db.close();
      return counts;
    };
    // What is left is the kept task's: 2 events, 1 message, 1 artifact with 1 part.
    expect(rows()).toEqual({
      tasks: 1,
      task_events: 2,
      task_history: 1,
      task_artifacts: 1,
      task_artifact_parts: 1,
    });

    // The purged task had the largest key, which the next task created after a restart gets.
    const reopened = SqliteTaskStore.open({ path });
    await createTask(reopened, 'new');
    const stored = await reopened.getTask(scope, 'new');
    expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['new-m0']);
    expect(stored?.task.artifacts ?? []).toEqual([]);
    expect((await reopened.readEvents('new', 0, 100))?.map((e) => e.seq)).toEqual([1]);
    expect((await reopened.getTask(scope, 'kept'))?.task.artifacts?.[0]?.parts).toEqual([
      textPart('kept'),
    ]);
    await reopened.close();
  });
});
