/**
 * The environment of the behaviour suite: `describeBehaviour` runs a block once per binding ×
 * store; each block opens its store and a runtime over it once, and every test serves the agents
 * it defines on servers of its own (shut down after it; servers started in a `beforeAll` hook
 * live as long as the block). Each server gets a namespace of its own in the shared store.
 */

import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  createPushNotifier,
  createTaskRuntime,
  type A2ANodeServer,
  type PushNotifier,
  type PushNotifierOptions,
  type AgentDefinition,
  type TaskRuntime,
} from '../../src/server.js';
import type { TaskStore } from '../../src/stores.js';
import {
  startInProcessServer,
  type AgentMount,
  type InProcessServer,
  type ServeOptions,
} from './in-process-server.js';
import { describeMatrix, type Axis } from './matrix.js';
import { recordingLogger, type LogEntry } from './recording-logger.js';
import { openStore, type OpenedStore } from './stores.js';

export interface BehaviourEnv extends Axis {
  /**
   * How many times the runtime read a task's event log from the store: a stream reads it only
   * when it must catch up (it fell behind, or resumes), so this shows which path a stream took.
   */
  logReads(taskId: string): number;
  /** The store of this block (inside tests), e.g. to run its retention. */
  readonly taskStore: TaskStore;
  /** What the runtime of this block logged (agent failures among others). */
  readonly logs: readonly LogEntry[];
  /** Resolves with the first entry (logged so far or later) that `matches` accepts. */
  nextLog(matches: (entry: LogEntry) => boolean): Promise<LogEntry>;
  /**
   * The push notifications of this block's runtime (made on first use, closed after the block):
   * webhooks on 127.0.0.1 admitted, retries fast. Pass it to `serve` as `{ push }`.
   */
  push(options?: Omit<PushNotifierOptions, 'runtime'>): PushNotifier;
  /** Serves `agent` (at the root) or several mounted agents. */
  serve(
    agent: AgentDefinition | readonly AgentMount[],
    options?: ServeOptions,
  ): Promise<InProcessServer>;
}

/** Runs `body` once per binding × store with its {@link BehaviourEnv}. */
export function describeBehaviour(title: string, body: (env: BehaviourEnv) => void): void {
  describeMatrix(title, (axis) => body(useBehaviourEnv(axis)));
}

/** Registers the hooks that open the axis's store for the current block. */
export function useBehaviourEnv(axis: Axis): BehaviourEnv {
  let opened: OpenedStore | undefined;
  let runtime: TaskRuntime | undefined;
  const testServers: A2ANodeServer[] = [];
  const blockServers: A2ANodeServer[] = [];
  let inTest = false;
  const logReads = new Map<string, number>();
  const logger = recordingLogger();
  let notifier: PushNotifier | undefined;

  beforeAll(async () => {
    opened = await openStore(axis.store);
    runtime = createTaskRuntime({ store: countingLogReads(opened.store, logReads), logger });
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
    await notifier?.close();
    await runtime?.close();
    await opened?.dispose();
  });

  return {
    ...axis,
    logReads: (taskId) => logReads.get(taskId) ?? 0,
    get taskStore() {
      if (opened === undefined) throw new Error('taskStore is only available inside tests');
      return opened.store;
    },
    logs: logger.entries,
    nextLog: (matches) => logger.next(matches),
    push(options = {}) {
      if (runtime === undefined) throw new Error('push() is only available inside tests');
      notifier ??= createPushNotifier({
        allow: ['127.0.0.1'],
        retry: { baseMs: 20, maxMs: 200, failingAfter: 50, probeMs: 1_000 },
        scanMs: 100,
        ...options,
        runtime,
      });
      return notifier;
    },
    serve(agent, options = {}) {
      if (runtime === undefined) throw new Error('serve() is only available inside tests');
      return startInProcessServer({
        ...options,
        binding: axis.binding,
        runtime,
        mounts: isAgentDefinition(agent) ? [{ path: '', agent }] : agent,
        isolate: true,
        track: (node) => (inTest ? testServers : blockServers).push(node),
      });
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
