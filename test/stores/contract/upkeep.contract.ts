/** Contract: leases, orphan detection and the purge of old terminal tasks. */

import { describe, expect, it } from 'vitest';
import type { TaskState } from '../../../src/protocol/generated/types.js';
import { T0, createTask, scope, sleep, useStore, type OpenStore } from './builders.js';

const LONG = 60_000;

export function describeUpkeep(open: OpenStore): void {
  describe('leases', () => {
    const store = useStore(open);

    it('grants a free lease, refuses a live one held by another, lets the holder renew', async () => {
      await createTask(store(), 't1');
      expect(await store().leases.acquire('t1', 'A', LONG)).toBe(true);
      expect(await store().leases.acquire('t1', 'B', LONG)).toBe(false);
      expect(await store().leases.acquire('t1', 'A', LONG)).toBe(true);
      expect(await store().leases.acquire('nope', 'A', LONG)).toBe(false);
    });

    it('lets another holder take an expired lease', async () => {
      await createTask(store(), 't1');
      expect(await store().leases.acquire('t1', 'A', 1)).toBe(true);
      await sleep(20);
      expect(await store().leases.acquire('t1', 'B', LONG)).toBe(true);
      expect(await store().leases.acquire('t1', 'A', LONG)).toBe(false);
    });

    it('leases a task at creation when asked', async () => {
      await createTask(store(), 't1', {}, { leaseHolder: 'A', leaseMs: LONG });
      expect(await store().leases.acquire('t1', 'B', LONG)).toBe(false);
      expect(await store().leases.acquire('t1', 'A', LONG)).toBe(true);
    });

    it('renews every lease of a holder and only those', async () => {
      await createTask(store(), 't1', {}, { leaseHolder: 'A', leaseMs: 40 });
      await createTask(store(), 't2', {}, { leaseHolder: 'A', leaseMs: 40 });
      await createTask(store(), 't3', {}, { leaseHolder: 'C', leaseMs: 40 });
      await store().leases.renew('A', LONG);
      await sleep(80);
      expect(await store().leases.acquire('t1', 'B', LONG)).toBe(false);
      expect(await store().leases.acquire('t2', 'B', LONG)).toBe(false);
      expect(await store().leases.acquire('t3', 'B', LONG)).toBe(true);
    });

    it('releases a lease for its holder only', async () => {
      await createTask(store(), 't1', {}, { leaseHolder: 'A', leaseMs: LONG });
      await store().leases.release('t1', 'B');
      expect(await store().leases.acquire('t1', 'B', LONG)).toBe(false);
      await store().leases.release('t1', 'A');
      expect(await store().leases.acquire('t1', 'B', LONG)).toBe(true);
    });
  });

  describe('orphans', () => {
    const store = useStore(open);

    async function seed(): Promise<void> {
      const lease = (
        holder: string,
        leaseMs: number,
      ): { leaseHolder: string; leaseMs: number } => ({
        leaseHolder: holder,
        leaseMs,
      });
      const tasks: [string, TaskState, { leaseHolder: string; leaseMs: number } | undefined][] = [
        ['submitted-free', 'TASK_STATE_SUBMITTED', undefined],
        ['working-live', 'TASK_STATE_WORKING', lease('A', LONG)],
        ['working-expired', 'TASK_STATE_WORKING', lease('A', 1)],
        ['submitted-released', 'TASK_STATE_SUBMITTED', lease('B', LONG)],
        ['input-free', 'TASK_STATE_INPUT_REQUIRED', undefined],
        ['auth-free', 'TASK_STATE_AUTH_REQUIRED', undefined],
        ['completed-free', 'TASK_STATE_COMPLETED', undefined],
        ['failed-expired', 'TASK_STATE_FAILED', lease('A', 1)],
      ];
      for (const [id, state, leased] of tasks) {
        await createTask(store(), id, { state, contextId: `ctx-${id}` }, leased ?? {});
      }
      await store().leases.release('submitted-released', 'B');
      const writer = await createTask(store(), 'moved-on', {}, { leaseHolder: 'A', leaseMs: 1 });
      await writer.setStatus('TASK_STATE_WORKING', T0 + 1);
      await writer.setStatus('TASK_STATE_INPUT_REQUIRED', T0 + 2);
      await sleep(20);
    }

    it('finds running tasks whose lease expired or that have none', async () => {
      await seed();
      const orphans = await store().leases.findOrphans(100);
      expect(orphans.map((o) => o.taskId).sort()).toEqual([
        'submitted-free',
        'submitted-released',
        'working-expired',
      ]);
      const expired = orphans.find((o) => o.taskId === 'working-expired');
      expect(expired).toEqual({
        scope,
        taskId: 'working-expired',
        contextId: 'ctx-working-expired',
        seq: 1,
        state: 'TASK_STATE_WORKING',
      });
    });

    it('returns at most limit orphans', async () => {
      await seed();
      expect(await store().leases.findOrphans(2)).toHaveLength(2);
    });

    it('ignores leases when asked', async () => {
      await seed();
      const all = await store().leases.findOrphans(100, { ignoreLeases: true });
      expect(all.map((o) => o.taskId).sort()).toEqual([
        'submitted-free',
        'submitted-released',
        'working-expired',
        'working-live',
      ]);
    });
  });

  describe('purge', () => {
    const store = useStore(open);

    it('deletes old terminal tasks in batches, with their logs, and nothing else', async () => {
      const cutoff = T0 + 10_000;
      const old: [string, TaskState][] = [
        ['old-completed', 'TASK_STATE_COMPLETED'],
        ['old-failed', 'TASK_STATE_FAILED'],
        ['old-canceled', 'TASK_STATE_CANCELED'],
        ['old-rejected', 'TASK_STATE_REJECTED'],
        ['old-completed-2', 'TASK_STATE_COMPLETED'],
      ];
      for (const [id, state] of old) {
        const writer = await createTask(store(), id, { time: T0 });
        await writer.artifact({ artifactId: 'a', parts: [{ text: 'x' }] });
        await writer.setStatus(state, T0 + 1);
      }
      await createTask(store(), 'new-completed', { state: 'TASK_STATE_COMPLETED', time: cutoff });
      await createTask(store(), 'old-working', { state: 'TASK_STATE_WORKING', time: T0 });
      await createTask(store(), 'old-input', { state: 'TASK_STATE_INPUT_REQUIRED', time: T0 });
      const kept = ['new-completed', 'old-input', 'old-working'];

      const batches: number[] = [];
      for (;;) {
        const purged = await store().retention.purgeTerminalTasks(cutoff, 2);
        batches.push(purged);
        if (purged < 2) break;
      }
      expect(batches).toEqual([2, 2, 1]);
      for (const [id] of old) {
        expect(await store().getTask(scope, id)).toBeUndefined();
        expect(await store().readEvents(id, 0, 10)).toBeUndefined();
        expect(await store().leases.acquire(id, 'A', LONG)).toBe(false);
      }
      for (const id of kept) {
        expect((await store().getTask(scope, id))?.task.id).toBe(id);
        expect(await store().readEvents(id, 0, 10)).toHaveLength(1);
      }
      const page = await store().listTasks(scope, { pageSize: 10 });
      expect(page.tasks.map((task) => task.id).sort()).toEqual(kept);
      expect(page.totalSize).toBe(3);
      expect(await store().retention.purgeTerminalTasks(cutoff + LONG, 0)).toBe(0);
    });

    it('lets a purged id be used again', async () => {
      await createTask(store(), 't1', { state: 'TASK_STATE_COMPLETED', time: T0 });
      expect(await store().retention.purgeTerminalTasks(T0 + 1, 10)).toBe(1);
      const writer = await createTask(store(), 't1', { time: T0 + 5 });
      await writer.addMessage({ messageId: 'again', role: 'ROLE_USER', parts: [{ text: 'a' }] });
      const stored = await store().getTask(scope, 't1');
      expect(stored?.task.history?.map((m) => m.messageId)).toEqual(['t1-m0', 'again']);
      expect(stored?.task.artifacts).toEqual([]);
      expect((await store().readEvents('t1', 0, 10))?.map((e) => e.seq)).toEqual([1, 2]);
    });
  });
}
