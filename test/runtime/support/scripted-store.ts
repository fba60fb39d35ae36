/**
 * A task store whose timing and faults a test scripts, for the unit tests of the runtime. Tasks
 * are kept by a real `MemoryTaskStore` (so reads, conditional appends and leases behave as the
 * contract says); what the script controls is what a real store does not do on demand:
 * - `hold()` / `release()`: writes are applied in call order when called (as the SQLite store
 *   applies them in its transaction) but acknowledged only on `release()` — a slow commit;
 * - `failAppend(n, error)`: the n-th append from now rejects, unapplied — a failing disk;
 * - `writeElsewhere(...)`: an append by another process, so that the runtime's next append on
 *   the task is refused as stale; on a shared store it is announced on the change feed.
 * Every call is recorded in `calls`, in order.
 */

import type { TaskState } from '../../../src/protocol/generated/types.js';
import { MemoryTaskStore } from '../../../src/stores/memory/memory-task-store.js';
import type {
  AppendRequest,
  AppendResult,
  CreateTaskRequest,
  StoredTask,
  TaskChangeFeed,
  TaskChangeListener,
  TaskLeases,
  TaskListPage,
  TaskListQuery,
  TaskLogEntry,
  TaskRetention,
  TaskReadScope,
  TaskScope,
  TaskStore,
  TaskStoreTopology,
  TaskViewOptions,
} from '../../../src/stores/task-store.js';

/** How the scripted store presents itself. */
export interface ScriptedStoreOptions {
  readonly topology?: TaskStoreTopology;
  readonly pipelinedAppends?: boolean;
}

export class ScriptedStore implements TaskStore {
  readonly topology: TaskStoreTopology;
  readonly pipelinedAppends: boolean;
  readonly changeFeed?: TaskChangeFeed;
  readonly leases: TaskLeases;
  readonly retention: TaskRetention;
  /** What the runtime asked, in order: `create <id> [lease <holder>]`, `append <id>@<seq>`... */
  readonly calls: string[] = [];
  /** The requests of every createTask call. */
  readonly creations: CreateTaskRequest[] = [];
  readonly inner = new MemoryTaskStore();
  readonly #listeners = new Set<TaskChangeListener>();
  #held: (() => void)[] | undefined;
  readonly #failures = new Map<number, Error>();
  #appends = 0;

  constructor(options: ScriptedStoreOptions = {}) {
    this.topology = options.topology ?? 'exclusive';
    this.pipelinedAppends = options.pipelinedAppends ?? this.topology === 'exclusive';
    if (this.topology === 'shared') {
      this.changeFeed = {
        listen: (listener) => {
          this.#listeners.add(listener);
          return Promise.resolve(() => {
            this.#listeners.delete(listener);
            return Promise.resolve();
          });
        },
      };
    }
    const leases = this.inner.leases;
    this.leases = {
      acquire: (taskId, holder, leaseMs) => {
        this.calls.push(`acquire ${taskId} ${holder}`);
        return leases.acquire(taskId, holder, leaseMs);
      },
      renew: (holder, leaseMs) => {
        this.calls.push(`renew ${holder}`);
        return leases.renew(holder, leaseMs);
      },
      release: (taskId, holder) => {
        this.calls.push(`release ${taskId} ${holder}`);
        return leases.release(taskId, holder);
      },
      findOrphans: (limit, options) => {
        this.calls.push(`findOrphans${options?.ignoreLeases === true ? ' ignoring leases' : ''}`);
        return leases.findOrphans(limit, options);
      },
    };
    this.retention = this.inner.retention;
  }

  /** From now on, writes are acknowledged only by {@link release}. */
  hold(): void {
    this.#held ??= [];
  }

  /** Acknowledges the held writes, in order, and stops holding. */
  release(): void {
    const held = this.#held ?? [];
    this.#held = undefined;
    for (const acknowledge of held) acknowledge();
  }

  /** Writes waiting for {@link release}. */
  get heldWrites(): number {
    return this.#held?.length ?? 0;
  }

  /** The `n`-th append from now (1 = the next) rejects with `error`, and is not applied. */
  failAppend(n: number, error: Error): void {
    this.#failures.set(this.#appends + n, error);
  }

  /**
   * Another process appends a status to the task, and announces it on the change feed of a
   * shared store unless `announce` is false (a notification lost on the way).
   */
  async writeElsewhere(
    scope: TaskScope,
    taskId: string,
    state: TaskState,
    announce = true,
  ): Promise<number> {
    const stored = await this.inner.getTask(scope, taskId, { historyLength: 0 });
    if (stored === undefined) throw new Error(`no task ${taskId}`);
    const status = { state, timestamp: new Date().toISOString() };
    const payload = { statusUpdate: { taskId, contextId: stored.task.contextId ?? '', status } };
    const result = await this.inner.append({
      taskId,
      expectedSeq: stored.seq,
      events: [{ seq: stored.seq + 1, payload, json: JSON.stringify(payload) }],
      mutations: [{ kind: 'status', status }],
    });
    if (!result.ok) throw new Error(`could not write ${taskId} elsewhere`);
    if (announce) for (const listener of this.#listeners) listener.onChange(taskId, result.seq);
    return result.seq;
  }

  /** Tells the change feed's listeners that announcements may have been lost. */
  resync(): void {
    for (const listener of this.#listeners) listener.onResync();
  }

  /** The outcome of a write (already applied, or a failure), acknowledged now or on release. */
  #acknowledge<T>(outcome: Promise<T> | Error): Promise<T> {
    const held = this.#held;
    if (held === undefined) return outcome instanceof Error ? Promise.reject(outcome) : outcome;
    return new Promise<T>((resolve, reject) => {
      held.push(() => {
        if (outcome instanceof Error) reject(outcome);
        else outcome.then(resolve, reject);
      });
    });
  }

  createTask(request: CreateTaskRequest): Promise<void> {
    this.creations.push(request);
    const lease = request.leaseHolder === undefined ? '' : ` lease ${request.leaseHolder}`;
    this.calls.push(`create ${request.task.id}${lease}`);
    return this.#acknowledge(this.inner.createTask(request));
  }

  append(request: AppendRequest): Promise<AppendResult> {
    this.#appends++;
    this.calls.push(`append ${request.taskId}@${request.expectedSeq}`);
    const failure = this.#failures.get(this.#appends);
    if (failure !== undefined) return this.#acknowledge<AppendResult>(failure);
    return this.#acknowledge(this.inner.append(request));
  }

  getTask(
    scope: TaskReadScope,
    taskId: string,
    view?: TaskViewOptions,
  ): Promise<StoredTask | undefined> {
    this.calls.push(`get ${taskId}`);
    return this.inner.getTask(scope, taskId, view);
  }

  listTasks(scope: TaskReadScope, query: TaskListQuery): Promise<TaskListPage> {
    return this.inner.listTasks(scope, query);
  }

  readEvents(taskId: string, afterSeq: number, limit: number): Promise<TaskLogEntry[] | undefined> {
    return this.inner.readEvents(taskId, afterSeq, limit);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
