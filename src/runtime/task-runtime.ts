/**
 * The per-process machinery around one task store, shared by every agent served from it: the
 * event hub, and the runs of the tasks this process works on. The runtime is the only place that
 * makes a run — to begin a new task, to resume an interrupted one, to cancel or to fail an
 * orphaned one — and it keeps the one registry of the runs whose execution is live here (by task
 * id, and by the request handler that owns them). Leases are taken, renewed and given up inside.
 *
 * Crash recovery follows the store's declared topology. An exclusive store (memory, SQLite) is
 * used by this process only: at start-up every task that was `SUBMITTED` or `WORKING` is failed
 * — whatever ran it died with the previous process — and no lease is ever taken. With a shared
 * store (PostgreSQL), a task running in a process is leased to it and the lease is renewed while
 * it runs; a surviving replica fails a task whose lease expired, within `orphanTimeoutMs`; and the
 * store's change feed tells the runs here of writes made elsewhere (a cancel through another
 * replica). Interrupted tasks hold no lease and stay resumable.
 */

import { tandemInstruments } from '../telemetry/instruments.js';
import { instrumentStore, storeAttributes } from '../telemetry/store-metrics.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { agentMessage } from '../protocol/builders.js';
import type { Message, Task, TaskState } from '../protocol/generated/types.js';
import { ConfigurationError, UsageError } from '../protocol/local-errors.js';
import { isInterruptedState, isTerminalState } from '../protocol/task-state.js';
import { newUuid } from '../protocol/uuid.js';
import type { StoredTask, TaskScope, TaskStore } from '../stores/task-store.js';
import { silentLogger, type Logger } from './logger.js';
import { readTask } from './read-task.js';
import { statusChange } from './task-changes.js';
import { TaskEventHub } from './task-event-hub.js';
import { TaskRun, type TaskRunDependencies } from './task-run.js';
import { waitAtMost } from './wait-at-most.js';

/** Options of {@link createTaskRuntime}. */
export interface TaskRuntimeOptions {
  readonly store: TaskStore;
  readonly logger?: Logger | undefined;
  /**
   * Upper bound on the time before a task whose process died is failed by another replica.
   * Default 30 s. Leases last 80% of it; the sweeper runs every 20%.
   */
  readonly orphanTimeoutMs?: number | undefined;
  /** This process's identity in leases. Defaults to a random UUID. */
  readonly holderId?: string | undefined;
}

/**
 * The task runtime of one store: create it with {@link createTaskRuntime}, `start()` it before
 * serving, give it to every `createRequestHandler` whose agent keeps its tasks in that store, and
 * `close()` it after the handlers have shut down.
 */
export interface TaskRuntime {
  /** The store whose tasks this runtime runs. */
  readonly store: TaskStore;
  /**
   * Recovers the tasks a dead process left running; with a shared store, then starts the lease
   * heartbeat, the sweeper that fails the tasks of replicas that died, and the change feed.
   * Calling it again returns the same promise.
   */
  start(): Promise<void>;
  /** Stops timers and the change feed. Running executions are the request handlers' business. */
  close(): Promise<void>;
}

/** Creates the runtime of a store; call `start()` before serving and `close()` at the end. */
export function createTaskRuntime(options: TaskRuntimeOptions): TaskRuntime {
  return new TaskRuntimeEngine(options);
}

/** The engine behind a {@link TaskRuntime}, for the request handlers; throws for anything else. */
export function engineOf(runtime: TaskRuntime): TaskRuntimeEngine {
  if (runtime instanceof TaskRuntimeEngine) return runtime;
  throw new UsageError('createRequestHandler needs a runtime made by createTaskRuntime');
}

/** A run whose execution is live in this process. */
export interface LiveRun {
  readonly run: TaskRun;
  /** Settles once the execution has ended and the run's lease is given up. */
  readonly ended: Promise<void>;
}

/** How a resume went: the run of the resumed task, or why there is none. */
export type ResumeOutcome =
  | { readonly kind: 'resumed'; readonly run: TaskRun; readonly task: Task }
  /** The task is not interrupted, or still has an execution (here or on another replica). */
  | { readonly kind: 'busy'; readonly state: TaskState }
  /** The task ended before the message could resume it. */
  | { readonly kind: 'ended'; readonly state: TaskState };

const RESTARTED = 'The server restarted while this task was running; it did not finish.';
const REPLICA_LOST = 'The server instance running this task stopped; it did not finish.';
/** Between tries for a lease another replica still holds. */
const LEASE_RETRY_MS = 10;
const ORPHAN_BATCH = 100;

/** An entry of the registry; its `ended` promise is made only for whoever waits for it. */
class RunEntry implements LiveRun {
  #ended = false;
  #promise: Promise<void> | undefined;
  #resolve: (() => void) | undefined;

  constructor(
    readonly run: TaskRun,
    readonly owner: object,
  ) {}

