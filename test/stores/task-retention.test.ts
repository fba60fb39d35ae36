/** Retention: finished tasks older than the age are purged in batches; everything else stays. */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../src/stores/memory/memory-task-store.js';
import { purgeExpiredTasks, startRetention } from '../../src/stores/task-retention.js';
import type { TaskState } from '../../src/index.js';
import type { TaskScope } from '../../src/stores.js';

const scope: TaskScope = { agent: 'a', tenant: '', owner: 'o' };

async function addTask(store: MemoryTaskStore, id: string, state: TaskState, at: number) {
  const task = {
    id,
    contextId: 'c',
    status: { state, timestamp: new Date(at).toISOString() },
  };
  await store.createTask({ scope, task, events: [{ seq: 1, payload: { task }, json: '{}' }] });
}

describe('retention', () => {
  it('purges only terminal tasks older than the age, across several batches', async () => {
    const store = new MemoryTaskStore();
    const old = Date.now() - 10 * 86_400_000;
    for (let i = 0; i < 25; i++) await addTask(store, `old-done-${i}`, 'TASK_STATE_COMPLETED', old);
    await addTask(store, 'old-working', 'TASK_STATE_WORKING', old);
    await addTask(store, 'old-input', 'TASK_STATE_INPUT_REQUIRED', old);
    await addTask(store, 'new-done', 'TASK_STATE_FAILED', Date.now());
    expect(await purgeExpiredTasks(store, 86_400_000, 10)).toBe(25);
    const left = await store.listTasks(scope, { pageSize: 100 });
    expect(left.tasks.map((task) => task.id).sort()).toEqual([
      'new-done',
      'old-input',
      'old-working',
    ]);
  });

  it('sweeps at start and reports what it purged', async () => {
    const store = new MemoryTaskStore();
    await addTask(store, 'old', 'TASK_STATE_CANCELED', Date.now() - 2 * 86_400_000);
    const purged = new Promise<object>((resolve) => {
      const stop = startRetention(store, 86_400_000, {
        info: (context) => {
          stop();
          resolve(context);
        },
        error: (context) => resolve(context),
      });
    });
    expect(await purged).toMatchObject({ purged: 1 });
    expect(await store.getTask(scope, 'old')).toBeUndefined();
  });
});
