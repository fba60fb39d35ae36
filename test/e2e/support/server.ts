/**
 * In-process servers for the end-to-end suite: the agents a test defines, served by the real
 * runtime (`createRequestHandler` over a `createTaskRuntime` of the chosen store) behind the real
 * node adapter on a loopback port. `describeStores` runs a block once per store; each block opens
 * its store once, and every test starts its own servers, shut down after it.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, it } from 'vitest';
import {
  createNodeServer,
  createRequestHandler,
  createTaskRuntime,
  type A2ANodeServer,
  type A2ANodeServerOptions,
  type AgentDefinition,
  type Logger,
  type TaskRuntime,
  type TaskStore,
} from '../../../src/server.js';
import { AgentEndpoint, TAG_HEADER } from './json-rpc.js';
import {
  POSTGRES_SKIP_REASON,
  STORE_NAMES,
  isStoreAvailable,
  openStore,
  type OpenedStore,
  type StoreName,
} from './stores.js';
import { deferred, type Deferred } from './sync.js';

/** One agent of a server and where it is mounted. */
export interface AgentMountSpec {
  readonly path: string;
  readonly agent: AgentDefinition;
}

export interface ServeOptions {
  /** `streamBufferSize` of every request handler. */
  readonly streamBufferSize?: number;
  readonly logger?: Logger;
  /** Options of the node adapter. */
  readonly http?: Partial<Omit<A2ANodeServerOptions, 'agents'>>;
}

/** A request as the server saw it, found by the tag header the test sent. */
export interface ServerSideRequest {
  /** Resolves when the server's side of the response is closed (finished or client gone). */
  readonly closed: Promise<void>;
  /** How many times the server had to wait for the client to drain the response. */
  readonly drains: number;
}

export interface E2EServer {
  readonly url: string;
  /** The first agent's JSON-RPC endpoint. */
  readonly agent: AgentEndpoint;
  /** The JSON-RPC endpoint of the agent mounted at `path`. */
  endpoint(path: string): AgentEndpoint;
  /** Resolves once a request sent with `tag` has reached the server. */
  request(tag: string): Promise<ServerSideRequest>;
  readonly node: A2ANodeServer;
}

export interface E2EEnv {
  readonly storeName: StoreName;
  /**
   * How many times the runtime read a task's event log from the store: a stream reads it only
   * when it must catch up (it fell behind, or resumes), so this shows which path a stream took.
   */
  logReads(taskId: string): number;
  /** What the runtime of this block logged (agent failures among others). */
  readonly logs: readonly LogEntry[];
  /**
   * Serves `agent` (at the root) or several mounted agents, until the end of the test — or of
   * the block, when called from a `beforeAll` hook.
   */
  serve(
    agent: AgentDefinition | readonly AgentMountSpec[],
    options?: ServeOptions,
  ): Promise<E2EServer>;
}

/**
 * Runs `body` once per store (memory, SQLite, PostgreSQL). The PostgreSQL block is reported as a
 * skipped test naming the missing variable when `TANDEM_TEST_POSTGRES_URL` is unset.
 */
export function describeStores(title: string, body: (env: E2EEnv) => void): void {
  describe.each(STORE_NAMES)(`${title} [%s store]`, (name) => {
    if (!isStoreAvailable(name)) {
      it.skip(POSTGRES_SKIP_REASON, () => undefined);
      return;
    }
    body(useStore(name));
  });
}

/** Registers the hooks that open `name` for the current block and returns its environment. */
export function useStore(name: StoreName): E2EEnv {
  let opened: OpenedStore | undefined;
  let runtime: TaskRuntime | undefined;
  const testServers: A2ANodeServer[] = [];
  const blockServers: A2ANodeServer[] = [];
  let inTest = false;
  const logReads = new Map<string, number>();
  const logger = recordingLogger();

  beforeAll(async () => {
    opened = await openStore(name);
    runtime = createTaskRuntime({
      store: countingLogReads(opened.store, logReads),
      logger,
    });
    await runtime.start();
  });

  beforeEach(() => {
    inTest = true;
  });

  afterEach(async () => {
    inTest = false;
    await shutdownAll(testServers);
  });

  afterAll(async () => {
    await shutdownAll(blockServers);
    await runtime?.close();
    await opened?.dispose();
  });

  return {
    storeName: name,
    logReads: (taskId) => logReads.get(taskId) ?? 0,
    logs: logger.entries,
    async serve(agent, options = {}) {
      if (runtime === undefined) throw new Error('serve() is only available inside tests');
      const mounts = isAgentDefinition(agent) ? [{ path: '', agent }] : agent;
      const shared = runtime;
      const node = createNodeServer({
        ...options.http,
        ...(options.logger === undefined ? {} : { logger: options.logger }),
        agents: mounts.map((mount) => ({
          path: mount.path,
          handler: createRequestHandler({
            agent: mount.agent,
            runtime: shared,
            // A namespace per server: every test sees only its own tasks in a shared store.
            agentName: `${mount.agent.card.name}/${crypto.randomUUID()}`,
            ...(options.streamBufferSize === undefined
              ? {}
              : { streamBufferSize: options.streamBufferSize }),
            ...(options.logger === undefined ? {} : { logger: options.logger }),
          }),
        })),
      });
      (inTest ? testServers : blockServers).push(node);
      const tagged = trackTaggedRequests(node);
      const { url } = await node.listen({ port: 0, host: '127.0.0.1' });
      const endpoint = (path: string): AgentEndpoint => new AgentEndpoint(`${url}${path}/a2a`);
      return {
        url,
        node,
        agent: endpoint(mounts[0]?.path ?? ''),
        endpoint,
        request: tagged,
      };
    },
  };
}

async function shutdownAll(servers: A2ANodeServer[]): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.shutdown({ deadlineMs: 500 })));
}

/**
 * The store itself, with `readEvents` calls counted per task. Everything else passes through
 * untouched (methods stay bound to the real store, whose private fields a proxy cannot reach).
 */
function countingLogReads(store: TaskStore, counts: Map<string, number>): TaskStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'readEvents') return (value as (...args: unknown[]) => unknown).bind(target);
      const readEvents = target.readEvents.bind(target);
      return (...args: Parameters<TaskStore['readEvents']>) => {
        counts.set(args[0], (counts.get(args[0]) ?? 0) + 1);
        return readEvents(...args);
      };
    },
  });
}

function isAgentDefinition(value: unknown): value is AgentDefinition {
  return typeof value === 'object' && value !== null && 'execute' in value && 'card' in value;
}

/** Watches the server's requests for the tag header, to observe their responses' lifecycle. */
function trackTaggedRequests(node: A2ANodeServer): (tag: string) => Promise<ServerSideRequest> {
  const seen = new Map<string, Deferred<ServerSideRequest>>();
  const entry = (tag: string): Deferred<ServerSideRequest> => {
    let found = seen.get(tag);
    if (found === undefined) {
      found = deferred<ServerSideRequest>();
      seen.set(tag, found);
    }
    return found;
  };
  node.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tag = req.headers[TAG_HEADER];
    if (typeof tag !== 'string') return;
    let drains = 0;
    res.on('drain', () => drains++);
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    entry(tag).resolve({
      closed,
      get drains() {
        return drains;
      },
    });
  });
  return (tag) => entry(tag).promise;
}

/** One log call, as a {@link recordingLogger} keeps it. */
export interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly context: object;
  readonly message: string | undefined;
}

/** A logger that keeps what it is given, for tests that check what reaches the log. */
export function recordingLogger(): Logger & { readonly entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (context: object, message?: string): void => {
      entries.push({ level, context, message });
    };
  const logger = {
    entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}
