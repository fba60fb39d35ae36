/**
 * The task store seam: where tasks live, and the only part of `src/stores` the runtime sees. A
 * store holds, for every task, an append-only event log (the `StreamResponse` events with their
 * sequence numbers) and a projection of the task as `GetTask` returns it (status, history,
 * artifacts), both updated by one atomic {@link TaskStore.append}. The runtime is the only
 * writer; stores never interpret A2A semantics beyond applying the {@link TaskMutation}s they are
 * given, as `protocol/task-projection.ts` defines them.
 *
 * The seam is asynchronous and shaped for SQL: every task carries its scope (agent, tenant,
 * owner) and reads are scoped by it; listing is a keyset page pushed down to the store; appends
 * are conditional on the writer's last seen sequence number, so a concurrent writer can never
 * overwrite newer state.
 *
 * A store is its task log ({@link TaskStore}: create, append, read, list) plus narrower parts,
 * each its own object so that a concern can grow without widening the others:
 * - {@link TaskStore.leases} — which process runs which task, and the tasks whose process died;
 * - {@link TaskStore.retention} — the purge of finished tasks;
 * - {@link TaskStore.changeFeed} — only on a store shared by several processes: the appends made
 *   by the others;
 * - {@link TaskStore.push} — the push notification configs of each task (scoped to its owner and
 *   tenant like the task, and deleted with it) and their delivery state; the outbox of pending
 *   deliveries is the event log after each config's delivered position, so an event and its
 *   deliveries are stored together or not at all (see `push-store.ts`).
 *
 * What the runtime does with a store follows from two declarations, never from its shape:
 * {@link TaskStore.topology} (one process, or several) and {@link TaskStore.pipelinedAppends}.
 *
 * @example A store plugs into the runtime, which every agent served from it shares:
 * ```ts
 * const store = new MemoryTaskStore(); // or SqliteTaskStore.open(...), PostgresTaskStore.open(...)
 * const runtime = createTaskRuntime({ store });
 * await runtime.start();
 * const handler = createRequestHandler({ agent, runtime });
 * ```
 */

import type { StreamResponse, Task, TaskState } from '../protocol/generated/types.js';
import type { TaskMutation, TaskViewOptions } from '../protocol/task-projection.js';
import type { TaskTraceContext } from '../telemetry/task-trace-context.js';
import type { PushConfigRecord, TaskPushStore } from './push-store.js';
import type { TaskReadScope, TaskScope } from './task-scope.js';

/** A push config as stored; part of a task creation when given with the message (see `push-store.ts`). */
export type { PushConfigRecord } from './push-store.js';
export type { TaskReadScope, TaskScope } from './task-scope.js';
export type { TaskTraceContext } from '../telemetry/task-trace-context.js';

export type { TaskMutation, TaskViewOptions } from '../protocol/task-projection.js';

/** One entry of a task's event log. */
export interface TaskLogEntry {
  /** 1 for the task's first event, then +1 per event. */
  readonly seq: number;
  readonly payload: StreamResponse;
  /**
   * `JSON.stringify(payload)`. A store of text persists this string and hands it back unchanged,
   * never re-serializing; the memory store keeps payloads only and serializes them again when
   * they are read back.
   */
  readonly json: string;
}

/**
 * What to create: a task's first events and its projection after them. A runtime that already
 * has the first change of a new task writes it with the task, in one write instead of two.
 */
export interface CreateTaskRequest {
  readonly scope: TaskScope;
  /** The projection after `events`; `status.timestamp` is required. */
  readonly task: Task;
  /** The task's first log entries, seq 1, 2, ...: at least one, the `Task` snapshot. */
  readonly events: readonly TaskLogEntry[];
  /** Lease the new task to this holder (see {@link TaskLeases.acquire}). */
  readonly leaseHolder?: string;
  readonly leaseMs?: number;
  /**
   * Push configs stored with the task, in the same write (a store with `push` only), each
   * delivered every event from the first: a crash cannot leave the task without them. Their ids
   * must differ; a config the store refuses refuses the whole creation.
   */
  readonly pushConfigs?: readonly PushConfigRecord[];
  /**
   * The trace context the task was created in, kept with it and handed back by reads
   * ({@link StoredTask.traceContext}); never part of the task a caller sees. Absent when the
   * creating call was not traced.
   */
  readonly traceContext?: TaskTraceContext;
}

