/**
 * A {@link TaskStore} in process memory: nothing survives a restart. The default for tests, the
 * benchmark and embedding; `tandem serve` defaults to SQLite instead.
 *
 * Memory stays proportional to what is worth keeping. A live task keeps its projection as objects
 * and its whole event log (payloads; their JSON is made again if a stream reads them back). A
 * finished task keeps its log while it is among the `retainedLogs` most recently finished ones
 * (so that streams can resume with `Last-Event-ID` after the end); after that it is compacted to
 * the JSON of its final projection — a few hundred bytes — and its log is gone (`readEvents`
 * answers `undefined`).
 */

import type { Task } from '../../protocol/generated/types.js';
import { asError, TaskExistsError } from '../../protocol/local-errors.js';
import { LazyJsonEvent } from '../../protocol/lazy-json-event.js';
import { applyMutation } from '../../protocol/task-projection.js';
import { isTerminalState } from '../../protocol/task-state.js';
import { TaskOrderIndex } from './task-order-index.js';
import { MemoryPushConfigs, type MemoryTaskPosition } from './memory-push-configs.js';
import { memoryTaskLeases } from './memory-task-leases.js';
import { newTaskConfigsProblem } from '../push-store.js';
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  StoredTask,
  TaskLeases,
  TaskListCursor,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  TaskReadScope,
  TaskRetention,
  TaskScope,
  TaskStore,
  TaskViewOptions,
} from '../task-store.js';
import { artifactWithParts } from '../../protocol/copies.js';
import { createEventsProblem, lastSeqOf, statusTimeOrError } from '../task-log.js';
import {
  compactEntry,
  isFullView,
  projectionJson,
  stateOf,
  viewOf,
  type LiveTask,
  type StoredEntry,
} from './memory-task-entries.js';

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /**
   * How many of the most recently finished tasks keep their event log (for streams resuming with
   * `Last-Event-ID` after the end). Default 100: kept short so that a finished task's objects
   * die young instead of being promoted and collected later at a much higher cost.
   */
  readonly retainedLogs?: number | undefined;
}

/** An in-memory task store. Operations complete synchronously; promises are already settled. */
export class MemoryTaskStore implements TaskStore {
  /** The store lives in this process's memory: nothing else can reach it. */
  readonly topology = 'exclusive';
  /** Every write is applied during its call. */
  readonly pipelinedAppends = true;
  readonly retention: TaskRetention = {
    purgeTerminalTasks: (terminalBefore, limit) => this.#purge(terminalBefore, limit),
  };
  /** Push configs; a finished task keeps its log until every config has received it. */
  readonly push: MemoryPushConfigs = new MemoryPushConfigs({
    visible: (scope, taskId) => positionOf(this.#visible(scope, taskId)),
    any: (taskId) => positionOf(this.#tasks.get(taskId)),
    drained: (taskId) => {
      if (this.#heldForPush.delete(taskId)) this.#compact(taskId);
    },
  });
  /** Finished tasks past the retained logs whose compaction waits for their push deliveries. */
  readonly #heldForPush = new Set<string>();
  readonly #tasks = new Map<string, StoredEntry>();
  readonly leases: TaskLeases = memoryTaskLeases(this.#tasks);
  readonly #indexes = new Map<string, TaskOrderIndex<StoredEntry>>();
  readonly #scopes = new Map<string, TaskScope>();
  readonly #interned = new WeakMap<TaskScope, { scope: TaskScope; scopeKey: string }>();
  readonly #finished: string[] = [];
  #finishedHead = 0;
  readonly #retainedLogs: number;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#retainedLogs = Math.max(0, options.retainedLogs ?? 100);
  }

  #indexOf(scopeKey: string): TaskOrderIndex<StoredEntry> {
    let index = this.#indexes.get(scopeKey);
    if (index === undefined) {
      index = new TaskOrderIndex<StoredEntry>();
      this.#indexes.set(scopeKey, index);
    }
    return index;
  }

  /** One scope object per distinct scope, shared by its tasks. */
  #intern(scope: TaskScope): { scope: TaskScope; scopeKey: string } {
    // The runtime passes the same scope object again and again (see `TaskScope`): recognised by
    // identity, it costs no key string; any other equal scope maps to the same shared one.
    const known = this.#interned.get(scope);
    if (known !== undefined) return known;
    const scopeKey = `${scope.agent}\u0000${scope.tenant}\u0000${scope.owner}`;
    let shared = this.#scopes.get(scopeKey);
    if (shared === undefined) {
      shared = { agent: scope.agent, tenant: scope.tenant, owner: scope.owner };
      this.#scopes.set(scopeKey, shared);
    }
    const interned = { scope: shared, scopeKey };
    this.#interned.set(scope, interned);
    return interned;
  }

  #visible(scope: TaskReadScope, taskId: string): StoredEntry | undefined {
    const entry = this.#tasks.get(taskId);
    if (entry === undefined) return undefined;
    const { scope: s } = entry;
    return s.agent === scope.agent &&
      s.tenant === scope.tenant &&
      (scope.owner === null || s.owner === scope.owner)
      ? entry
      : undefined;
  }

