/**
 * The pipelined writer (stores whose appends may be pipelined: memory, SQLite), over a scripted
 * store whose commits the test holds back: artifact chunks resolve before their commit, up to 32
 * ahead; nothing reaches readers before it is stored; a failure dooms the writes sent after it
 * and reaches the agent's next call; a stale append is rebuilt after a reload; cancellation wins.
 */

import { describe, expect, it } from 'vitest';
import { InvalidTransitionError } from '../../src/protocol/local-errors.js';
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

/** A WORKING task on a pipelined store, its run, and what readers have seen of it. */
async function workingTask() {
  const store = new ScriptedStore({ topology: 'exclusive', pipelinedAppends: true });
  const runtime = await startRuntime(store);
  const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
  const seen = published(runtime, 't1');
  await run.create(userMessage('t1', 'go'));
  await run.write(status('t1', 'TASK_STATE_WORKING'));
  return { store, run, seen };
}

async function storedParts(store: ScriptedStore): Promise<string[]> {
  const stored = await store.inner.getTask(scope, 't1');
  return (stored?.task.artifacts ?? []).flatMap((a) => a.parts.map((p) => p.text ?? ''));
}

describe('PipelinedWriter', () => {
  it('resolves artifact chunks before their commit, at most 32 ahead', async () => {
    const { store, run, seen } = await workingTask();
    store.hold();
    for (let i = 0; i < 32; i++) {
      expect(await run.write(chunk('t1', `c${i}`, i > 0))).toBe('applied');
    }
    expect(store.heldWrites).toBe(32);
    let resolved = false;
    const last = run.write(chunk('t1', 'c32')).then((outcome) => {
      resolved = true;
      return outcome;
    });
    await flush();
    // Sent too, but the 33rd waits for the commits before it resolves.
    expect(store.heldWrites).toBe(33);
    expect(resolved).toBe(false);
    expect(seen).toEqual(['1 task:TASK_STATE_SUBMITTED', '2 status:TASK_STATE_WORKING']);
    store.release();
    expect(await last).toBe('applied');
    expect(seen.slice(2)).toEqual(Array.from({ length: 33 }, (_, i) => `${i + 3} artifact:c${i}`));
    expect(run.seq).toBe(35);
  });

  it('resolves a status change only once it is stored, after the chunks before it', async () => {
    const { store, run, seen } = await workingTask();
    store.hold();
    await run.write(chunk('t1', 'c0', false));
    let completed = false;
    const done = run.write(status('t1', 'TASK_STATE_COMPLETED')).then(() => (completed = true));
    await flush();
    expect(completed).toBe(false);
    expect(run.acceptedState).toBe('TASK_STATE_COMPLETED');
    store.release();
    await done;
    expect(seen.slice(2)).toEqual(['3 artifact:c0', '4 status:TASK_STATE_COMPLETED']);
  });

  it('checks each change against the state the changes before it will leave', async () => {
    const { store, run } = await workingTask();
    store.hold();
    const completing = run.write(status('t1', 'TASK_STATE_COMPLETED'));
    await expect(run.write(status('t1', 'TASK_STATE_WORKING'))).rejects.toBeInstanceOf(
      InvalidTransitionError,
    );
    store.release();
    await completing;
    expect(store.calls.filter((call) => call.startsWith('append'))).toHaveLength(2);
  });

  it('dooms the chunks sent after a failed one, and fails the next call with its error', async () => {
    const { store, run, seen } = await workingTask();
    const disk = new DiskError('disk I/O error');
    store.hold();
    store.failAppend(2, disk);
    for (const text of ['c0', 'c1', 'c2', 'c3']) {
      expect(await run.write(chunk('t1', text, text !== 'c0'))).toBe('applied');
    }
    store.release();
    await run.writesDone();
    // Not retried over the gap: nothing after the failed chunk is stored or published.
    expect(await storedParts(store)).toEqual(['c0']);
    expect(seen.slice(2)).toEqual(['3 artifact:c0']);
    await expect(run.write(chunk('t1', 'c4'))).rejects.toBe(disk);
    // Told once: the task goes on from what is stored.
    await run.write(status('t1', 'TASK_STATE_FAILED'));
    expect(seen.at(-1)).toBe('4 status:TASK_STATE_FAILED');
  });

  it('fails a waiting status change doomed by a failed chunk, telling the agent only once', async () => {
    const { store, run } = await workingTask();
    const disk = new DiskError('disk full');
    store.hold();
    store.failAppend(1, disk);
    await run.write(chunk('t1', 'c0', false));
    const completing = run.write(status('t1', 'TASK_STATE_COMPLETED'));
    store.release();
    await expect(completing).rejects.toBe(disk);
    expect(await run.write(status('t1', 'TASK_STATE_FAILED'))).toBe('applied');
  });

  it('rebuilds a change refused as stale from the task as it reloads it', async () => {
    const { store, run, seen } = await workingTask();
    await store.writeElsewhere(scope, 't1', 'TASK_STATE_WORKING');
    expect(await run.write(chunk('t1', 'c0', false))).toBe('applied');
    await run.writesDone();
    expect(store.calls.slice(-3)).toEqual(['append t1@2', 'get t1', 'append t1@3']);
    expect(seen.at(-1)).toBe('4 artifact:c0');
  });

  it('drops the change and stops when the task ended elsewhere', async () => {
    const { store, run } = await workingTask();
    await store.writeElsewhere(scope, 't1', 'TASK_STATE_CANCELED');
    await run.write(chunk('t1', 'c0', false));
    await run.writesDone();
    expect(run.stopped).toBe(true);
    expect(run.signal.aborted).toBe(true);
    expect(await run.write(chunk('t1', 'c1'))).toBe('dropped');
    expect(await storedParts(store)).toEqual([]);
  });

  it('lets a cancel win: chunks sent before it are stored first, later ones are dropped', async () => {
    const { store, run, seen } = await workingTask();
    store.hold();
    await run.write(chunk('t1', 'c0', false));
    await run.write(chunk('t1', 'c1'));
    const canceled = run.cancel();
    expect(run.signal.aborted).toBe(true);
    const late = run.write(chunk('t1', 'c2'));
    store.release();
    expect(await canceled).toBe(true);
    expect(await late).toBe('dropped');
    expect(seen.slice(2)).toEqual([
      '3 artifact:c0',
      '4 artifact:c1',
      '5 status:TASK_STATE_CANCELED',
    ]);
  });

  it('creates the task with its first chunk in one write, resolving the chunk first', async () => {
    const store = new ScriptedStore({ topology: 'exclusive', pipelinedAppends: true });
    const runtime = await startRuntime(store);
    const run = runtime.begin(scope, { taskId: 't1', contextId: 'ctx' }, owner);
    store.hold();
    const { created, written } = run.createWith(userMessage('t1', 'go'), chunk('t1', 'c0', false));
    expect(await written).toBe('applied');
    let stored = false;
    const snapshot = created.then((task) => {
      stored = true;
      return task;
    });
    await flush();
    expect(stored).toBe(false);
    store.release();
    expect((await snapshot).status.state).toBe('TASK_STATE_SUBMITTED');
    expect(store.calls).toEqual(['findOrphans ignoring leases', 'create t1']);
    expect(store.creations[0]?.events.map((event) => event.seq)).toEqual([1, 2]);
  });
});
