/** Contract: ListTasks order, keyset paging (also while tasks move), filters and totalSize. */

import { describe, expect, it } from 'vitest';
import type { TaskState } from '../../../src/protocol/generated/types.js';
import type { TaskListQuery, TaskStore } from '../../../src/stores/task-store.js';
import {
  T0,
  createTask,
  message,
  scope,
  textPart,
  useStore,
  type OpenStore,
  type TaskWriter,
} from './builders.js';

interface Model {
  readonly id: string;
  contextId: string;
  state: TaskState;
  time: number;
}

const STATES: readonly TaskState[] = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_FAILED',
];

/** Listing order: status time descending, then id descending. */
function byListingOrder(a: Model, b: Model): number {
  if (a.time !== b.time) return b.time - a.time;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * `count` tasks over 3 contexts and 5 states; times repeat every 40 tasks so that many tasks tie
 * on status time and the id decides. Ids are not created in listing order.
 */
async function seed(
  store: TaskStore,
  count: number,
): Promise<{ models: Model[]; writers: Map<string, TaskWriter> }> {
  const models: Model[] = [];
  const writers = new Map<string, TaskWriter>();
  for (let i = 0; i < count; i++) {
    const id = `task-${String((i * 7919) % 1000).padStart(4, '0')}-${i}`;
    const model: Model = {
      id,
      contextId: `ctx-${i % 3}`,
      state: STATES[i % STATES.length] as TaskState,
      time: T0 + (i % 40) * 1000,
    };
    const writer = await createTask(store, id, {
      contextId: model.contextId,
      state: model.state,
      time: model.time,
      artifacts: [{ artifactId: `art-${i}`, parts: [textPart(`p${i}`)] }],
    });
    await writer.addMessage(message(`${id}-m1`, 'second'));
    models.push(model);
    writers.set(id, writer);
  }
  return { models, writers };
}

/** Every page of a query; checks that totalSize is the same on each. */
async function listAll(store: TaskStore, query: Omit<TaskListQuery, 'after'>): Promise<string[]> {
  const ids: string[] = [];
  let after: TaskListQuery['after'];
  let totalSize: number | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.listTasks(scope, after === undefined ? query : { ...query, after });
    totalSize ??= page.totalSize;
    expect(page.totalSize).toBe(totalSize);
    expect(page.tasks.length).toBeLessThanOrEqual(query.pageSize);
    ids.push(...page.tasks.map((task) => task.id));
    if (page.next === undefined) return ids;
    expect(page.tasks.length).toBe(query.pageSize);
    after = page.next;
  }
  throw new Error('Paging did not end');
}

export function describeListing(open: OpenStore): void {
  describe('listing', () => {
    const store = useStore(open);

    it('pages through every task exactly once, newest status first, ties by id', async () => {
      const { models } = await seed(store(), 300);
      const expected = models.sort(byListingOrder).map((model) => model.id);
      expect(await listAll(store(), { pageSize: 17 })).toEqual(expected);
      expect(await listAll(store(), { pageSize: 300 })).toEqual(expected);
      const first = await store().listTasks(scope, { pageSize: 1000 });
      expect(first.totalSize).toBe(300);
      expect(first.next).toBeUndefined();
    });

    it('skips the count when asked, returning the same page without totalSize', async () => {
      await seed(store(), 30);
      const counted = await store().listTasks(scope, { pageSize: 10 });
      const uncounted = await store().listTasks(scope, { pageSize: 10, countTotal: false });
      expect(counted.totalSize).toBe(30);
      expect(uncounted.totalSize).toBeUndefined();
      expect(uncounted.tasks).toEqual(counted.tasks);
      expect(uncounted.next).toEqual(counted.next);
    });

    it('sees every task not updated during paging once, and no task twice', async () => {
      const { models, writers } = await seed(store(), 240);
      const seen: string[] = [];
      const touched = new Set<string>();
      let after: TaskListQuery['after'];
      let clock = T0 + 100_000;
      for (let round = 0; ; round++) {
        const query = { pageSize: 13, ...(after === undefined ? {} : { after }) };
        const page = await store().listTasks(scope, query);
        seen.push(...page.tasks.map((task) => task.id));
        if (page.next === undefined) break;
        after = page.next;
        // Move one task already listed and one not yet listed to the top of the order.
        const unseen = models.find((m) => !seen.includes(m.id) && !touched.has(m.id));
        for (const id of [seen[round % seen.length], unseen?.id]) {
          if (id === undefined || touched.has(id)) continue;
          touched.add(id);
          const writer = writers.get(id);
          expect((await writer?.setStatus('TASK_STATE_WORKING', ++clock))?.ok).toBe(true);
        }
      }
      expect(new Set(seen).size).toBe(seen.length);
      for (const model of models) {
        if (!touched.has(model.id)) expect(seen).toContain(model.id);
      }
      expect(touched.size).toBeGreaterThan(10);
    });

    it('filters by context, state and status time, alone and combined', async () => {
      const { models } = await seed(store(), 200);
      const from = T0 + 25 * 1000;
      const queries: { contextId?: string; state?: TaskState; statusTimeFrom?: number }[] = [
        { contextId: 'ctx-1' },
        { state: 'TASK_STATE_WORKING' },
        { statusTimeFrom: from },
        { contextId: 'ctx-2', state: 'TASK_STATE_COMPLETED' },
        { contextId: 'ctx-0', statusTimeFrom: from },
        { state: 'TASK_STATE_FAILED', statusTimeFrom: from },
        { contextId: 'ctx-1', state: 'TASK_STATE_SUBMITTED', statusTimeFrom: from },
        { contextId: 'ctx-none' },
        { statusTimeFrom: T0 + 1_000_000 },
      ];
      for (const filters of queries) {
        const expected = models
          .filter(
            (m) =>
              (filters.contextId === undefined || m.contextId === filters.contextId) &&
              (filters.state === undefined || m.state === filters.state) &&
              (filters.statusTimeFrom === undefined || m.time >= filters.statusTimeFrom),
          )
          .sort(byListingOrder)
          .map((m) => m.id);
        expect(await listAll(store(), { ...filters, pageSize: 7 })).toEqual(expected);
        const first = await store().listTasks(scope, { ...filters, pageSize: 7 });
        expect(first.totalSize).toBe(expected.length);
      }
    });

    it('applies the view to every listed task', async () => {
      await seed(store(), 12);
      const trimmed = await store().listTasks(scope, {
        pageSize: 5,
        historyLength: 1,
        includeArtifacts: false,
      });
      expect(trimmed.tasks).toHaveLength(5);
      for (const task of trimmed.tasks) {
        expect(task).not.toHaveProperty('artifacts');
        expect(task.history?.map((m) => m.messageId)).toEqual([`${task.id}-m1`]);
      }
      const full = await store().listTasks(scope, { pageSize: 5 });
      for (const task of full.tasks) {
        expect(task.history?.map((m) => m.messageId)).toEqual([`${task.id}-m0`, `${task.id}-m1`]);
        expect(task.artifacts).toHaveLength(1);
      }
      const none = await store().listTasks(scope, { pageSize: 5, historyLength: 0 });
      for (const task of none.tasks) expect(task).not.toHaveProperty('history');
      for (const [index, task] of full.tasks.entries()) {
        expect((await store().getTask(scope, task.id))?.task).toEqual(task);
        expect(trimmed.tasks[index]?.id).toBe(task.id);
      }
    });
  });
}