/** An atomic, conditional write of events and the projection changes they cause. */
export interface AppendRequest {
  readonly taskId: string;
  /** The sequence number of the last event the writer knows; the write fails if it is stale. */
  readonly expectedSeq: number;
  /** Entries with seq `expectedSeq + 1`, `+ 2`, ...; may be empty for a projection-only change. */
  readonly events: readonly TaskLogEntry[];
  readonly mutations: readonly TaskMutation[];
}

/** The outcome of an append: written, or refused because the task moved on (or is gone). */
export type AppendResult =
  | { readonly ok: true; readonly seq: number }
  | { readonly ok: false; readonly currentSeq: number | undefined };

/** A task as stored: its projection and the sequence number of its last event. */
export interface StoredTask {
  readonly task: Task;
  readonly seq: number;
  readonly state: TaskState;
  /** `JSON.stringify(task)`, when the store has it at hand (e.g. a finished task kept as JSON). */
  readonly json?: string;
  /** The trace context the task was created with ({@link CreateTaskRequest.traceContext}). */
  readonly traceContext?: TaskTraceContext;
}

/** Position in the listing order: status time descending, then id descending. */
export interface TaskListCursor {
  /** Epoch milliseconds of the status timestamp of the last task of the previous page. */
  readonly statusTime: number;
  readonly id: string;
}

/** A ListTasks query, already validated. */
export interface TaskListQuery extends TaskViewOptions {
  readonly contextId?: string;
  readonly state?: TaskState;
  /** Only tasks whose status time is at or after this instant (epoch ms). */
  readonly statusTimeFrom?: number;
  readonly pageSize: number;
  /** Continue after this position; the first page when absent. */
  readonly after?: TaskListCursor;
  /**
   * Count the matching tasks (`totalSize`). Default true. Counting costs O(matching tasks), so
   * later pages of a listing reuse the first page's count instead.
   */
  readonly countTotal?: boolean;
}

/** One page of tasks. */
export interface TaskListPage {
  readonly tasks: Task[];
  /** Number of tasks matching the filters, across all pages; absent when not counted. */
  readonly totalSize?: number;
  /** Where the next page starts; absent on the last page. */
  readonly next?: TaskListCursor;
}

/** A task whose execution holder is gone: running (or about to run) but with no live lease. */
export interface OrphanedTask {
  readonly scope: TaskScope;
  readonly taskId: string;
  readonly contextId: string;
  readonly seq: number;
  readonly state: TaskState;
}

/**
 * Receives, from other processes sharing the store, the news that a task has new events. It
 * carries a pointer only (task id and last sequence number); readers fetch the events from the
 * log.
 */
export interface TaskChangeListener {
  onChange(taskId: string, seq: number): void;
  /**
   * Announcements may have been missed (the feed's connection dropped and came back): whatever
   * the listener follows should be re-read from the store.
   */
  onResync(): void;
}

