/**
 * The TaskRuntime over a scripted store: the one registry of live runs (begin, resume, runOf,
 * end), cancel through the live run or a run of its own, leases taken, waited for and given up
 * inside, start-up recovery by the store's declared topology, and the change feed.
 */

import { describe, expect, it, vi } from 'vitest';
import type { TaskState } from '../../src/protocol/generated/types.js';
import { ConfigurationError, UsageError } from '../../src/protocol/local-errors.js';
import { createTaskRuntime, engineOf } from '../../src/runtime/task-runtime.js';
import type { TaskStore } from '../../src/stores/task-store.js';
import { ScriptedStore } from './support/scripted-store.js';
import {
  flush,
  owner,
  scope,
  startRuntime,
  status,
  userMessage,
} from './support/runtime-harness.js';

/** Puts a task in `state` straight into the store, as an earlier process left it. */
async function seed(
  store: ScriptedStore,
  taskId: string,
  state: TaskState,
  lease?: { holder: string; ms: number },
): Promise<void> {
  const task = {
    id: taskId,
    contextId: 'ctx',
    status: { state, timestamp: new Date().toISOString() },
    history: [userMessage(taskId, 'first')],
  };
  await store.inner.createTask({
    scope,
    task,
    events: [{ seq: 1, payload: { task }, json: JSON.stringify({ task }) }],
    ...(lease === undefined ? {} : { leaseHolder: lease.holder, leaseMs: lease.ms }),
  });
}

async function stored(store: ScriptedStore, taskId: string) {
  const found = await store.inner.getTask(scope, taskId);
  if (found === undefined) throw new Error(`no task ${taskId}`);
  return found;
}

