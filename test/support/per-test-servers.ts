/**
 * In-process servers that each own their store and runtime, for tests that need a store of
 * their own (durability, faults injected into one store, several servers on one schema). Every
 * server is shut down, its runtime and store closed and what the store left behind removed,
 * after each test.
 */

import { afterEach } from 'vitest';
import { createTaskRuntime, type AgentDefinition, type TaskRuntime } from '../../src/server.js';
import { openTaskStore, type TaskStore } from '../../src/stores.js';
import type { BindingName } from './drivers/a2a-driver.js';
import { startInProcessServer, type InProcessServer } from './in-process-server.js';
import { testStoreSpec, type StoreName } from './stores.js';

/** Agents by mount path (`''` for the root). */
export type Mounts = Readonly<Record<string, AgentDefinition>>;

/** A server with the store and runtime it owns. */
export interface StoreServer extends InProcessServer {
  readonly store: TaskStore;
  readonly runtime: TaskRuntime;
}

/** Returns the function that starts a server of `binding` over a fresh store of a kind. */
export function inProcessServers(
  binding: BindingName,
): (store: StoreName, mounts: Mounts) => Promise<StoreServer> {
  const serve = inProcessServersOn(binding);
  return async (name, mounts) => {
    const { spec, cleanup } = await testStoreSpec(name);
    return serve(await openTaskStore(spec), mounts, cleanup);
  };
}

/**
 * Returns the function that starts a server of `binding` over a store the test opened (several
 * servers may share one schema, a store may wrap another); `cleanup` runs once it is closed.
 */
export function inProcessServersOn(
  binding: BindingName,
): (store: TaskStore, mounts: Mounts, cleanup?: () => Promise<void>) => Promise<StoreServer> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return async (store, mounts, cleanup) => {
    const runtime = createTaskRuntime({ store });
    cleanups.push(async () => {
      await runtime.close();
      await store.close();
      await cleanup?.();
    });
    await runtime.start();
    const server = await startInProcessServer({
      binding,
      runtime,
      mounts: Object.entries(mounts).map(([path, agent]) => ({ path, agent })),
      track: (node) => cleanups.push(() => node.shutdown({ deadlineMs: 500 })),
    });
    return { ...server, store, runtime };
  };
}
