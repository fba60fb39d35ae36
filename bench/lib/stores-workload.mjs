/**
 * What the store benchmark writes, written the way the runtime writes it: the same change
 * builders (`task-changes.js`), the same lazily serialized log entries (`stream-event.js`), the
 * same order of store calls as `TaskRun` and `TaskRuntime` — create with the `Task` snapshot,
 * the agent's first change and a lease (`task-creation.js`), one conditional append per change
 * (sent without waiting for the creation on a store that pipelines, as `PipelinedWriter` does),
 * release the lease at the end. A store measured here sees exactly the calls a server would make
 * for the same agent.
 */

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './targets.mjs';

/**
 * The Tandem build under test: `dist/` of this checkout, or another build named by
 * `TANDEM_BENCH_DIST` (as for `bench/run.mjs`).
 */
export const DIST = process.env.TANDEM_BENCH_DIST || join(ROOT, 'dist');

/** The memory store's module in a build (`stores/memory/` since the stores got a folder each). */
export const MEMORY_STORE_MODULE = existsSync(join(DIST, 'stores/memory/memory-task-store.js'))
  ? 'stores/memory/memory-task-store.js'
  : 'stores/memory-task-store.js';

function distModule(path) {
  return import(pathToFileURL(join(DIST, path)).href);
}

/**
 * The built runtime pieces the workload needs, and the store classes (a driver is loaded only
 * for the store asked for).
 * @param {'memory' | 'sqlite' | 'postgres'} store
 */
export async function loadTandem(store) {
  const [{ streamEvent }, { artifactChange, statusChange }, creation] = await Promise.all([
    distModule('runtime/stream-event.js'),
    distModule('runtime/task-changes.js'),
    distModule('runtime/task-creation.js'),
  ]);
  const modules = { streamEvent, artifactChange, statusChange, creation };
  switch (store) {
    case 'memory':
      return { ...modules, ...(await distModule(MEMORY_STORE_MODULE)) };
    case 'sqlite':
      return { ...modules, ...(await distModule('stores/sqlite/sqlite-task-store.js')) };
    case 'postgres':
      return { ...modules, ...(await distModule('stores/postgres/postgres-task-store.js')) };
  }
  throw new Error(`unknown store ${store}`);
}

/** The scope of every task: the echo agent's card name, no tenant, the anonymous principal. */
export const SCOPE = Object.freeze({ agent: 'Echo', tenant: '', owner: 'anonymous' });

/** The lease the runtime creates tasks with (`orphanTimeoutMs` 30 s × 0.8). */
const LEASE_MS = 24_000;

/**
 * Writes tasks into one store as the runtime does, for one holder (one "process").
 * @param {object} tandem what {@link loadTandem} returned
 * @param {import('../../dist/stores/task-store.js').TaskStore} store
 */
export function createWriter(tandem, store, holder = crypto.randomUUID()) {
  const { streamEvent, artifactChange, statusChange } = tandem;

  /** One conditional append of a change; resolves to the new seq, or throws if refused. */
  async function apply(taskId, seq, change) {
    const result = await store.append({
      taskId,
      expectedSeq: seq,
      events: [streamEvent(seq + 1, change.payload)],
      mutations: change.mutations,
    });
    if (!result.ok) {
      throw new Error(`append to ${taskId} at seq ${seq} refused (store at ${result.currentSeq})`);
    }
    return result.seq;
  }

  /** Creates a task in SUBMITTED with the user's message, leased to this holder. */
  async function create(contextId, text) {
    const taskId = crypto.randomUUID();
    const message = {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ text }],
      taskId,
      contextId,
    };
    const task = {
      id: taskId,
      contextId,
      status: { state: 'TASK_STATE_SUBMITTED', timestamp: new Date().toISOString() },
      history: [message],
    };
    await store.createTask({
      scope: SCOPE,
      task,
      events: [streamEvent(1, { task })],
      leaseHolder: holder,
      leaseMs: LEASE_MS,
    });
    return taskId;
  }

  return {
    holder,

    /**
     * The echo agent's task for `echo <text>`: the user message, one artifact with one text
     * part, COMPLETED; then the lease is released (`TaskRuntime.end`).
     */
    async echoTask(contextId, text = 'hi') {
      const taskId = crypto.randomUUID();
      const message = {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ text: `echo ${text}` }],
        taskId,
        contextId,
      };
      const { submittedTask, taskCreation, createTaskRequest } = tandem.creation;
      const artifact = { artifactId: crypto.randomUUID(), parts: [{ text }] };
      // The agent's first change (its artifact) goes with the creation, as TaskRun.createWith
      // writes it; the COMPLETED status follows at once on a pipelined store, else after it.
      const first = artifactChange(
        taskId,
        contextId,
        'TASK_STATE_SUBMITTED',
        artifact,
        false,
        false,
      );
      const made = taskCreation(submittedTask(taskId, contextId, message), first);
      const request = createTaskRequest(
        { scope: SCOPE, pushConfigs: [], lease: { holder, ms: LEASE_MS } },
        made,
      );
      const created = store.createTask(request);
      if (!store.pipelinedAppends) await created;
      const done = apply(
        taskId,
        made.events.length,
        statusChange(taskId, contextId, 'TASK_STATE_COMPLETED', undefined),
      );
      await Promise.all([created, done]);
      await store.leases.release(taskId, holder);
      return taskId;
    },

    /**
     * A streaming task as `stream <n> <bytes>` starts it: created, then WORKING. Returns the
     * stream whose `append()` writes the next chunk of its one artifact.
     */
    async streamingTask(contextId, chunkBytes) {
      const taskId = await create(contextId, `stream 100000 ${chunkBytes}`);
      let seq = await apply(
        taskId,
        1,
        statusChange(taskId, contextId, 'TASK_STATE_WORKING', undefined),
      );
      const text = 'x'.repeat(chunkBytes);
      const artifactId = crypto.randomUUID();
      let chunks = 0;
      return {
        taskId,
        get seq() {
          return seq;
        },
        get chunks() {
          return chunks;
        },
        /** The change and log entry of the next chunk, built before the store is called. */
        nextChunk() {
          const first = chunks === 0;
          // A fresh part per chunk, as the runtime's validation copies what the agent passes.
          const artifact = { artifactId, parts: [{ text }] };
          const change = artifactChange(
            taskId,
            contextId,
            'TASK_STATE_WORKING',
            artifact,
            !first,
            false,
          );
          return {
            taskId,
            expectedSeq: seq,
            events: [streamEvent(seq + 1, change.payload)],
            mutations: change.mutations,
          };
        },
        /** Appends a request made by `nextChunk()`. */
        async append(request) {
          const result = await store.append(request);
          if (!result.ok) {
            throw new Error(`chunk append to ${taskId} at seq ${seq} refused`);
          }
          seq = result.seq;
          chunks++;
          return request.events[0];
        },
        async complete() {
          seq = await apply(
            taskId,
            seq,
            statusChange(taskId, contextId, 'TASK_STATE_COMPLETED', undefined),
          );
          await store.leases.release(taskId, holder);
        },
      };
    },
  };
}