/** Extends the leases of a holder, finds the tasks of dead holders: see {@link TaskStore.leases}. */
export interface TaskLeases {
  /**
   * Leases a task to `holder` for `leaseMs`, if it is free, expired or already `holder`'s: a
   * lease held by another live holder is never taken over. Returns whether `holder` now holds it.
   */
  acquire(taskId: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Extends every lease `holder` holds to `leaseMs` from now (its heartbeat). */
  renew(holder: string, leaseMs: number): Promise<void>;
  /** Gives up the lease of a task, if `holder` holds it. */
  release(taskId: string, holder: string): Promise<void>;
  /**
   * Up to `limit` tasks in an active state (`SUBMITTED`, `WORKING`) whose lease has expired or
   * that have none: their process died. The caller fails them through `append`. With
   * `ignoreLeases`, every active task is returned whatever its lease: a process alone with an
   * exclusive store calls it so at start-up, when no earlier execution can be alive.
   */
  findOrphans(limit: number, options?: { ignoreLeases?: boolean }): Promise<OrphanedTask[]>;
}

/** The purge of finished tasks: see {@link TaskStore.retention}. */
export interface TaskRetention {
  /**
   * Deletes up to `limit` tasks (with their logs) that reached a terminal state before
   * `terminalBefore` (epoch ms). Returns how many were deleted; call again until it returns less
   * than `limit`.
   */
  purgeTerminalTasks(terminalBefore: number, limit: number): Promise<number>;
}

/** The appends made by the other processes sharing a store: see {@link TaskStore.changeFeed}. */
export interface TaskChangeFeed {
  /**
   * Calls `listener` for every append committed to the store by any process (this one
   * included) from the moment the promise resolves. Resolves to the function that stops it.
   */
  listen(listener: TaskChangeListener): Promise<() => Promise<void>>;
}

/**
 * Who uses a store: `'exclusive'` — one process, the only one that can run its tasks (memory, a
 * SQLite file, which it locks); `'shared'` — several processes (replicas) at once (PostgreSQL).
 */
export type TaskStoreTopology = 'exclusive' | 'shared';

/**
 * Where tasks live: the task log and projection, and the parts described in the module
 * documentation. The contract the runtime relies on is held by the store contract suite
 * (`test/stores/task-store-contract.ts`), which every store passes.
 */
export interface TaskStore {
  /**
   * `'exclusive'`: no other process writes the store's tasks. The runtime then takes no leases
   * (nothing else could run a task), and at start-up fails every task left active, which only a
   * dead predecessor can have left. `'shared'`: tasks run in several processes; the runtime
   * leases each task to the process running it, renews the leases, fails the tasks of processes
   * whose leases expired, and follows the {@link changeFeed}, which a shared store must have.
   */
  readonly topology: TaskStoreTopology;
  /**
   * True when creations and appends called one after another, without waiting for the previous
   * one to settle, are applied in the order of the calls. A task's writer then sends its next
   * change before the previous one is committed, so that consecutive changes share a commit (the
   * SQLite store batches the writes of one event-loop turn). An append refused because the task
   * moved on is retried after a reload, in order, either way.
   */
  readonly pipelinedAppends: boolean;
  /**
   * Creates a task with its first events, leased to `request.leaseHolder` when given. Rejects
   * with `TaskExistsError` if the id exists (in any scope), and with `InvalidTaskWriteError` if
   * the events are not numbered 1, 2, ... or the status has no valid timestamp.
   */
  createTask(request: CreateTaskRequest): Promise<void>;
  /**
   * Appends events and applies mutations atomically, if and only if the task's last sequence
   * number is `expectedSeq`; otherwise (or for an unknown task) resolves `{ ok: false }` and
   * changes nothing. Rejects with `InvalidTaskWriteError`, changing nothing, if the events do
   * not continue the log or a status has no valid timestamp.
   */
  append(request: AppendRequest): Promise<AppendResult>;
  /** Reads a task visible in `scope`, or `undefined`. */
  getTask(
    scope: TaskReadScope,
    taskId: string,
    view?: TaskViewOptions,
  ): Promise<StoredTask | undefined>;
  /** Lists the tasks visible in `scope`, newest status first. */
  listTasks(scope: TaskReadScope, query: TaskListQuery): Promise<TaskListPage>;
  /**
   * Reads up to `limit` log entries with seq greater than `afterSeq`, in order. The caller has
   * already checked that the task is visible to it. `undefined` when the task is unknown or its
   * log is no longer retained (a memory store compacts the logs of tasks finished long ago).
   */
  readEvents(taskId: string, afterSeq: number, limit: number): Promise<TaskLogEntry[] | undefined>;
  /**
   * Leases of running tasks. On an exclusive store the runtime takes none; it only looks for
   * the tasks left active, at start-up.
   */
  readonly leases: TaskLeases;
  readonly retention: TaskRetention;
  /** Present exactly when {@link topology} is `'shared'`. */
  readonly changeFeed?: TaskChangeFeed;
  /** Push notification configs and their deliveries; absent on a store that cannot keep them. */
  readonly push?: TaskPushStore;
  /** Releases resources (connections, file handles). */
  close(): Promise<void>;
}