  /**
   * The tasks of `scope` newest first, after `after`: one index, or — for every owner — the
   * indexes of every owner merged (O(n log n) in the tenant's tasks: an operator's listing).
   */
  *#descending(scope: TaskReadScope, after?: TaskListCursor): Iterable<StoredEntry> {
    if (scope.owner !== null) {
      const index = this.#indexes.get(this.#intern(scope as TaskScope).scopeKey);
      if (index !== undefined) yield* index.descending(after);
      return;
    }
    const prefix = `${scope.agent}\u0000${scope.tenant}\u0000`;
    const merged: StoredEntry[] = [];
    for (const [key, index] of this.#indexes) {
      if (key.startsWith(prefix)) merged.push(...index.descending(after));
    }
    merged.sort((a, b) => b.statusTime - a.statusTime || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
    yield* merged;
  }

  /** How many tasks `scope` holds: the sizes of its indexes, without walking them. */
  #sizeOf(scope: TaskReadScope): number {
    if (scope.owner !== null) {
      return this.#indexes.get(this.#intern(scope as TaskScope).scopeKey)?.size ?? 0;
    }
    const prefix = `${scope.agent}\u0000${scope.tenant}\u0000`;
    let size = 0;
    for (const [key, index] of this.#indexes) if (key.startsWith(prefix)) size += index.size;
    return size;
  }

  createTask(request: CreateTaskRequest): Promise<void> {
    const { task, events } = request;
    if (this.#tasks.has(task.id)) {
      return Promise.reject(new TaskExistsError(task.id));
    }
    const problem = createEventsProblem(events);
    if (problem !== undefined) return Promise.reject(problem);
    const statusTime = statusTimeOrError(task.status);
    if (typeof statusTime !== 'number') return Promise.reject(statusTime);
    const configs = request.pushConfigs ?? [];
    // Checked before anything is written: the task and its configs are one write.
    const configsProblem = newTaskConfigsProblem(task.id, configs);
    if (configsProblem !== undefined) return Promise.reject(configsProblem);
    const { scope, scopeKey } = this.#intern(request.scope);
    const stored: LiveTask = {
      compact: false,
      id: task.id,
      contextId: task.contextId ?? '',
      scope,
      scopeKey,
      status: task.status,
      statusTime,
      history: task.history ? task.history.slice() : [],
      artifacts: task.artifacts
        ? task.artifacts.map((a) => artifactWithParts(a, a.parts.slice()))
        : [],
      metadata: task.metadata,
      seq: events.length,
      log: events.map((event) => event.payload),
      leaseHolder: request.leaseHolder,
      leaseExpiresAt: request.leaseHolder === undefined ? 0 : Date.now() + (request.leaseMs ?? 0),
      json: undefined,
      traceContext: request.traceContext,
    };
    this.#tasks.set(stored.id, stored);
    this.#indexOf(scopeKey).insert(stored);
    this.push.addForNewTask(stored.id, configs);
    if (isTerminalState(stored.status.state)) this.#finish(stored.id);
    return Promise.resolve();
  }

  append(request: AppendRequest): Promise<AppendResult> {
    const task = this.#tasks.get(request.taskId);
    if (task === undefined || task.compact || task.seq !== request.expectedSeq) {
      return Promise.resolve({ ok: false, currentSeq: task?.seq });
    }
    let seq: number;
    try {
      seq = lastSeqOf(task.seq, request.events);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    const wasTerminal = isTerminalState(task.status.state);
    const before = task.statusTime;
    // Computed before any change, so that a status without a valid timestamp rejects the whole
    // append instead of leaving it half applied.
    let after = before;
    for (const mutation of request.mutations) {
      if (mutation.kind !== 'status') continue;
      const time = statusTimeOrError(mutation.status);
      if (typeof time !== 'number') return Promise.reject(time);
      after = time;
    }
    for (const mutation of request.mutations) applyMutation(task, mutation);
    for (const event of request.events) task.log.push(event.payload);
    task.json = undefined;
    task.seq = seq;
    if (after !== before) {
      const index = this.#indexOf(task.scopeKey);
      index.remove({ statusTime: before, id: task.id });
      task.statusTime = after;
      index.insert(task);
    }
    if (!wasTerminal && isTerminalState(task.status.state)) this.#finish(task.id);
    return Promise.resolve({ ok: true, seq });
  }

  /** Records a task as finished and compacts the oldest finished task beyond the retention. */
  #finish(taskId: string): void {
    const task = this.#tasks.get(taskId);
    if (task !== undefined && !task.compact) task.json = projectionJson(task);
    this.#finished.push(taskId);
    while (this.#finished.length - this.#finishedHead > this.#retainedLogs) {
      const oldest = this.#finished[this.#finishedHead] as string;
      this.#finishedHead++;
      this.#compact(oldest);
    }
    // Reclaim the consumed head of the queue now and then, in O(1) amortized.
    if (this.#finishedHead > 1024 && this.#finishedHead * 2 > this.#finished.length) {
      this.#finished.splice(0, this.#finishedHead);
      this.#finishedHead = 0;
    }
  }

