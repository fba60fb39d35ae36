/**
 * The serial writer (stores whose appends are not pipelined: PostgreSQL), over a scripted shared
 * store: each change is appended once the one before is acknowledged; a stale append reloads the
 * task and is rebuilt from it; a task ended elsewhere stops the run; a failure fails its own
 * write only; cancellation wins over the writes queued after it.
 */

import { describe, expect, it } from 'vitest';
import { ScriptedStore } from './support/scripted-store.js';
import {
  chunk,
  flush,
  owner,
  published,
  scope,
  startRuntime,
  status,
  userMessage,
} from './support/runtime-harness.js';

class DiskError extends Error {}

/** A WORKING task on a shared store whose appends are not pipelined. */
async function workingTask() {
  const store = new ScriptedStore({ topology: 'shared', pipelinedAppends: false });
  const runtime = await startRuntime(store);
  const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
  const seen = published(runtime, 't1');
  await run.create(userMessage('t1', 'go'));
  await run.write(status('t1', 'TASK_STATE_WORKING'));
  store.calls.length = 0;
  return { store, run, seen };
}

describe('SerialWriter', () => {
  it('appends each change once the one before it is acknowledged', async () => {
    const { store, run, seen } = await workingTask();
    store.hold();
    let first = false;
    const a = run.write(chunk('t1', 'c0', false)).then(() => (first = true));
    const b = run.write(chunk('t1', 'c1'));
    await flush();
    expect(first).toBe(false);
    expect(store.calls).toEqual(['append t1@2']);
    store.release();
    await a;
    expect(await b).toBe('applied');
    expect(store.calls).toEqual(['append t1@2', 'append t1@3']);
    expect(seen.slice(2)).toEqual(['3 artifact:c0', '4 artifact:c1']);
  });

  it('reloads the task after a stale append and builds the change again', async () => {
    const { store, run, seen } = await workingTask();
    // Not announced: the run learns of it from the refused append.
    const elsewhere = await store.writeElsewhere(scope, 't1', 'TASK_STATE_WORKING', false);
    store.calls.length = 0;
    expect(await run.write(status('t1', 'TASK_STATE_COMPLETED'))).toBe('applied');
    expect(store.calls).toEqual(['append t1@2', 'get t1', 'append t1@3']);
    expect(run.seq).toBe(elsewhere + 1);
    expect(seen.at(-1)).toBe('4 status:TASK_STATE_COMPLETED');
  });

  it('drops the change and stops the run when the task ended elsewhere', async () => {
    const { store, run } = await workingTask();
    await store.writeElsewhere(scope, 't1', 'TASK_STATE_CANCELED');
    expect(await run.write(chunk('t1', 'c0', false))).toBe('dropped');
    expect(run.stopped).toBe(true);
    expect(run.signal.aborted).toBe(true);
    expect(await run.write(status('t1', 'TASK_STATE_COMPLETED'))).toBe('dropped');
  });

  it('fails the write whose append fails, and goes on with the next', async () => {
    const { store, run, seen } = await workingTask();
    const disk = new DiskError('connection lost');
    store.failAppend(1, disk);
    await expect(run.write(chunk('t1', 'c0', false))).rejects.toBe(disk);
    expect(await run.write(chunk('t1', 'c1', false))).toBe('applied');
    expect(seen.slice(2)).toEqual(['3 artifact:c1']);
  });

  it('lets a cancel win over the writes queued after it', async () => {
    const { store, run, seen } = await workingTask();
    store.hold();
    const inFlight = run.write(chunk('t1', 'c0', false));
    const canceled = run.cancel();
    const queued = run.write(chunk('t1', 'c1'));
    await flush();
    store.release();
    expect(await inFlight).toBe('applied');
    expect(await canceled).toBe(true);
    expect(await queued).toBe('dropped');
    expect(seen.slice(2)).toEqual(['3 artifact:c0', '4 status:TASK_STATE_CANCELED']);
  });

  it('creates a new task with its first change in one write, leased to this process', async () => {
    const store = new ScriptedStore({ topology: 'shared', pipelinedAppends: false });
    const runtime = await startRuntime(store);
    const run = runtime.begin(scope, { taskId: 't2', contextId: 'ctx' }, owner);
    const { created, written } = run.createWith(
      userMessage('t2', 'go'),
      status('t2', 'TASK_STATE_WORKING'),
    );
    expect(await written).toBe('applied');
    expect((await created).status.state).toBe('TASK_STATE_SUBMITTED');
    expect(store.calls.at(-1)).toBe('create t2 lease here');
    expect(run.acceptedState).toBe('TASK_STATE_WORKING');
  });
});
