/**
 * A store used by one process (memory, SQLite) needs no leases: nothing else can run its tasks.
 * The runtime then takes none and never sweeps for orphans, so a task may run far longer than
 * the orphan timeout; start-up recovery alone fails what a dead predecessor left active.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createCallContext,
  createRequestHandler,
  createTaskRuntime,
  defineAgent,
} from '../../src/server.js';
import {
  MemoryTaskStore,
  openTaskStore,
  parseTaskStoreSpec,
  type TaskStore,
} from '../../src/stores.js';

const ORPHAN_TIMEOUT_MS = 20;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sqliteStore(): Promise<TaskStore> {
  const directory = mkdtempSync(join(tmpdir(), 'tandem-exclusive-'));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return openTaskStore(parseTaskStoreSpec(`sqlite:${join(directory, 'tasks.db')}`));
}

describe.each([
  ['memory', () => Promise.resolve<TaskStore>(new MemoryTaskStore())],
  ['sqlite', sqliteStore],
])('a runtime alone with its %s store', (_, openStore) => {
  it('takes no lease, and lets a task run many orphan timeouts long', async () => {
    const store = await openStore();
    const runtime = createTaskRuntime({ store, orphanTimeoutMs: ORPHAN_TIMEOUT_MS });
    await runtime.start();
    cleanups.push(async () => {
      await runtime.close();
      await store.close();
    });
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const agent = defineAgent({
      card: {
        name: 'Patient',
        description: 'Works until the test lets it finish.',
        version: '1.0.0',
        skills: [{ id: 'wait', name: 'Wait', description: 'Waits.', tags: ['test'] }],
      },
      async execute(ctx) {
        await ctx.working();
        started();
        await released;
        await ctx.complete('done');
      },
    });
    const handler = createRequestHandler({ agent, runtime });
    const call = createCallContext();
    const answer = handler.sendMessage(call, {
      message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'go' }] },
    });
    await running;
    // No lease was taken: to the store, the running task looks like any task without one.
    const unleased = await store.leases.findOrphans(10);
    expect(unleased.map((task) => task.state)).toEqual(['TASK_STATE_WORKING']);
    // Ten sweep periods of a shared store: time passing is the point here, not synchronisation.
    await new Promise((resolve) => setTimeout(resolve, ORPHAN_TIMEOUT_MS * 10));
    release();
    const { task } = await answer;
    expect(task?.status.state).toBe('TASK_STATE_COMPLETED');
    await handler.shutdown({ deadlineMs: 1_000 });
  });
});
