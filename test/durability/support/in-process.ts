/**
 * A Tandem server inside the test process, composed from the public API the way an application
 * composes it — `openTaskStore`, `createTaskRuntime`, `createRequestHandler`, `createNodeServer`
 * — on a loopback port. Each test opens its own store (a fresh SQLite file or PostgreSQL
 * schema), closed and removed after the test.
 */

import { afterEach } from 'vitest';
import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  openTaskStore,
  type AgentDefinition,
  type TaskRuntime,
  type TaskStore,
} from '../../../src/server.js';
import { AgentEndpoint } from './json-rpc.js';
import { testStoreSpec, type StoreName } from './stores.js';

/** A running in-process server. */
export interface InProcessServer {
  readonly url: string;
  readonly store: TaskStore;
  readonly runtime: TaskRuntime;
  /** The JSON-RPC endpoint of the agent mounted at `path` (the root by default). */
  endpoint(path?: string): AgentEndpoint;
}

/** Agents by mount path (`''` for the root). */
export type Mounts = Readonly<Record<string, AgentDefinition>>;

/**
 * Returns the function that starts a server over a fresh store; every server it started is shut
 * down, and its store closed and removed, after each test.
 */
export function inProcessServers(): (store: StoreName, mounts: Mounts) => Promise<InProcessServer> {
  const serve = inProcessServersOn();
  return async (name, mounts) => {
    const { spec, cleanup } = await testStoreSpec(name);
    return serve(await openTaskStore(spec), mounts, cleanup);
  };
}

/**
 * Returns the function that starts a server over a store the test opened (several servers may
 * share one schema, a store may wrap another); every server it started is shut down, and its
 * store closed, then `cleanup` run, after each test.
 */
export function inProcessServersOn(): (
  store: TaskStore,
  mounts: Mounts,
  cleanup?: () => Promise<void>,
) => Promise<InProcessServer> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return async (store, mounts, cleanup) => {
    const runtime = createTaskRuntime({ store });
    await runtime.start();
    const node = createNodeServer({
      agents: Object.entries(mounts).map(([path, agent]) => ({
        path,
        handler: createRequestHandler({ agent, runtime }),
      })),
    });
    cleanups.push(async () => {
      await node.shutdown({ deadlineMs: 500 });
      await runtime.close();
      await store.close();
      await cleanup?.();
    });
    const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
    return {
      url,
      store,
      runtime,
      endpoint: (path = '') => new AgentEndpoint(`${url}${path}/a2a`),
    };
  };
}