/** Resolves when `signal` fires. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

describe('TaskRuntime', () => {
  describe('runs', () => {
    it('registers a run from begin to end', async () => {
      const runtime = await startRuntime(new ScriptedStore());
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      expect(runtime.runOf('t1')).toBe(run);
      expect(runtime.runsOf(owner).map((live) => live.run)).toEqual([run]);
      expect(runtime.runsOf({})).toEqual([]);
      const [live] = runtime.runsOf(owner);
      await run.create(userMessage('t1', 'go'));
      await runtime.end(run);
      await live?.ended;
      expect(runtime.runOf('t1')).toBeUndefined();
      expect(runtime.runsOf(owner)).toEqual([]);
    });

    it('takes no lease on an exclusive store', async () => {
      const store = new ScriptedStore({ topology: 'exclusive' });
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await run.create(userMessage('t1', 'go'));
      await runtime.end(run);
      expect(store.creations[0]?.leaseHolder).toBeUndefined();
      expect(store.calls.filter((call) => /^(acquire|release|renew)/.test(call))).toEqual([]);
    });

    it('leases a new task to this process on a shared store, and gives it up at the end', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await run.create(userMessage('t1', 'go'));
      expect(store.calls).toContain('create t1 lease here');
      expect(await store.inner.leases.acquire('t1', 'other', 60_000)).toBe(false);
      await runtime.end(run);
      expect(store.calls.at(-1)).toBe('release t1 here');
      expect(await store.inner.leases.acquire('t1', 'other', 60_000)).toBe(true);
    });

    it('gives up no lease for a run whose task was never created', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await runtime.end(run);
      expect(store.calls.filter((call) => call.startsWith('release'))).toEqual([]);
    });
  });

  describe('cancel', () => {
    it('cancels through the live run, whose execution sees its signal fire', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await run.create(userMessage('t1', 'go'));
      expect(await runtime.cancel(scope, await stored(store, 't1'))).toBe(true);
      expect(run.signal.aborted).toBe(true);
      expect(await run.write(status('t1', 'TASK_STATE_COMPLETED'))).toBe('dropped');
      expect((await stored(store, 't1')).state).toBe('TASK_STATE_CANCELED');
    });

    it('cancels a task that runs elsewhere with a conditional write of its own', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_WORKING', { holder: 'other', ms: 60_000 });
      expect(await runtime.cancel(scope, await stored(store, 't1'))).toBe(true);
      expect((await stored(store, 't1')).state).toBe('TASK_STATE_CANCELED');
      expect(runtime.runOf('t1')).toBeUndefined();
    });

    it('answers false for a task that ended after it was read', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED');
      const read = await stored(store, 't1');
      await store.writeElsewhere(scope, 't1', 'TASK_STATE_COMPLETED');
      expect(await runtime.cancel(scope, read)).toBe(false);
      expect((await stored(store, 't1')).state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe('resume', () => {
    const waitMs = 5_000;

    it('resumes an interrupted task with the message, and registers its run', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED');
      const outcome = await runtime.resume(
        scope,
        await stored(store, 't1'),
        userMessage('t1', 'more'),
        {
          owner,
          waitMs,
        },
      );
      if (outcome.kind !== 'resumed') throw new Error(`not resumed: ${outcome.kind}`);
      expect(outcome.task.status.state).toBe('TASK_STATE_WORKING');
      expect(outcome.task.history?.map((m) => m.messageId)).toEqual(['m-first', 'm-more']);
      expect(runtime.runOf('t1')).toBe(outcome.run);
    });

    it('lets exactly one of two racing messages resume the task', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED');
      const read = await stored(store, 't1');
      const outcomes = await Promise.all(
        ['a', 'b'].map((text) =>
          runtime.resume(scope, read, userMessage('t1', text), { owner, waitMs }),
        ),
      );
      expect(outcomes.map((o) => o.kind).sort()).toEqual(['busy', 'resumed']);
      expect((await stored(store, 't1')).task.history).toHaveLength(2);
    });

    it('refuses a task that still has an execution here', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_WORKING');
      const outcome = await runtime.resume(
        scope,
        await stored(store, 't1'),
        userMessage('t1', 'x'),
        {
          owner,
          waitMs,
        },
      );
      expect(outcome).toEqual({ kind: 'busy', state: 'TASK_STATE_WORKING' });
    });

    it('waits for the execution that interrupted the task here to return', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await run.create(userMessage('t1', 'go'));
      await run.write(status('t1', 'TASK_STATE_INPUT_REQUIRED'));
      let settled = false;
      const resuming = runtime
        .resume(scope, await stored(store, 't1'), userMessage('t1', 'more'), { owner, waitMs })
        .then((outcome) => {
          settled = true;
          return outcome;
        });
      await flush();
      expect(settled).toBe(false);
      await runtime.end(run);
      expect((await resuming).kind).toBe('resumed');
    });

    it('tells that the task ended when it did before the message could resume it', async () => {
      const store = new ScriptedStore();
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED');
      const read = await stored(store, 't1');
      await store.writeElsewhere(scope, 't1', 'TASK_STATE_CANCELED');
      const outcome = await runtime.resume(scope, read, userMessage('t1', 'x'), { owner, waitMs });
      expect(outcome).toEqual({ kind: 'ended', state: 'TASK_STATE_CANCELED' });
    });

    it('takes the lease first on a shared store, waiting for another replica to give it up', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED', { holder: 'other', ms: 60_000 });
      const resuming = runtime.resume(scope, await stored(store, 't1'), userMessage('t1', 'x'), {
        owner,
        waitMs,
      });
      await vi.waitFor(() => expect(store.calls).toContain('acquire t1 here'));
      await store.inner.leases.release('t1', 'other');
      expect((await resuming).kind).toBe('resumed');
      expect(await store.inner.leases.acquire('t1', 'other', 60_000)).toBe(false);
    });

    it('answers busy when another replica keeps the lease longer than the wait', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      await seed(store, 't1', 'TASK_STATE_INPUT_REQUIRED', { holder: 'other', ms: 60_000 });
      const outcome = await runtime.resume(
        scope,
        await stored(store, 't1'),
        userMessage('t1', 'x'),
        {
          owner,
          waitMs: 30,
        },
      );
      expect(outcome.kind).toBe('busy');
      expect((await stored(store, 't1')).state).toBe('TASK_STATE_INPUT_REQUIRED');
    });
  });

  describe('start', () => {
    it('fails every task a dead predecessor left active on an exclusive store, lease or not', async () => {
      const store = new ScriptedStore({ topology: 'exclusive' });
      await seed(store, 'submitted', 'TASK_STATE_SUBMITTED');
      await seed(store, 'working', 'TASK_STATE_WORKING', { holder: 'old', ms: 60_000 });
      await seed(store, 'waiting', 'TASK_STATE_INPUT_REQUIRED');
      await startRuntime(store);
      expect(store.calls[0]).toBe('findOrphans ignoring leases');
      for (const id of ['submitted', 'working']) {
        const task = await stored(store, id);
        expect(task.state).toBe('TASK_STATE_FAILED');
        expect(task.task.status.message?.parts[0]?.text).toMatch(/server restarted/);
      }
      expect((await stored(store, 'waiting')).state).toBe('TASK_STATE_INPUT_REQUIRED');
    });

    it('fails only the active tasks without a live lease on a shared store', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      await seed(store, 'orphan', 'TASK_STATE_WORKING');
      await seed(store, 'alive', 'TASK_STATE_WORKING', { holder: 'other', ms: 60_000 });
      await startRuntime(store);
      expect((await stored(store, 'orphan')).state).toBe('TASK_STATE_FAILED');
      expect((await stored(store, 'alive')).state).toBe('TASK_STATE_WORKING');
    });

    it('renews the leases of this process while it runs', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      await startRuntime(store, { orphanTimeoutMs: 60 });
      await vi.waitFor(() => expect(store.calls).toContain('renew here'));
    });

    it('stops a run here when the change feed tells of its cancel elsewhere', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await run.create(userMessage('t1', 'go'));
      await store.writeElsewhere(scope, 't1', 'TASK_STATE_CANCELED');
      await aborted(run.signal);
      expect(run.stopped).toBe(true);
    });

    it('re-reads the runs here when the change feed may have lost announcements', async () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const runtime = await startRuntime(store);
      const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
      await run.create(userMessage('t1', 'go'));
      await store.writeElsewhere(scope, 't1', 'TASK_STATE_CANCELED', false);
      expect(run.stopped).toBe(false);
      store.resync();
      await aborted(run.signal);
      expect(run.stopped).toBe(true);
    });

    it('refuses a shared store without a change feed', () => {
      const store = new ScriptedStore({ topology: 'shared' });
      const feedless: TaskStore = {
        topology: 'shared',
        pipelinedAppends: false,
        leases: store.leases,
        retention: store.retention,
        createTask: (request) => store.createTask(request),
        append: (request) => store.append(request),
        getTask: (s, id, view) => store.getTask(s, id, view),
        listTasks: (s, query) => store.listTasks(s, query),
        readEvents: (id, after, limit) => store.readEvents(id, after, limit),
        close: () => store.close(),
      };
      expect(() => createTaskRuntime({ store: feedless })).toThrow(ConfigurationError);
    });

    it('serves request handlers only with a runtime it made', () => {
      expect(() =>
        engineOf({
          store: new ScriptedStore(),
          start: () => Promise.resolve(),
          close: () => Promise.resolve(),
        }),
      ).toThrow(UsageError);
    });
  });
});
