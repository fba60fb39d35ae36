/**
 * The leases of a {@link MemoryTaskStore}'s tasks. A memory store is exclusive, so the runtime
 * takes no leases on it; they work all the same for whoever uses the store directly, and
 * `findOrphans` is how a restarted runtime over the same object finds the tasks left active.
 */

import { isActiveState } from '../../protocol/task-state.js';
import type { StoredEntry } from './memory-task-entries.js';
import type { OrphanedTask, TaskLeases } from '../task-store.js';

/** The leases of the tasks in `tasks`, kept on the live entries themselves. */
export function memoryTaskLeases(tasks: ReadonlyMap<string, StoredEntry>): TaskLeases {
  return {
    acquire(taskId, holder, leaseMs) {
      const task = tasks.get(taskId);
      if (task === undefined || task.compact) return Promise.resolve(false);
      const now = Date.now();
      if (
        task.leaseHolder !== undefined &&
        task.leaseHolder !== holder &&
        task.leaseExpiresAt > now
      ) {
        return Promise.resolve(false);
      }
      task.leaseHolder = holder;
      task.leaseExpiresAt = now + leaseMs;
      return Promise.resolve(true);
    },

    renew(holder, leaseMs) {
      const expiresAt = Date.now() + leaseMs;
      for (const task of tasks.values()) {
        if (!task.compact && task.leaseHolder === holder) task.leaseExpiresAt = expiresAt;
      }
      return Promise.resolve();
    },

    release(taskId, holder) {
      const task = tasks.get(taskId);
      if (task !== undefined && !task.compact && task.leaseHolder === holder) {
        task.leaseHolder = undefined;
        task.leaseExpiresAt = 0;
      }
      return Promise.resolve();
    },

    findOrphans(limit, options) {
      const ignoreLeases = options?.ignoreLeases === true;
      const now = Date.now();
      const orphans: OrphanedTask[] = [];
      for (const task of tasks.values()) {
        if (orphans.length >= limit) break;
        if (task.compact) continue;
        const state = task.status.state;
        if (!isActiveState(state)) continue;
        const leased = task.leaseHolder !== undefined && task.leaseExpiresAt > now;
        if (leased && !ignoreLeases) continue;
        orphans.push({
          scope: task.scope,
          taskId: task.id,
          contextId: task.contextId,
          seq: task.seq,
          state,
        });
      }
      return Promise.resolve(orphans);
    },
  };
}
