/**
 * The `TaskStore` seam: where tasks live. A store holds, for every task, an append-only event log
 * (the `StreamResponse` events with their sequence numbers) and a projection of the task as
 * `GetTask` returns it (status, history, artifacts), both updated by one atomic {@link
 * TaskStore.append}. The runtime is the only writer; stores never interpret A2A semantics beyond
 * applying the {@link TaskMutation}s they are given.
 *
 * The interface is asynchronous and shaped for SQL: every task carries its scope (agent, tenant,
 * owner) and reads are scoped by it; listing is a keyset page pushed down to the store; appends
 * are conditional on the writer's last seen sequence number, so a concurrent writer can never
 * overwrite newer state.
 */

import type {
  Artifact,
  Message,
  StreamResponse,
  Task,
  TaskState,
  TaskStatus,
} from '../protocol/generated/types.js';

/** Who may see a task: the agent that owns it, the tenant and the principal that created it. */
export interface TaskScope {
  readonly agent: string;
  readonly tenant: string;
  readonly owner: string;
}

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

/** A change to a task's projection. The runtime derives these from the events it appends. */
export type TaskMutation =
  /** Replace the status (state, message, timestamp). */
  | { readonly kind: 'status'; readonly status: TaskStatus }
  /** Append a message to the history. */
  | { readonly kind: 'history'; readonly message: Message }
  /**
   * Add an artifact, or update the one with the same id: with `append`, its parts are appended
   * and any name, description, metadata or extensions given replace the old ones; without, the
   * artifact is replaced whole.
   */
  | { readonly kind: 'artifact'; readonly artifact: Artifact; readonly append: boolean };

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
  /** Lease the new task to this holder (see {@link TaskStore.acquireLease}). */
  readonly leaseHolder?: string;
  readonly leaseMs?: number;
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

/** How much of a task to return. */
export interface TaskViewOptions {
  /** Unset: the whole history; 0: no `history` field; n: the n most recent messages. */
  readonly historyLength?: number;
  /** `false` omits the `artifacts` field entirely. Defaults to `true`. */
  readonly includeArtifacts?: boolean;
}

/** A task as stored: its projection and the sequence number of its last event. */
export interface StoredTask {
  readonly task: Task;
  readonly seq: number;
  readonly state: TaskState;
  /** `JSON.stringify(task)`, when the store has it at hand (e.g. a finished task kept as JSON). */
  readonly json?: string;
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

/** Where tasks live. See the module documentation for the contract. */
export interface TaskStore {
  /**
   * True when appends (and creations) called one after another without waiting are applied in
   * the order of the calls, and no other process writes the store's tasks: a writer may then
   * send its next append before the previous one settles. Stores that batch their commits (see
   * the SQLite store) set it so that a task's consecutive changes share a commit.
   */
  readonly appliesWritesInOrder?: boolean;
  /**
   * Creates a task with its first events, leased to `request.leaseHolder` when given. Rejects if
   * the id exists.
   */
  createTask(request: CreateTaskRequest): Promise<void>;
  /**
   * Appends events and applies mutations atomically, if and only if the task's last sequence
   * number is `expectedSeq`.
   */
  append(request: AppendRequest): Promise<AppendResult>;
  /** Reads a task visible in `scope`, or `undefined`. */
  getTask(
    scope: TaskScope,
    taskId: string,
    view?: TaskViewOptions,
  ): Promise<StoredTask | undefined>;
  /** Lists the tasks visible in `scope`, newest status first. */
  listTasks(scope: TaskScope, query: TaskListQuery): Promise<TaskListPage>;
  /**
   * Reads up to `limit` log entries with seq greater than `afterSeq`, in order. The caller has
   * already checked that the task is visible to it. `undefined` when the task is unknown or its
   * log is no longer retained (a memory store compacts the logs of tasks finished long ago).
   */
  readEvents(taskId: string, afterSeq: number, limit: number): Promise<TaskLogEntry[] | undefined>;
  /**
   * Leases: a task being executed is leased to the process (holder) running it, until the lease
   * expires unless renewed. A lease held by another live holder is never taken over. Returns
   * whether `holder` now holds the lease.
   */
  acquireLease(taskId: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Extends every lease `holder` holds (its heartbeat). */
  renewLeases(holder: string, leaseMs: number): Promise<void>;
  /** Gives up the lease of a task, when its execution has ended or is interrupted. */
  releaseLease(taskId: string, holder: string): Promise<void>;
  /**
   * Tasks in `SUBMITTED` or `WORKING` whose lease has expired, or that have none, at most
   * `limit` of them: their process died. The caller fails them through `append`. With
   * `ignoreLeases`, every such task is returned whatever its lease: a process that is the store's
   * only user (memory, SQLite) calls it so at start-up, when no earlier execution can be alive.
   */
  findOrphanedTasks(limit: number, options?: { ignoreLeases?: boolean }): Promise<OrphanedTask[]>;
  /**
   * Deletes up to `limit` tasks (with their logs) that reached a terminal state before
   * `terminalBefore` (epoch ms). Returns how many were deleted; call again until it returns less
   * than `limit`.
   */
  purgeTerminalTasks(terminalBefore: number, limit: number): Promise<number>;
  /**
   * Stores shared by several processes announce appends made elsewhere. Absent for stores used
   * by one process only. Resolves to the function that stops listening.
   */
  listenForChanges?(listener: TaskChangeListener): Promise<() => Promise<void>>;
  /** Releases resources (connections, file handles). */
  close(): Promise<void>;
}
