/**
 * The per-process machinery around one task store, shared by every agent served from it: the
 * event hub, the registry of tasks running here, leases with their heartbeat, the sweeper that
 * fails tasks whose process died, and — for stores shared by several processes — the feed of
 * appends made elsewhere.
 *
 * Crash recovery: a store used by one process only (memory, SQLite) fails, at start-up, every
 * task that was `SUBMITTED` or `WORKING`: whatever ran it died with the previous process. Such a
 * store needs no leases and gets none. With a shared store (PostgreSQL), a task running in a
 * process is leased to it and the lease is renewed while it runs; a surviving replica fails a
 * task whose lease expired, within `orphanTimeoutMs`. Interrupted tasks hold no lease and stay
 * resumable.
 */

import { agentMessage } from '../protocol/builders.js';
import type { TaskStore } from '../stores/task-store.js';
import { silentLogger, type Logger } from './logger.js';
import { statusChange } from './task-changes.js';
import { TaskEventHub } from './task-event-hub.js';
import { TaskRun, type TaskRunDependencies } from './task-run.js';
import { newUuid } from '../protocol/uuid.js';

/** Options of {@link createTaskRuntime}. */
export interface TaskRuntimeOptions {
  readonly store: TaskStore;
  readonly logger?: Logger;
  /**
   * Upper bound on the time before a task whose process died is failed by another replica.
   * Default 30 s. Leases last 80% of it; the sweeper runs every 20%.
   */
  readonly orphanTimeoutMs?: number;
  /** This process's identity in leases. Defaults to a random UUID. */
  readonly holderId?: string;
}

const RESTARTED = 'The server restarted while this task was running; it did not finish.';
const REPLICA_LOST = 'The server instance running this task stopped; it did not finish.';

/** Creates the runtime of a store; call `start()` before serving and `close()` at the end. */
export function createTaskRuntime(options: TaskRuntimeOptions): TaskRuntime {
  return new TaskRuntime(options);
}

/** See the module documentation. */
export class TaskRuntime {
  readonly store: TaskStore;
  readonly logger: Logger;
  readonly hub: TaskEventHub;
  readonly holder: string;
  readonly leaseMs: number;
  readonly deps: TaskRunDependencies;
  readonly #sweepMs: number;
  readonly #runs = new Map<string, TaskRun>();
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #stopListening: (() => Promise<void>) | undefined;
  #started: Promise<void> | undefined;

  constructor(options: TaskRuntimeOptions) {
    this.store = options.store;
    this.logger = options.logger ?? silentLogger;
    this.hub = new TaskEventHub(this.logger);
    this.holder = options.holderId ?? newUuid();
    const timeout = options.orphanTimeoutMs ?? 30_000;
    this.leaseMs = Math.max(1, Math.floor(timeout * 0.8));
    this.#sweepMs = Math.max(1, Math.floor(timeout * 0.2));
    // A store used by this process alone needs no leases: no other process can run its tasks,
    // and at start-up every task left active is an orphan whatever its lease says.
    this.deps = this.exclusive
      ? { store: this.store, hub: this.hub, logger: this.logger }
      : {
          store: this.store,
          hub: this.hub,
          logger: this.logger,
          lease: { holder: this.holder, ms: this.leaseMs },
        };
  }

  /**
   * Recovers tasks left running by a dead process; with a shared store, then starts the lease
   * heartbeat and the sweeper that fails the tasks of replicas that died.
   */
  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    const { store } = this;
    if (this.exclusive || store.changeFeed === undefined) {
      // Alone with its store: whatever is still active was left by a dead predecessor, and
      // nothing can be orphaned while this process lives (it holds no leases to lose).
      await this.#failOrphans(true, RESTARTED);
      return;
    }
    this.#stopListening = await store.changeFeed.listen({
      onChange: (taskId, seq) => this.#onChange(taskId, seq),
      onResync: () => this.#onResync(),
    });
    await this.#failOrphans(false, REPLICA_LOST);
    const every = (ms: number, task: () => Promise<void>, what: string): void => {
      const timer = setInterval(() => {
        task().catch((error: unknown) => this.logger.error({ err: error }, `${what} failed`));
      }, ms);
      timer.unref();
      this.#timers.push(timer);
    };
    every(
      Math.max(1, Math.floor(this.leaseMs / 3)),
      () => store.leases.renew(this.holder, this.leaseMs),
      'lease renewal',
    );
    every(this.#sweepMs, () => this.#failOrphans(false, REPLICA_LOST), 'orphan sweep');
  }

  /**
   * True for a store used by this process only (memory, SQLite): no other process can hold a
   * live lease on its tasks.
   */
  get exclusive(): boolean {
    return this.store.topology === 'exclusive';
  }

  /** Registers a task executing in this process (for pokes from other replicas). */
  registerRun(run: TaskRun): void {
    this.#runs.set(run.taskId, run);
  }

  /** Unregisters a task whose execution has ended here, and gives up its lease. */
  async releaseRun(run: TaskRun): Promise<void> {
    if (this.#runs.get(run.taskId) === run) this.#runs.delete(run.taskId);
    if (!this.exclusive) await this.store.leases.release(run.taskId, this.holder);
  }

  #onChange(taskId: string, seq: number): void {
    this.hub.poke(taskId, seq);
    const run = this.#runs.get(taskId);
    if (run !== undefined && seq > run.seq) {
      run
        .refresh()
        .catch((error: unknown) =>
          this.logger.error({ err: error, taskId }, 'could not refresh a running task'),
        );
    }
  }

  #onResync(): void {
    this.logger.warn({}, 'the change feed reconnected; re-reading the tasks followed here');
    this.hub.pokeAll();
    for (const run of this.#runs.values()) {
      run
        .refresh()
        .catch((error: unknown) =>
          this.logger.error({ err: error, taskId: run.taskId }, 'could not refresh a running task'),
        );
    }
  }

  async #failOrphans(ignoreLeases: boolean, reason: string): Promise<void> {
    for (;;) {
      const orphans = await this.store.leases.findOrphans(100, { ignoreLeases });
      let failed = 0;
      for (const orphan of orphans) {
        if (this.#runs.has(orphan.taskId)) continue;
        const run = new TaskRun(this.deps, orphan);
        const message = agentMessage(reason, {
          taskId: orphan.taskId,
          contextId: orphan.contextId,
        });
        const outcome = await run.writeIfUnchanged(
          statusChange(orphan.taskId, orphan.contextId, 'TASK_STATE_FAILED', message),
        );
        if (outcome === 'applied') {
          failed++;
          this.logger.warn(
            { taskId: orphan.taskId, previousState: orphan.state },
            'failed an orphaned task',
          );
        }
      }
      if (orphans.length < 100 || failed === 0) return;
    }
  }

  /** Stops timers and the change feed. Running executions are the request handlers' business. */
  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
    const stop = this.#stopListening;
    this.#stopListening = undefined;
    if (stop !== undefined) await stop();
  }
}
