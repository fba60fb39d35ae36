/**
 * Contract: the push configs of a store's tasks — configs created with their task in one write,
 * the per-task limit counted in the config's write, and delivery outcomes recorded where the
 * owner reads them back.
 */

import { describe, expect, it } from 'vitest';
import { InvalidTaskWriteError } from '../../../src/protocol/local-errors.js';
import type { PushConfigRecord, TaskPushStore } from '../../../src/stores/push-store.js';
import type { TaskStore } from '../../../src/stores/task-store.js';
import { createRequest, newTask, scope, useStore, type OpenStore } from './builders.js';

function config(taskId: string, id: string): PushConfigRecord {
  return { taskId, id, url: `https://hooks.example/${id}`, token: `tok-${id}`, createdAt: 1 };
}

function pushOf(store: TaskStore): TaskPushStore {
  const push = store.push;
  if (push === undefined) throw new Error('this store keeps no push configs');
  return push;
}

export function describePush(open: OpenStore): void {
  describe('push configs', () => {
    const store = useStore(open);

    it('stores the configs given with a new task in its creation, delivering from its first event', async () => {
      const task = newTask('t1');
      await store().createTask({ ...createRequest(task), pushConfigs: [config('t1', 'inline')] });
      const stored = await pushOf(store()).getConfig(scope, 't1', 'inline');
      expect(stored?.config).toEqual(config('t1', 'inline'));
      expect(stored?.state).toMatchObject({ deliveredSeq: 0, failures: 0, failing: false });
      expect(stored?.taskSeq).toBe(1);
    });

    it('refuses a creation whose configs it cannot store as a whole: no task, no config', async () => {
      const task = newTask('t1');
      await expect(
        store().createTask({
          ...createRequest(task),
          pushConfigs: [config('t1', 'same'), config('t1', 'same')],
        }),
      ).rejects.toBeInstanceOf(InvalidTaskWriteError);
      expect(await store().getTask(scope, 't1')).toBeUndefined();
      expect(await store().readEvents('t1', 0, 10)).toBeUndefined();
      expect(await pushOf(store()).getConfig(scope, 't1', 'same')).toBeUndefined();
      // The id is free: the task was never written.
      await store().createTask({ ...createRequest(task), pushConfigs: [config('t1', 'same')] });
      expect((await pushOf(store()).listConfigs(scope, 't1', 10))?.configs).toHaveLength(1);
    });

    it('counts the limit of configs per task in the write, a replacement not counted again', async () => {
      await store().createTask(createRequest(newTask('t1')));
      const push = pushOf(store());
      const put = (id: string) => push.putConfig(scope, config('t1', id), { maxConfigs: 2 });
      expect(await put('a')).toMatchObject({ config: { id: 'a' } });
      // Concurrent creations cannot pass the limit together.
      const raced = await Promise.all([put('b'), put('c'), put('d')]);
      expect(raced.filter((outcome) => outcome === 'limit-reached')).toHaveLength(2);
      expect(await put('a')).toMatchObject({ config: { id: 'a' } });
      expect(await put('e')).toBe('limit-reached');
      expect((await push.listConfigs(scope, 't1', 10))?.configs).toHaveLength(2);
      expect(await push.putConfig(scope, config('nope', 'x'), { maxConfigs: 2 })).toBeUndefined();
    });

    it('records failed and successful attempts of the holder, where the owner reads them', async () => {
      await store().createTask(createRequest(newTask('t1')));
      const push = pushOf(store());
      await push.putConfig(scope, config('t1', 'c'), { fromSeq: 0 });
      const claimed = await push.claim('worker-1', 10_000, 't1', 'c');
      expect(claimed?.state.deliveredSeq).toBe(0);
      // A jittered backoff may be a fraction of a millisecond: recorded all the same.
      const failed = await push.recordDelivery('worker-1', 't1', 'c', {
        deliveredSeq: 0,
        failures: 1,
        failing: false,
        nextAttemptAt: 4.25,
        lastError: 'HTTP 503',
        lastErrorAt: 4,
      });
      expect(failed?.state).toMatchObject({ failures: 1, lastError: 'HTTP 503', lastErrorAt: 4 });
      const read = await push.getConfig(scope, 't1', 'c');
      expect(read?.state).toMatchObject({
        deliveredSeq: 0,
        failures: 1,
        failing: false,
        lastError: 'HTTP 503',
        lastErrorAt: 4,
      });
      expect(read?.state.nextAttemptAt).toBeGreaterThanOrEqual(4.25);
      expect(read?.state.nextAttemptAt).toBeLessThanOrEqual(5);
      // Another holder's outcome is not recorded.
      expect(
        await push.recordDelivery('worker-2', 't1', 'c', {
          deliveredSeq: 1,
          failures: 0,
          failing: false,
          nextAttemptAt: 0,
        }),
      ).toBeUndefined();
      const delivered = await push.recordDelivery('worker-1', 't1', 'c', {
        deliveredSeq: 1,
        failures: 0,
        failing: false,
        nextAttemptAt: 0,
        lastSuccessAt: 9,
      });
      expect(delivered?.state).toMatchObject({ deliveredSeq: 1, failures: 0, lastSuccessAt: 9 });
      // The last error stays on record after a success, with its time.
      expect((await push.getConfig(scope, 't1', 'c'))?.state).toMatchObject({
        deliveredSeq: 1,
        failures: 0,
        lastSuccessAt: 9,
        lastError: 'HTTP 503',
        lastErrorAt: 4,
      });
    });
  });
}