  #compact(taskId: string): void {
    const task = this.#tasks.get(taskId);
    // The id may have been purged and reused by a task still running since it was queued.
    if (task === undefined || task.compact || !isTerminalState(task.status.state)) return;
    // Its log is the outbox of its push configs: kept until they have received it all.
    if (this.push.hasPending(taskId, task.seq)) {
      this.#heldForPush.add(taskId);
      return;
    }
    const compact = compactEntry(task);
    this.#tasks.set(taskId, compact);
    this.#indexOf(task.scopeKey).replace(task, compact);
  }

  getTask(
    scope: TaskReadScope,
    taskId: string,
    view?: TaskViewOptions,
  ): Promise<StoredTask | undefined> {
    const entry = this.#visible(scope, taskId);
    if (entry === undefined) return Promise.resolve(undefined);
    const task = viewOf(entry, view);
    const json = isFullView(view) ? entry.json : undefined;
    const stored: StoredTask = { task, seq: entry.seq, state: stateOf(entry) };
    const { traceContext } = entry;
    if (json === undefined && traceContext === undefined) return Promise.resolve(stored);
    return Promise.resolve({
      ...stored,
      ...(json === undefined ? {} : { json }),
      ...(traceContext === undefined ? {} : { traceContext }),
    });
  }

  listTasks(scope: TaskReadScope, query: TaskListQuery): Promise<TaskListPage> {
    const matches = (entry: StoredEntry): boolean =>
      (query.contextId === undefined || entry.contextId === query.contextId) &&
      (query.state === undefined || stateOf(entry) === query.state) &&
      (query.statusTimeFrom === undefined || entry.statusTime >= query.statusTimeFrom);
    const unfiltered =
      query.contextId === undefined &&
      query.state === undefined &&
      query.statusTimeFrom === undefined;
    let totalSize: number | undefined;
    if (query.countTotal !== false) {
      if (unfiltered) totalSize = this.#sizeOf(scope);
      else {
        totalSize = 0;
        for (const entry of this.#descending(scope)) if (matches(entry)) totalSize++;
      }
    }
    const tasks: Task[] = [];
    let last: StoredEntry | undefined;
    let more = false;
    for (const entry of this.#descending(scope, query.after)) {
      if (!matches(entry)) continue;
      if (tasks.length === query.pageSize) {
        more = true;
        break;
      }
      tasks.push(viewOf(entry, query));
      last = entry;
    }
    const page: TaskListPage = totalSize === undefined ? { tasks } : { tasks, totalSize };
    return Promise.resolve(
      more && last !== undefined
        ? { ...page, next: { statusTime: last.statusTime, id: last.id } }
        : page,
    );
  }

  readEvents(taskId: string, afterSeq: number, limit: number): Promise<TaskLogEntry[] | undefined> {
    const task = this.#tasks.get(taskId);
    if (task === undefined || task.compact) return Promise.resolve(undefined);
    // The log is dense from seq 1, so seq n sits at index n - 1.
    const start = Math.max(0, afterSeq);
    const payloads = task.log.slice(start, start + limit);
    return Promise.resolve(payloads.map((payload, i) => new LazyJsonEvent(start + i + 1, payload)));
  }

  #purge(terminalBefore: number, limit: number): Promise<number> {
    let purged = 0;
    for (const entry of this.#tasks.values()) {
      if (purged >= limit) break;
      if (!isTerminalState(stateOf(entry)) || entry.statusTime >= terminalBefore) continue;
      // Kept while a push config has not received its events: they are its outbox.
      if (this.push.hasPending(entry.id, entry.seq)) continue;
      this.#tasks.delete(entry.id);
      this.#heldForPush.delete(entry.id);
      this.#indexes.get(entry.scopeKey)?.remove(entry);
      this.push.forgetTask(entry.id);
      purged++;
    }
    return Promise.resolve(purged);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function positionOf(entry: StoredEntry | undefined): MemoryTaskPosition | undefined {
  return entry === undefined
    ? undefined
    : {
        seq: entry.seq,
        terminal: isTerminalState(stateOf(entry)),
        traceContext: entry.traceContext,
      };
}
