/**
 * Everything a reader can observe of a task store, for before/after comparisons of the same
 * tasks in two files (a migrated one and a fresh one, a crashed one and a clean one, ...).
 */

import type { TaskListQuery, TaskStore } from '../../src/stores/task-store.js';
import { scope } from './contract/builders.js';

/** Each task through several views and log reads, every listing page, and the orphans. */
export async function observeStore(store: TaskStore, ids: readonly string[]): Promise<unknown> {
  const tasks = [];
  for (const id of ids) {
    tasks.push(
      await store.getTask(scope, id),
      await store.getTask(scope, id, { historyLength: 2, includeArtifacts: false }),
      await store.getTask(scope, id, { historyLength: 1 }),
      await store.readEvents(id, 0, 10_000),
      await store.readEvents(id, 3, 2),
    );
  }
  const pages = [];
  for (const view of [{}, { historyLength: 1 }]) {
    let after: TaskListQuery['after'];
    do {
      const query: TaskListQuery = { pageSize: 3, ...view };
      const page = await store.listTasks(scope, after === undefined ? query : { ...query, after });
      pages.push(page);
      after = page.next;
    } while (after !== undefined);
  }
  return { tasks, pages, orphans: await store.leases.findOrphans(100) };
}
