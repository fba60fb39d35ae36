import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../src/stores/memory/memory-task-store.js';
import { T0, createTask, message } from './contract/builders.js';
import { describeTaskStoreContract } from './task-store-contract.js';

describeTaskStoreContract('memory', () => {
  const store = new MemoryTaskStore();
  return Promise.resolve({ store, close: () => store.close() });
});

describe('MemoryTaskStore compaction', () => {
  it('never compacts a running task that reuses the id of a purged one', async () => {
    const store = new MemoryTaskStore({ retainedLogs: 1 });
    await createTask(store, 'reused', { state: 'TASK_STATE_COMPLETED', time: T0 });
    expect(await store.retention.purgeTerminalTasks(T0 + 1, 10)).toBe(1);
    const running = await createTask(store, 'reused', { state: 'TASK_STATE_WORKING', time: T0 });
    await createTask(store, 'done-1', { state: 'TASK_STATE_COMPLETED', time: T0 });
    await createTask(store, 'done-2', { state: 'TASK_STATE_COMPLETED', time: T0 });
    expect(await running.addMessage(message('still', 'running'))).toEqual({ ok: true, seq: 2 });
    expect(await store.readEvents('reused', 0, 10)).toHaveLength(2);
    expect(await store.readEvents('done-1', 0, 10)).toBeUndefined();
    expect(await store.readEvents('done-2', 0, 10)).toHaveLength(1);
  });
});