  get ended(): Promise<void> {
    if (this.#promise === undefined) {
      this.#promise = this.#ended
        ? Promise.resolve()
        : new Promise<void>((resolve) => (this.#resolve = resolve));
    }
    return this.#promise;
  }

  end(): void {
    this.#ended = true;
    this.#resolve?.();
  }
}

/** See the module documentation. */
export class TaskRuntimeEngine implements TaskRuntime {
  readonly store: TaskStore;
  readonly logger: Logger;
  readonly hub: TaskEventHub;
  readonly #holder: string;
  readonly #leaseMs: number;
  readonly #sweepMs: number;
  /** With a shared store: the runs here hold leases, and writes come from elsewhere too. */
  readonly #shared: boolean;
  readonly #runDeps: TaskRunDependencies;
  readonly #runs = new Map<string, RunEntry>();
  readonly #timers: ReturnType<typeof setInterval>[] = [];
  #stopListening: (() => Promise<void>) | undefined;
  #started: Promise<void> | undefined;

  constructor(options: TaskRuntimeOptions) {
    // Every operation timed (telemetry), the store itself for everything else.
    const store = instrumentStore(options.store);
    this.store = store;
    this.logger = options.logger ?? silentLogger;
    this.hub = new TaskEventHub(this.logger);
    this.#holder = options.holderId ?? newUuid();
    const timeout = options.orphanTimeoutMs ?? 30_000;
    this.#leaseMs = Math.max(1, Math.floor(timeout * 0.8));
    this.#sweepMs = Math.max(1, Math.floor(timeout * 0.2));
    this.#shared = store.topology === 'shared';
    if (this.#shared && store.changeFeed === undefined) {
      throw new ConfigurationError(
        'A task store with topology "shared" must have a changeFeed, so that each process hears of the writes of the others',
      );
    }
    const { hub, logger } = this;
    // A store used by this process alone needs no leases: no other process can run its tasks,
    // and at start-up every task left active is an orphan whatever its lease says.
    this.#runDeps = this.#shared
      ? { store, hub, logger, lease: { holder: this.#holder, ms: this.#leaseMs } }
      : { store, hub, logger };
  }

  start(): Promise<void> {
    if (this.#started === undefined) {
      this.startState = 'starting';
      this.#started = this.#start();
      this.#started.then(
        () => (this.startState = 'started'),
        () => (this.startState = 'failed'),
      );
    }
    return this.#started;
  }

  /** Where `start()` is, for readiness (`readiness.ts`). */
  startState: 'not started' | 'starting' | 'started' | 'failed' = 'not started';

  async #start(): Promise<void> {
    const { store } = this;
    if (!this.#shared || store.changeFeed === undefined) {
      // Alone with its store: whatever is still active was left by a dead predecessor, and
      // nothing can be orphaned while this process lives (it holds no leases to lose).
      await this.#failOrphans(true, RESTARTED);
      return;
    }
    // Counters that exist from the start (at 0), as Prometheus wants, not from their first event.
    tandemInstruments().serverStoreLeaseTakeovers.add(0, storeAttributes(store));
    tandemInstruments().serverStoreChangeFeedResyncs.add(0, storeAttributes(store));
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
      Math.max(1, Math.floor(this.#leaseMs / 3)),
      () => store.leases.renew(this.#holder, this.#leaseMs),
      'lease renewal',
    );
    every(this.#sweepMs, () => this.#failOrphans(false, REPLICA_LOST), 'orphan sweep');
  }

  /**
   * Begins the run of a new task, for the execution `owner` (a request handler) starts. The task
   * is created by the run's first write, leased to this process when the store is shared.
   * {@link end} it when the execution is over.
   */
  begin(scope: TaskScope, task: { taskId: string; contextId: string }, owner: object): TaskRun {
    const run = new TaskRun(this.#runDeps, {
      scope,
      taskId: task.taskId,
      contextId: task.contextId,
      seq: 0,
      state: 'TASK_STATE_UNSPECIFIED',
    });
    this.#runs.set(task.taskId, new RunEntry(run, owner));
    return run;
  }

  /**
   * Resumes an interrupted task with the client's next message, for the execution `owner`
   * starts. A task never has two executions: if one still runs here, the message waits up to
   * `waitMs` for it to return (an agent usually returns right after interrupting), and with a
   * shared store as long for the lease another replica still holds; of several messages racing,
   * exactly one resumes the task (a conditional store write). {@link end} the run it returns.
   */
  async resume(
    scope: TaskScope,
    current: StoredTask,
    message: Message,
    options: { readonly owner: object; readonly waitMs: number },
  ): Promise<ResumeOutcome> {
    const taskId = current.task.id;
    let stored = current;
    const previous = this.#runs.get(taskId);
    if (previous !== undefined && isInterruptedState(stored.state)) {
      await waitAtMost(previous.ended, options.waitMs);
      stored = await readTask(this.store, scope, taskId, 0);
    }
    if (!isInterruptedState(stored.state) || this.#runs.has(taskId)) {
      return { kind: 'busy', state: stored.state };
    }
    // Lease first: between the resume and a lease, another replica's sweeper would see a WORKING
    // task without a live lease and fail it.
    if (this.#shared && !(await this.#leaseWithin(taskId, options.waitMs))) {
      return { kind: 'busy', state: stored.state };
    }
    const run = new TaskRun(this.#runDeps, {
      scope,
      taskId,
      contextId: stored.task.contextId ?? '',
      seq: stored.seq,
      state: stored.state,
    });
    if (!(await run.resume(message))) {
      if (this.#shared) await this.store.leases.release(taskId, this.#holder);
      stored = await readTask(this.store, scope, taskId, 0);
      return { kind: isTerminalState(stored.state) ? 'ended' : 'busy', state: stored.state };
    }
    this.#runs.set(taskId, new RunEntry(run, options.owner));
    const resumed = await readTask(this.store, scope, taskId);
    return { kind: 'resumed', run, task: resumed.task };
  }

  /**
   * Takes the lease of an interrupted task, waiting up to `waitMs` for the replica whose execution
   * interrupted it to give it up: that replica answers the client as soon as the interruption is
   * stored and releases the lease just after, when its agent returns — a client that sends its
   * next message through another replica at once must not be told the task is busy.
   */
  async #leaseWithin(taskId: string, waitMs: number): Promise<boolean> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      if (await this.store.leases.acquire(taskId, this.#holder, this.#leaseMs)) return true;
      if (Date.now() + LEASE_RETRY_MS > deadline) return false;
      await sleep(LEASE_RETRY_MS);
    }
  }

  /** The run of a task whose execution is live in this process. */
  runOf(taskId: string): TaskRun | undefined {
    return this.#runs.get(taskId)?.run;
  }

  /** The live runs `owner` began or resumed. */
  runsOf(owner: object): LiveRun[] {
    const runs: LiveRun[] = [];
    for (const entry of this.#runs.values()) if (entry.owner === owner) runs.push(entry);
    return runs;
  }

  /**
   * Cancels a task as it was read (`current`): through its live run when this process runs it,
   * which also fires its execution's abort signal; otherwise with a conditional write of its
   * own, which the process running the task hears of through the change feed. Resolves to false
   * when the task had already ended.
   */
  cancel(scope: TaskScope, current: StoredTask): Promise<boolean> {
    const taskId = current.task.id;
    const run =
      this.#runs.get(taskId)?.run ??
      new TaskRun(this.#runDeps, {
        scope,
        taskId,
        contextId: current.task.contextId ?? '',
        seq: current.seq,
        state: current.state,
      });
    return run.cancel();
  }

  /** The execution of `run` has ended: unregisters it and gives up its lease. */
  async end(run: TaskRun): Promise<void> {
    const entry = this.#runs.get(run.taskId);
    if (entry?.run === run) this.#runs.delete(run.taskId);
    run.metrics.ended();
    try {
      // A task never created (a direct reply, a failed store) has no lease to give up; an
      // interrupted one waits for its next message without one.
      if (this.#shared && run.seq > 0) await this.store.leases.release(run.taskId, this.#holder);
    } catch (error) {
      this.logger.error({ err: error, taskId: run.taskId }, 'could not release the task lease');
    } finally {
      if (entry?.run === run) entry.end();
    }
  }

  #onChange(taskId: string, seq: number): void {
    this.hub.poke(taskId, seq);
    const run = this.#runs.get(taskId)?.run;
    if (run !== undefined && seq > run.seq) this.#refresh(run);
  }

  #onResync(): void {
    this.logger.warn({}, 'the change feed reconnected; re-reading the tasks followed here');
    tandemInstruments().serverStoreChangeFeedResyncs.add(1, storeAttributes(this.store));
    this.hub.pokeAll();
    for (const { run } of this.#runs.values()) this.#refresh(run);
  }

  #refresh(run: TaskRun): void {
    run
      .refresh()
      .catch((error: unknown) =>
        this.logger.error({ err: error, taskId: run.taskId }, 'could not refresh a running task'),
      );
  }

  async #failOrphans(ignoreLeases: boolean, reason: string): Promise<void> {
    for (;;) {
      const orphans = await this.store.leases.findOrphans(ORPHAN_BATCH, { ignoreLeases });
      let failed = 0;
      for (const orphan of orphans) {
        if (this.#runs.has(orphan.taskId)) continue;
        const run = new TaskRun(this.#runDeps, orphan);
        const message = agentMessage(reason, {
          taskId: orphan.taskId,
          contextId: orphan.contextId,
        });
        const outcome = await run.writeIfUnchanged(
          statusChange(orphan.taskId, orphan.contextId, 'TASK_STATE_FAILED', message),
        );
        run.metrics.ended();
        if (outcome === 'applied') {
          failed++;
          if (!ignoreLeases)
            tandemInstruments().serverStoreLeaseTakeovers.add(1, storeAttributes(this.store));
          this.logger.warn(
            { taskId: orphan.taskId, previousState: orphan.state },
            'failed an orphaned task',
          );
        }
      }
      if (orphans.length < ORPHAN_BATCH || failed === 0) return;
    }
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers.length = 0;
    const stop = this.#stopListening;
    this.#stopListening = undefined;
    if (stop !== undefined) await stop();
  }
}
