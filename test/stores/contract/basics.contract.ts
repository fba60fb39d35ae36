/** Contract: creating, reading, scoping and the conditional append with its event log. */

import { MemoryTaskStore } from '../../../src/stores/memory/memory-task-store.js';
import { describe, expect, it } from 'vitest';
import { InvalidTaskWriteError, TaskExistsError } from '../../../src/protocol/local-errors.js';
import type { Task } from '../../../src/protocol/generated/types.js';
import {
  T0,
  createRequest,
  createTask,
  logEntry,
  message,
  newTask,
  scope,
  status,
  textPart,
  useStore,
  type OpenStore,
} from './builders.js';

export function describeBasics(open: OpenStore): void {
  describe('declarations', () => {
    const store = useStore(open);

    it('declares its topology, with a change feed exactly when it is shared', () => {
      const { topology, changeFeed, pipelinedAppends } = store();
      expect(['exclusive', 'shared']).toContain(topology);
      expect(changeFeed !== undefined).toBe(topology === 'shared');
      expect(typeof pipelinedAppends).toBe('boolean');
    });

    it('applies writes called without waiting in call order, when it says appends pipeline', async () => {
      if (!store().pipelinedAppends) return;
      const task = newTask('t1');
      const created = store().createTask(createRequest(task));
      const appends = [1, 2, 3].map((seq) =>
        store().append({
          taskId: 't1',
          expectedSeq: seq,
          events: [logEntry(seq + 1, { message: message(`m${seq}`, `${seq}`) })],
          mutations: [{ kind: 'history', message: message(`m${seq}`, `${seq}`) }],
        }),
      );
      await created;
      expect(await Promise.all(appends)).toEqual([2, 3, 4].map((seq) => ({ ok: true, seq })));
      const stored = await store().getTask(scope, 't1');
      expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['t1-m0', 'm1', 'm2', 'm3']);
    });
  });

  describe('create, get and scope', () => {
    const store = useStore(open);

    it('returns the created task as it was given, with seq 1 and its state', async () => {
      const task = newTask('t1', {
        state: 'TASK_STATE_WORKING',
        history: [message('m1', 'one'), message('m2', 'two', 'ROLE_AGENT')],
        artifacts: [
          { artifactId: 'a1', name: 'first', parts: [textPart('x'), { data: { n: [1, 2] } }] },
          { artifactId: 'a2', parts: [{ url: 'https://example.com/f', mediaType: 'text/plain' }] },
        ],
        metadata: { origin: 'test', nested: { ok: true, list: [null, 1.5, 'é'] } },
      });
      await store().createTask(createRequest(task));
      expect(await store().getTask(scope, 't1')).toEqual({
        task,
        seq: 1,
        state: 'TASK_STATE_WORKING',
      });
    });

    it('fills what the initial projection leaves out: empty lists and an empty context', async () => {
      const task: Task = { id: 'bare', status: status('TASK_STATE_SUBMITTED', T0) };
      await store().createTask(createRequest(task));
      const stored = await store().getTask(scope, 'bare');
      expect(stored?.task).toEqual({ ...task, contextId: '', history: [], artifacts: [] });
    });

    it('keeps the first event in the log with its JSON unchanged', async () => {
      const request = createRequest(newTask('t1'));
      await store().createTask(request);
      const events = await store().readEvents('t1', 0, 10);
      expect(events).toHaveLength(1);
      expect(events?.[0]?.seq).toBe(1);
      expect(events?.[0]?.json).toBe(request.events[0]?.json);
      expect(events?.[0]?.payload).toEqual(request.events[0]?.payload);
    });

    it('creates a task with several first events, its projection as given', async () => {
      const task = newTask('t1');
      const artifact = { artifactId: 'a1', parts: [{ text: 'first' }] };
      const working = {
        ...task,
        status: { state: 'TASK_STATE_WORKING' as const, timestamp: '2026-01-01T00:00:01.000Z' },
        artifacts: [artifact],
      };
      const events = [
        logEntry(1, { task }),
        logEntry(2, {
          statusUpdate: { taskId: 't1', contextId: '', status: working.status },
        }),
        logEntry(3, {
          artifactUpdate: { taskId: 't1', contextId: '', artifact },
        }),
      ];
      await store().createTask({ scope, task: working, events });
      const stored = await store().getTask(scope, 't1');
      expect(stored?.seq).toBe(3);
      expect(stored?.state).toBe('TASK_STATE_WORKING');
      expect(stored?.task.artifacts).toEqual(working.artifacts);
      expect((await store().readEvents('t1', 0, 10))?.map((e) => e.json)).toEqual(
        events.map((e) => e.json),
      );
      const next = await store().append({
        taskId: 't1',
        expectedSeq: 3,
        events: [],
        mutations: [],
      });
      expect(next).toEqual({ ok: true, seq: 3 });
      expect(
        await store().append({ taskId: 't1', expectedSeq: 1, events: [], mutations: [] }),
      ).toEqual({
        ok: false,
        currentSeq: 3,
      });
    });

    it('refuses to create a task without events or with a gap in them, writing nothing', async () => {
      const task = newTask('t1');
      const empty = store().createTask({ scope, task, events: [] });
      await expect(empty).rejects.toBeInstanceOf(InvalidTaskWriteError);
      await expect(empty).rejects.toThrow('at least one event');
      const gap = store().createTask({
        scope,
        task,
        events: [logEntry(1, { task }), logEntry(3, { task })],
      });
      await expect(gap).rejects.toBeInstanceOf(InvalidTaskWriteError);
      await expect(gap).rejects.toThrow('Event seq 3 does not follow 1');
      expect(await store().getTask(scope, 't1')).toBeUndefined();
    });

    it('shows a task to its own agent, tenant and owner only', async () => {
      await createTask(store(), 'mine');
      await createTask(store(), 'theirs', {}, { scope: { ...scope, owner: 'bob' } });
      for (const other of [
        { ...scope, agent: 'echo' },
        { ...scope, tenant: 'globex' },
        { ...scope, owner: 'bob' },
      ]) {
        expect(await store().getTask(other, 'mine')).toBeUndefined();
        const page = await store().listTasks(other, { pageSize: 10 });
        expect(page.tasks.map((task) => task.id)).not.toContain('mine');
      }
      const page = await store().listTasks(scope, { pageSize: 10 });
      expect(page.tasks.map((task) => task.id)).toEqual(['mine']);
      expect(page.totalSize).toBe(1);
      expect(await store().listTasks({ ...scope, tenant: 'none' }, { pageSize: 10 })).toEqual({
        tasks: [],
        totalSize: 0,
      });
    });

    it('rejects a second task with the same id, in any scope, and keeps the first', async () => {
      await createTask(store(), 't1');
      const before = await store().getTask(scope, 't1');
      const duplicate = newTask('t1', { history: [message('other', 'other')] });
      const again = store().createTask(createRequest(duplicate));
      await expect(again).rejects.toBeInstanceOf(TaskExistsError);
      await expect(again).rejects.toThrow('Task t1 already exists');
      await expect(
        store().createTask(createRequest(duplicate, { scope: { ...scope, owner: 'bob' } })),
      ).rejects.toBeInstanceOf(TaskExistsError);
      expect(await store().getTask(scope, 't1')).toEqual(before);
      expect(await store().getTask({ ...scope, owner: 'bob' }, 't1')).toBeUndefined();
      expect(await store().readEvents('t1', 0, 10)).toHaveLength(1);
    });

    it('answers undefined for an unknown task', async () => {
      expect(await store().getTask(scope, 'nope')).toBeUndefined();
      expect(await store().readEvents('nope', 0, 10)).toBeUndefined();
    });
  });

  describe('conditional append and the event log', () => {
    const store = useStore(open);

    it('applies a write at the expected seq and refuses a stale one without applying it', async () => {
      const writer = await createTask(store(), 't1');
      expect(await writer.setStatus('TASK_STATE_WORKING', T0 + 1)).toEqual({ ok: true, seq: 2 });
      const before = await store().getTask(scope, 't1');
      const stale = await store().append({
        taskId: 't1',
        expectedSeq: 1,
        events: [logEntry(2, { message: message('late', 'late') })],
        mutations: [{ kind: 'history', message: message('late', 'late') }],
      });
      expect(stale).toEqual({ ok: false, currentSeq: 2 });
      const ahead = await store().append({
        taskId: 't1',
        expectedSeq: 5,
        events: [],
        mutations: [],
      });
      expect(ahead).toEqual({ ok: false, currentSeq: 2 });
      expect(await store().getTask(scope, 't1')).toEqual(before);
      expect((await store().readEvents('t1', 0, 10))?.map((e) => e.seq)).toEqual([1, 2]);
    });

    it('refuses an append to an unknown task', async () => {
      const result = await store().append({
        taskId: 'nope',
        expectedSeq: 1,
        events: [],
        mutations: [],
      });
      expect(result).toEqual({ ok: false, currentSeq: undefined });
    });

    it('rejects events that do not continue the log, applying nothing', async () => {
      const writer = await createTask(store(), 't1');
      const before = await store().getTask(scope, 't1');
      await expect(
        store().append({
          taskId: 't1',
          expectedSeq: 1,
          events: [logEntry(3, { message: message('gap', 'gap') })],
          mutations: [{ kind: 'history', message: message('gap', 'gap') }],
        }),
      ).rejects.toBeInstanceOf(InvalidTaskWriteError);
      expect(await store().getTask(scope, 't1')).toEqual(before);
      expect(await writer.addMessage(message('next', 'next'))).toEqual({ ok: true, seq: 2 });
    });

    it('rejects a status without a valid timestamp, applying nothing', async () => {
      await createTask(store(), 't1');
      const before = await store().getTask(scope, 't1');
      const bad = { state: 'TASK_STATE_WORKING' as const };
      await expect(
        store().append({
          taskId: 't1',
          expectedSeq: 1,
          events: [logEntry(2, { statusUpdate: { taskId: 't1', contextId: 'c', status: bad } })],
          mutations: [
            { kind: 'history', message: message('m', 'm') },
            { kind: 'status', status: bad },
          ],
        }),
      ).rejects.toBeInstanceOf(InvalidTaskWriteError);
      expect(await store().getTask(scope, 't1')).toEqual(before);
      expect(await store().readEvents('t1', 0, 10)).toHaveLength(1);
    });

    it('returns the log in order, by range, with each JSON string unchanged', async () => {
      const writer = await createTask(store(), 't1');
      await writer.setStatus('TASK_STATE_WORKING', T0 + 1);
      for (let i = 0; i < 5; i++) await writer.addMessage(message(`m${i}`, `text ${i}`));
      const written = await store().append({
        taskId: 't1',
        expectedSeq: writer.seq,
        events: [
          logEntry(writer.seq + 1, { message: message('x', 'x') }),
          logEntry(writer.seq + 2, { message: message('y', 'y') }),
        ],
        mutations: [],
      });
      expect(written).toEqual({ ok: true, seq: 9 });
      const all = await store().readEvents('t1', 0, 100);
      expect(all?.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      for (const entry of all ?? []) {
        expect(entry.json).toBe(JSON.stringify(entry.payload));
      }
      expect((await store().readEvents('t1', 2, 3))?.map((e) => e.seq)).toEqual([3, 4, 5]);
      expect(await store().readEvents('t1', 9, 10)).toEqual([]);
      expect(await store().readEvents('t1', 0, 0)).toEqual([]);
      expect((await store().getTask(scope, 't1'))?.seq).toBe(9);
    });

    it('accepts a projection-only change (no event) without moving seq', async () => {
      const writer = await createTask(store(), 't1');
      const result = await store().append({
        taskId: 't1',
        expectedSeq: 1,
        events: [],
        mutations: [{ kind: 'history', message: message('quiet', 'quiet') }],
      });
      expect(result).toEqual({ ok: true, seq: 1 });
      const stored = await store().getTask(scope, 't1');
      expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['t1-m0', 'quiet']);
      expect(writer.seq).toBe(1);
    });

    it('hands back the exact JSON given (the memory store: its payload, serialized)', async () => {
      const writer = await createTask(store(), 't1');
      const payload = { message: message('m', 'm') };
      const json = JSON.stringify(payload, null, 2);
      const result = await store().append({
        taskId: 't1',
        expectedSeq: writer.seq,
        events: [{ seq: 2, payload, json }],
        mutations: [],
      });
      expect(result.ok).toBe(true);
      const [entry] = (await store().readEvents('t1', 1, 1)) ?? [];
      // A store of text never re-serializes; the memory store keeps payloads, not their text.
      const keepsPayloads = store() instanceof MemoryTaskStore;
      expect(entry?.json).toBe(keepsPayloads ? JSON.stringify(payload) : json);
      expect(entry?.payload).toEqual(payload);
    });
  });
}
